/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of the stitcher (events joined with their deferred user stacks),
 * shared between its source files. Nothing here is exported from the shared
 * library: every global helper is __hidden.
 */
#ifndef _USTACK_STITCH_LOCAL_H
#define _USTACK_STITCH_LOCAL_H

#include <stdint.h>
#include <sys/types.h>
#include <event-parse.h>

#include "ustack.h"
#include "ustack-hash.h"

#define __hidden __attribute__((visibility("hidden")))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))
#endif

/* The size of user_unwind_file.build_id */
#define USTACK_FILE_BUILD_ID_SIZE	20
/*
 * The highest file id kept (the kernel numbers at most 4096 files between
 * two buffer resets); entries with higher ids are taken as malformed.
 */
#define USTACK_FILE_ID_MAX		16384
/* The CPU numbers a stitcher takes: 0 to this - 1 (NR_CPUS is at most 8192) */
#define USTACK_CPU_MAX			8192
/* The lost reasons this library knows (no longer in ustack.h: callers sized arrays by it) */
#define USTACK_LOST_NR			(USTACK_LOST_LIMIT + 1)

/* ---- ustack-frames.c: file table and frame decoding ---- */

/* A user_unwind_file entry: shared by the file table and the stacks using it. */
struct ustack_tfile {
	unsigned int		refs;		/* atomic: stacks of other threads put it */
	unsigned int		id;
	size_t			build_id_size;
	unsigned char		build_id[USTACK_FILE_BUILD_ID_SIZE];
	size_t			path_len;
	char			path[];
};

/*
 * The decoded frames of a user_unwind_stack entry, shared by the stacks of
 * entries whose frame bytes were the same under the same files: a task that
 * enters the kernel from the same place again and again gets a stack per
 * entry (its own cookie and pid), all pointing to one set of frames.
 */
struct ustack_frameset {
	unsigned int		refs;		/* atomic: stacks of other threads put it */
	unsigned int		nr;		/* frames decoded */
	unsigned int		claimed;	/* frames the entry said it had */
	bool			malformed;
	unsigned long long	hash;		/* of claimed and the bytes */
	size_t			size;		/* the entry's frame bytes, when shared */
	const unsigned char	*bytes;		/* a copy of them (after files[]) */
	struct ustack_tfile	**files;	/* per frame; NULL when not a known file */
	struct ustack_frame	frames[];
};

/* Framesets kept for later entries alike: slots by hash; longer entries are not kept. */
#define USTACK_FRAMESET_SLOTS		64
#define USTACK_FRAMESET_MAX_BYTES	1024

/*
 * The files by id, as the trace named them so far; ids start at 1. With
 * @share (a stitcher's table, used by one thread), recent framesets are
 * kept in @sets, and forgotten whenever a file id changes.
 */
struct ustack_files {
	struct ustack_tfile	**by_id;	/* by_id[id - 1] */
	unsigned int		size;
	bool			share;
	struct ustack_frameset	**sets;		/* USTACK_FRAMESET_SLOTS, made at first use */
	struct ustack_stack_block *block;	/* with @share: stacks come from there */
};

/*
 * A stack with its reference count; its frames are its frameset's (found
 * from them), which hold their files. slot: its place in its block, from 1
 * (ustack-stacks.c); 0 when allocated alone.
 */
struct ustack_stack_ref {
	unsigned int		refs;
	unsigned int		slot;
	struct ustack_stack	stack;
};

int ustack_uleb128(const unsigned char *data, size_t size, size_t *pos,
		   unsigned long long *val) __hidden;
int ustack_files_set(struct ustack_files *files, unsigned int id, const unsigned char *build_id,
		     size_t build_id_size, const char *path, size_t len) __hidden;
void ustack_files_drop(struct ustack_files *files, unsigned int id) __hidden;
void ustack_files_clear(struct ustack_files *files) __hidden;
struct ustack_stack *ustack_stack_decode(struct ustack_files *files, unsigned long long cookie,
					 int pid, unsigned int nr, unsigned int flags,
					 const unsigned char *data, size_t size) __hidden;

/* ---- ustack-stacks.c: the memory of a stitcher's stacks ---- */

