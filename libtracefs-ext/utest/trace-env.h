/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traces built by hand for the stitcher tests, without root or tracefs.
 *
 * The event formats are those the kernel shows (utest/formats/
 * ustack-6.12.formats, built into the test binary): utest_tep() parses them
 * into a tep handle. Records are written field by field (ut_rec_*()), then
 * fed to a stitcher (ut_add(), which scribbles over the record afterwards,
 * so that held events must be copies), or put into ring buffer pages
 * (struct ut_pages) for a fake tracefs or a trace.dat file. The callback of
 * the stitcher notes what it was handed (struct ut_seen).
 */
#ifndef _UTEST_TRACE_ENV_H
#define _UTEST_TRACE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <event-parse.h>
#include <ustack.h>

#include "utest.h"

/* The formats file, from fixtures.S */
extern const char utest_formats[], utest_formats_end[];

/* Event ids in the formats file */
#define UT_ID_FUNCTION	1
#define UT_ID_KSTACK	4	/* ftrace/kernel_stack (trace-cmd record -T) */
#define UT_ID_PRINT	5	/* ftrace/print (trace_marker) */
#define UT_ID_REPEATS	19	/* ftrace/func_repeats */
#define UT_ID_COOKIE	20
#define UT_ID_STACK	21
#define UT_ID_FILE	22
#define UT_ID_GETPPID	196

#define UT_CPUS		4
#define UT_PAGE		4096

/* The tasks of the traces, and the cookies of their kernel entries */
#define P		100
#define Q		200
#define R		300
#define K1		0x300000002ULL
#define K2		0x300000003ULL

/* Which formats a tep gets */
enum ut_formats {
	UT_FORMATS_ALL,
	UT_FORMATS_NO_USTACK,		/* a kernel without the option */
	UT_FORMATS_COOKIE_ONLY,		/* an incomplete set */
};

/* Walk the formats file: cb(system, name, format, len) per event; the header page. */
int ut_formats_each(int (*cb)(const char *sys, const char *name, const char *fmt, size_t len,
			      void *data), void *data);
const char *ut_header_page(size_t *len);
struct tep_handle *utest_tep(enum ut_formats which);

/* Records: each returns its size, padded to 4 bytes like the ring buffer's */
size_t ut_rec_event(unsigned char *buf, int pid, unsigned long long tag);
/* ftrace's kernel_stack entry: its field size, then nr callers, innermost first */
size_t ut_rec_kernel_stack(unsigned char *buf, int pid, int size,
			   const unsigned long long *callers, unsigned int nr);
/* ftrace's print entry (tag: its ip) and func_repeats entry (tag: its ip, one repeat) */
size_t ut_rec_print(unsigned char *buf, int pid, unsigned long long tag, const char *text);
size_t ut_rec_repeats(unsigned char *buf, int pid, unsigned long long tag);
size_t ut_rec_cookie(unsigned char *buf, int pid, unsigned long long cookie);
size_t ut_rec_stack_next(unsigned char *buf, int pid, unsigned long long cookie,
			 unsigned long long next, unsigned int nr, unsigned int flags,
			 const unsigned char *frames, size_t len);
size_t ut_rec_stack(unsigned char *buf, int pid, unsigned long long cookie, unsigned int nr,
		    unsigned int flags, const unsigned char *frames, size_t len);
size_t ut_rec_file(unsigned char *buf, int pid, unsigned int id, unsigned int build_id_size,
		   const char *path);

/* Frames encoded as the kernel does */
struct ut_frame {
	unsigned int		id;
	unsigned long long	offset;
};
size_t ut_uleb128(unsigned char *buf, unsigned long long val);
size_t ut_encode(unsigned char *buf, const struct ut_frame *frames, unsigned int nr);

/* The lost reasons of this library (ustack.h has no count of them) */
#define UT_LOST_NR	(USTACK_LOST_LIMIT + 1)

/* A stitcher's counters, read with ustack_stitcher_get_stat() */
struct ut_stats {
	unsigned long long	events;
	unsigned long long	states[USTACK_STATE_RAW + 1];
	unsigned long long	lost[UT_LOST_NR];
	unsigned long long	stacks;
	unsigned long long	stacks_unmatched;
	unsigned long long	malformed;
	unsigned long long	tasks;
	unsigned long long	held;
	unsigned long long	held_bytes;
	unsigned long long	peak_tasks;
	unsigned long long	peak_held;
	unsigned long long	peak_held_bytes;
};
int ut_get_stats(struct ustack_stitcher *st, struct ut_stats *s);

/* What the callback was handed */
struct ut_seen {
	int			type;
	int			pid;
	int			cpu;
	unsigned long long	tag;		/* function, print, func_repeats: ip */
	enum ustack_state	state;
	enum ustack_lost	lost;
	unsigned long long	cookie;
	unsigned int		nr;
	unsigned int		flags;
	char			text[512];	/* ustack_stack_format(stack, NULL, ...) */
};

struct ut_trace {
	struct tep_handle	*tep;
	struct ustack_stitcher	*st;
	unsigned long long	ts;
	struct ut_seen		*seen;
	size_t			nr_seen;
	size_t			cap;
	size_t			stop_at;	/* return 1 when nr_seen reaches it; 0: never */
	long long		missed[UT_CPUS];	/* for the next record of the CPU */
	unsigned char		buf[UT_PAGE];
};

bool ut_start(struct ut_trace *t, enum ut_formats which, unsigned int flags);
void ut_end(struct ut_trace *t);
int ut_callback(struct tep_event *event, struct tep_record *record, int cpu,
		const struct ustack_info *info, void *context);
void ut_note(struct ut_seen *s, struct tep_event *event, struct tep_record *record, int cpu,
	     const struct ustack_info *info);
int ut_add(struct ut_trace *t, int cpu, size_t size);
int ut_event(struct ut_trace *t, int cpu, int pid, unsigned long long tag);
int ut_cookie(struct ut_trace *t, int cpu, int pid, unsigned long long cookie);
int ut_stack(struct ut_trace *t, int cpu, int pid, unsigned long long cookie,
	     const struct ut_frame *frames, unsigned int nr);
int ut_file(struct ut_trace *t, int cpu, unsigned int id, const char *path);
/* P's entry K1 on CPU 0 and Q's K2 on CPU 1, events 1 and 2 waiting for their stacks */
void ut_two_waiting(struct ut_trace *t);

/* The i-th event handed back was tag, with that state (and reason). */
bool ut_expect(struct ut_trace *t, size_t i, unsigned long long tag, enum ustack_state state,
	       enum ustack_lost lost, const char *file, unsigned int line);
#define UT_EXPECT(t, i, tag, state, lost) \
	ut_expect(t, i, tag, USTACK_STATE_##state, USTACK_LOST_##lost, __FILE__, __LINE__)
#define UT_SEEN(t, n) \
	UT_CHECK((t)->nr_seen == (size_t)(n), "%zu events handed back, want %zu", (t)->nr_seen, \
		 (size_t)(n))

/* Ring buffer pages of one CPU, as trace_pipe_raw gives them */
struct ut_pages {
	unsigned char		*data;
	size_t			nr;		/* pages */
	size_t			used;		/* event bytes in the last page */
	unsigned long long	last_ts;
};

/* The tracefs and debugfs mounts there are */
int ut_tracefs_mounts(void);

bool ut_pages_add(struct ut_pages *p, unsigned long long ts, const unsigned char *rec,
		  size_t size, bool missed);
void ut_pages_free(struct ut_pages *p);

#endif /* _UTEST_TRACE_ENV_H */