/* Stacks handed out one after the other; live: atomic, see ustack-stacks.c */
struct ustack_stack_block {
	unsigned int		live;
	unsigned int		used;
	unsigned int		size;
	struct ustack_stack_ref	refs[];
};

static inline struct ustack_stack_block *ustack_stack_block_of(struct ustack_stack_ref *ref)
{
	return container_of(ref - (ref->slot - 1), struct ustack_stack_block, refs[0]);
}

struct ustack_stack_ref *ustack_stack_alloc(struct ustack_files *files) __hidden;
void ustack_stack_free(struct ustack_stack_ref *ref) __hidden;
void ustack_stacks_release(struct ustack_files *files) __hidden;

/*
 * For the tests, inline so that the library has no code of theirs: the
 * references a stack has now; the count of its block (the stacks of the
 * block not yet freed, plus one while the table still hands stacks out of
 * it; 0 for a stack allocated on its own).
 */
static inline unsigned int ustack_stack_refs(const struct ustack_stack *stack)
{
	return __atomic_load_n(&container_of(stack, struct ustack_stack_ref, stack)->refs,
			       __ATOMIC_RELAXED);
}

static inline unsigned int ustack_stack_block_refs(const struct ustack_stack *stack)
{
	struct ustack_stack_ref *ref = container_of(stack, struct ustack_stack_ref, stack);

	if (!ref->slot)
		return 0;
	return __atomic_load_n(&ustack_stack_block_of(ref)->live, __ATOMIC_RELAXED);
}

/* ---- ustack-frameset.c: decoded frames shared by stacks alike ---- */

unsigned long long ustack_frameset_hash(unsigned int claimed, const unsigned char *data,
					size_t size) __hidden;
struct ustack_frameset *ustack_frameset_find(struct ustack_files *files, unsigned long long hash,
					     unsigned int claimed, const unsigned char *data,
					     size_t size) __hidden;
void ustack_frameset_keep(struct ustack_files *files, struct ustack_frameset *set) __hidden;
void ustack_framesets_forget(struct ustack_files *files) __hidden;
void ustack_tfile_put(struct ustack_tfile *f) __hidden;
void ustack_frameset_put(struct ustack_frameset *set) __hidden;

/* ---- ustack-records.c: the three entries in a trace ---- */

/* A field of the event formats: where it is in a record. */
struct ustack_field {
	unsigned int		offset;
	unsigned int		size;
};

/*
 * The entries of the system "ftrace" that carry no cookie, kept by id: the
 * kernel has about twenty entries in all (enum trace_type).
 */
#define USTACK_NOCOOKIE_MAX	64

/*
 * What the stitcher needs of the event formats, found by name once.
 * The ids are -1 when the tep does not have the events.
 */
/* The event of a type id, kept: tep_find_event() is a search once types alternate. */
#define USTACK_TYPE_CACHE	64

struct ustack_type_slot {
	int			id;		/* -1: empty */
	struct tep_event	*event;
};

struct ustack_formats {
	struct tep_handle	*tep;		/* NULL: from a layout (no event is known) */
	bool			swap;		/* the trace's byte order is not ours */
	size_t			max_size;	/* of a record's data: its page's room; 0: unknown */
	struct ustack_type_slot	types[USTACK_TYPE_CACHE];
	struct ustack_field	common_type;
	struct ustack_field	common_pid;
	bool			have_common;
	int			cookie_id;
	int			stack_id;
	int			file_id;
	/* ftrace entries that carry no cookie (ustack_formats_nocookie()): ids, sorted */
	int			nocookie[USTACK_NOCOOKIE_MAX];
	unsigned int		nr_nocookie;
	struct ustack_field	cookie;			/* user_unwind_cookie */
	struct ustack_field	stack_cookie;		/* user_unwind_stack */
	struct ustack_field	stack_next;
	struct ustack_field	stack_nr;
	struct ustack_field	stack_flags;
	struct ustack_field	stack_frames;
	struct ustack_field	file_id_field;		/* user_unwind_file */
	struct ustack_field	file_build_id_size;
	struct ustack_field	file_build_id;
	struct ustack_field	file_path;
};

/* A record, as far as the stitcher reads it. */
enum ustack_kind {
	USTACK_KIND_EVENT,	/* any other event, or a record too short for one */
	USTACK_KIND_COOKIE,
	USTACK_KIND_STACK,
	USTACK_KIND_FILE,
};

struct ustack_rec {
	enum ustack_kind	kind;
	struct tep_event	*event;
	int			pid;
	bool			malformed;	/* a user_unwind_* entry that is cut */
	bool			nocookie;	/* EVENT: an ftrace entry that carries none */
	unsigned long long	cookie;		/* COOKIE, STACK */
	unsigned long long	next;		/* STACK: the task's next cookie, or 0 */
	unsigned int		nr;		/* STACK */
	unsigned int		flags;
	const unsigned char	*data;		/* STACK: frames; FILE: path */
	size_t			size;
	unsigned int		id;		/* FILE */
	const unsigned char	*build_id;
	size_t			build_id_size;
};

size_t ustack_page_room(struct tep_handle *tep, int page) __hidden;
int ustack_formats_init(struct ustack_formats *fmt, struct tep_handle *tep) __hidden;
void ustack_formats_add_nocookie(struct ustack_formats *fmt, int id) __hidden;
void ustack_rec_read(struct ustack_formats *fmt, struct tep_record *record,
		     struct ustack_rec *rec) __hidden;

/* ---- ustack-tasks.c: tasks and their kernel entries ---- */

/*
 * One kernel entry of a task: its cookie and, once known, its stack or why it
 * is lost, all in @info (USTACK_STATE_PENDING, _STACK or _LOST), which is
 * what ustack_stitcher_lookup() gives. Held by its task while current, and by
 * every event held or indexed for it. 48 bytes: a trace has one per kernel
 * entry.
 */
struct ustack_entry {
	unsigned int		refs;
	union {
		unsigned long long	missed_gen;	/* the stitcher's when it was made */
		struct ustack_entry	*next_free;	/* put: in its pool's free list */
	};
	struct ustack_info	info;
	struct ustack_entry_pool *pool;		/* where it goes back when put */
};

static inline bool ustack_entry_pending(const struct ustack_entry *entry)
{
	return entry->info.state == USTACK_STATE_PENDING;
}

/*
 * The entries of a stitcher, taken from chunks of USTACK_ENTRY_CHUNK: one
 * allocation for many, as a trace has one entry per kernel entry. Entries
 * put go back to the pool; the chunks are freed with the stitcher, after
 * every entry (none outlives it: the stacks they give out are their own).
 */
#define USTACK_ENTRY_CHUNK	256

struct ustack_entry_chunk {
	struct ustack_entry_chunk	*next;
	struct ustack_entry		entries[USTACK_ENTRY_CHUNK];
};

struct ustack_entry_pool {
	struct ustack_entry_chunk	*chunks;	/* the first is being filled */
	unsigned int			used;		/* of its entries */
	struct ustack_entry		*free;		/* put, for reuse */
};

/* A task with a cookie: in the pid hash and in least recently used order. */
struct ustack_task {
	struct ustack_hnode	node;		/* by pid */
	struct ustack_task	*lru_prev;
	struct ustack_task	*lru_next;
	int			pid;
	struct ustack_entry	*entry;
};

struct ustack_tasks {
	struct ustack_htable	table;		/* by pid */
	size_t			nr;
	struct ustack_task	*lru_head;	/* least recently used */
	struct ustack_task	*lru_tail;
};

int ustack_tasks_init(struct ustack_tasks *tasks) __hidden;
void ustack_tasks_clear(struct ustack_tasks *tasks) __hidden;
struct ustack_task *ustack_task_find(struct ustack_tasks *tasks, int pid) __hidden;
struct ustack_task *ustack_task_add(struct ustack_tasks *tasks, int pid,
				    struct ustack_entry *entry) __hidden;
void ustack_task_del(struct ustack_tasks *tasks, struct ustack_task *task) __hidden;
void ustack_task_touch(struct ustack_tasks *tasks, struct ustack_task *task) __hidden;
struct ustack_entry *ustack_entry_alloc(struct ustack_entry_pool *pool, unsigned long long cookie,
					unsigned long long missed_gen) __hidden;
void ustack_entry_pool_clear(struct ustack_entry_pool *pool) __hidden;
struct ustack_entry *ustack_entry_get(struct ustack_entry *entry) __hidden;
void ustack_entry_put(struct ustack_entry *entry) __hidden;
void ustack_entry_lose(struct ustack_entry *entry, enum ustack_lost why) __hidden;
void ustack_entry_set_stack(struct ustack_entry *entry, const struct ustack_stack *stack) __hidden;

/* ---- ustack-stitch.c, ustack-rules.c, ustack-hold.c: the stitcher ---- */

/* What the last cookie entry (or stack entry with flag 0x4) on a CPU says. */
enum ustack_cpu_state {
	USTACK_CPU_NONE,	/* no cookie entry yet: no event carries a cookie */
	USTACK_CPU_COOKIE,	/* events of pid carry cookie (none when it is 0) */
	USTACK_CPU_UNKNOWN,	/* events were missed since the last one */
};

/*
 * next: the state comes from a stack entry's flag 0x4, and the task may
 * still be at the entry before (the events of its task work come after).
 */
struct ustack_cpu {
	enum ustack_cpu_state	state;
	int			pid;
	unsigned long long	cookie;
	bool			next;
};

/*
 * An event (or raw entry) handed back later: a copy of its record, and what
 * says its stack. With an entry, the entry's state is the event's; else
 * state, lost and cookie are. limit: let go by the held events limit.
 */
struct ustack_held {
	struct ustack_held	*next;
	struct tep_event	*event;
	struct tep_record	record;
	int			cpu;
	bool			limit;
	struct ustack_info	info;
	struct ustack_entry	*entry;
	const struct ustack_stack *stack;		/* a raw user_unwind_stack entry's */
	size_t			bytes;
	size_t			cap;		/* of data */
	unsigned char		data[];
};

/* Held events let go are kept for the next ones, this many at most. */
#define USTACK_HELD_SPARE	16
/* The least data room of a held event (most records are smaller). */
#define USTACK_HELD_MIN_CAP	128

/*
 * The counters of a stitcher, read one at a time with
 * ustack_stitcher_get_stat() (see enum ustack_stat): private, so that they
 * can grow without changing the ABI.
 */
struct ustack_stitch_stats {
	unsigned long long	events;
	unsigned long long	states[USTACK_STATE_PENDING + 1];
	unsigned long long	lost[USTACK_LOST_NR];
	unsigned long long	stacks;
	unsigned long long	stacks_unmatched;
	unsigned long long	malformed;
	size_t			held;
	size_t			held_bytes;
	size_t			peak_tasks;
	size_t			peak_held;
	size_t			peak_held_bytes;
};

/* ---- ustack-index.c: what every event carried, for lookups ---- */

/*
 * A run of events of one CPU that carry the same: of task @pid (-1: of any
 * task, unknown), from position @first to @last, with @entry's stack (NULL:
 * unknown). Events of other tasks in between carry none.
 */
struct ustack_span {
	unsigned long long	first;
	unsigned long long	last;
	int			pid;
	struct ustack_entry	*entry;
};

/* Spans in chunks, so that they never move: a lookup's info stays valid. */
#define USTACK_SPAN_CHUNK	256

struct ustack_spans {
	struct ustack_span	**chunks;
	size_t			nr_chunks;	/* allocated */
	size_t			nr;		/* spans used */
	unsigned long long	last_pos;	/* of the last event noted */
	bool			seen;		/* an event was noted */
	bool			open;		/* the last span may go on */
};

struct ustack_index {
	struct ustack_spans	*cpus;
	unsigned int		nr_cpus;
	size_t			nr_spans;
	size_t			bytes;
	struct ustack_entry	*spare;		/* for an event that lost its stack */
	struct ustack_entry_pool *pool;		/* the stitcher's */
};

int ustack_index_reserve(struct ustack_index *idx, int cpu, unsigned long long pos) __hidden;
void ustack_index_note(struct ustack_index *idx, int cpu, int pid, unsigned long long pos,
		       const struct ustack_info *info, struct ustack_entry *entry) __hidden;
void ustack_index_clear(struct ustack_index *idx) __hidden;

struct ustack_stitcher {
	struct ustack_formats		fmt;
	unsigned int			flags;
	ustack_stitch_func		callback;
	void				*context;
	struct ustack_cpu		*cpus;
	unsigned int			nr_cpus;
	struct ustack_tasks		tasks;
	struct ustack_files		files;
	struct ustack_held		*head;		/* oldest held event */
	struct ustack_held		*tail;
	struct ustack_held		*spare;		/* let go, for reuse */
	unsigned int			nr_spare;
	unsigned long long		missed_gen;	/* reports of missed events */
	size_t				max_tasks;
	size_t				max_held;
	size_t				max_held_bytes;
	struct ustack_stitch_stats	stats;
	struct ustack_index		index;		/* with USTACK_STITCH_INDEX_* */
	struct ustack_entry_pool	pool;
};

/*
 * An event to hand back: its record, its state when it has no entry, its
 * entry when it carries a cookie that names one, a raw stack entry's stack.
 */
struct ustack_out {
	struct tep_event	*event;
	struct tep_record	*record;
	int			cpu;
	struct ustack_info	info;
	struct ustack_entry	*entry;
	const struct ustack_stack *stack;
};

/* A whole input fed to a stitcher by a driver (ustack-stitch-*.c). */
struct ustack_run {
	struct ustack_stitcher	*st;
	int			err;		/* errno of a failed add */
	bool			stopped;	/* by the callback */
};

/* ustack-stitch.c */
struct ustack_stitcher *ustack_stitcher_new(unsigned int flags, ustack_stitch_func callback,
					    void *context) __hidden;
int ustack_run_start(struct ustack_run *run, struct tep_handle *tep, unsigned int flags,
		     ustack_stitch_func callback, void *context) __hidden;
int ustack_run_record(struct ustack_run *run, struct tep_record *record, int cpu) __hidden;
int ustack_run_end(struct ustack_run *run, int iterated) __hidden;
int ustack_run_finish(struct ustack_run *run, int iterated) __hidden;

/* ustack-rules.c */
struct ustack_cpu *ustack_cpu(struct ustack_stitcher *st, int cpu) __hidden;
void ustack_cpus_reset(struct ustack_stitcher *st) __hidden;
void ustack_on_cookie(struct ustack_stitcher *st, struct ustack_cpu *c,
		      const struct ustack_rec *rec) __hidden;
int ustack_on_stack(struct ustack_stitcher *st, struct ustack_cpu *c,
		    const struct ustack_rec *rec, const struct ustack_stack **raw) __hidden;
int ustack_on_file(struct ustack_stitcher *st, const struct ustack_rec *rec) __hidden;
int ustack_on_event(struct ustack_stitcher *st, struct ustack_cpu *c, int pid,
		    struct ustack_out *out) __hidden;

/* ustack-stitch-tracecmd.c */
void ustack_stitcher_bound_tracecmd(struct ustack_stitcher *st,
				    struct tracecmd_input *handle) __hidden;

/*
 * libtracecmd's own, exported since trace-cmd 2.9 but declared in its
 * private header only (trace-cmd report uses them). State 0 of
 * tracecmd_read_headers(), TRACECMD_FILE_ALLOCATED, reads every header.
 */
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
int tracecmd_get_file_state(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);

/* ustack-trace-head.c: the headers read without the kallsyms (also the trace-cmd plugin's) */
int ustack_trace_read_head(struct tracecmd_input *handle, int fd) __hidden;
int ustack_pread_all(int fd, void *buf, size_t len, off_t off) __hidden;

/* ustack-hold.c */
int ustack_hand_back(struct ustack_stitcher *st, const struct ustack_out *out) __hidden;
int ustack_drain(struct ustack_stitcher *st) __hidden;
void ustack_held_clear(struct ustack_stitcher *st) __hidden;

/* ustack-frame-text.c: one frame looked up, and as text */
int ustack_frame_lookup(const struct ustack_frame *frame, int pid, struct ustack_symbolizer *sym,
			struct ustack_symbol *symbol) __hidden;
int ustack_frame_inlines(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			 const struct ustack_source **src) __hidden;
int ustack_frame_text(const struct ustack_frame *frame, int pid, struct ustack_symbolizer *sym,
		      const char *sep, char *buf, size_t size) __hidden;

#endif /* _USTACK_STITCH_LOCAL_H */
