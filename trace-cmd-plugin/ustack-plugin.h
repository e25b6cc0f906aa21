/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of the trace-cmd plugin for deferred user stacks (plugin_ustack.so),
 * shared between its source files. Nothing here is exported from the plugin:
 * the only global symbols are the tep_plugin_* hooks of libtraceevent.
 */
#ifndef _USTACK_PLUGIN_H
#define _USTACK_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

#include "ustack.h"

#define __hidden __attribute__((visibility("hidden")))

/*
 * Exported by libtracecmd 1.3 to 1.5, declared only in its private header
 * (trace-cmd-private.h, not installed by Debian).
 */
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_is_buffer_instance(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
extern __thread struct tracecmd_input *tracecmd_curr_thread_handle;
/* The same, for reading a file's headers in steps (ustack-head.c). */
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
int tracecmd_get_file_state(struct tracecmd_input *handle);
/* Values of its enum tracecmd_file_states: the headers read up to */
#define UP_FILE_ALL_EVENTS	4	/* the event formats */
#define UP_FILE_KALLSYMS	5	/* the kernel's symbols */

/* Default of the option ustack_window: events held while a stack is awaited. */
#define UP_WINDOW_DEFAULT	16384
/*
 * Default of the option ustack_reopen_kb: KiB of decompressed pages between
 * reopens; 0 (never) where the reopening is not built.
 */
#ifdef UP_ZPAGE_WORKAROUND
#define UP_REOPEN_KB_DEFAULT	16384
#else
#define UP_REOPEN_KB_DEFAULT	0
#endif

/* ---- ustack-cmdline.c: what the command line of this process says ---- */

struct up_cmdline {
	char		*buf;		/* as read: freed by up_cmdline_free() */
	const char	*words;		/* the words, each ending with a NUL */
	size_t		len;		/* the bytes in words */
	const char	*prog;		/* the program's name, without its directory */
	const char	*sub;		/* its first argument ("report"); "" when none */
};

void up_cmdline_parse(struct up_cmdline *cmd, const char *words, size_t len) __hidden;
int up_cmdline_read(struct up_cmdline *cmd) __hidden;
void up_cmdline_free(struct up_cmdline *cmd) __hidden;

/* ---- ustack-gate.c: may the plugin find report's input as it knows how ---- */

const char *up_gate_check(const struct up_cmdline *cmd) __hidden;
const char *up_gate_reason(const char *fmt, ...) __hidden __attribute__((format(printf, 1, 2)));
void up_gate_say(const char *why) __hidden;

#ifdef UP_INPUT_GUESS
/*
 * How trace-cmd report of libtracecmd 1.3 (trace-cmd 3.1) loads plugins,
 * followed to find its input and whether it has stacks at all. Built only
 * for those versions (ustack-gate.c).
 */

/* ---- ustack-input.c: which trace.dat this process reads ---- */

/*
 * The input of this load of the plugin in "trace-cmd report": the trace file
 * being loaded, found among the open files (valid while report has it open).
 */
struct up_input {
	char		file[64];
	int		fd;
	bool		have_file;
};

void up_input_read(struct up_input *in, const struct up_cmdline *cmd) __hidden;
void up_input_claim_open(void) __hidden;
void up_input_release(void) __hidden;

/* ---- ustack-peek.c: does the file have deferred stacks at all ---- */

int up_peek_has_ustack(int fd) __hidden;
#endif /* UP_INPUT_GUESS */

/* ---- ustack-escape.c: names and paths printed, control characters replaced ---- */

size_t up_escape(char *dst, const char *text, size_t len) __hidden;
void up_escape_seq(struct trace_seq *s, const char *text, size_t len) __hidden;

/* ---- ustack-lines.c: the line of a frame, kept for the next stack ---- */

#define UP_LINES	4096

struct up_line;

struct up_lines {
	struct ustack_symbolizer	*sym;	/* NULL: frames as file+offset */
	struct up_line			*slot[UP_LINES];
	unsigned long long		made;	/* lines made (not found again) */
};

void up_lines_init(struct up_lines *lines, struct ustack_symbolizer *sym) __hidden;
void up_lines_clear(struct up_lines *lines) __hidden;
const char *up_line_get(struct up_lines *lines, const struct ustack_frame *frame, int pid,
			size_t *len) __hidden;

/* ---- ustack-text.c: stacks as the lines printed under an event ---- */

/*
 * The frames of one stack as the text printed under an event: a line
 * "\n => frame" per frame; shared by reference, by every stack with the
 * same frames.
 */
struct up_text {
	unsigned int			refs;
	const struct ustack_stack	*stack;	/* kept: the files of its frames stay */
	size_t				len;
	char				text[];
};

#define UP_TEXT_CACHE	64

struct up_texts {
	struct ustack_symbolizer	*sym;	/* NULL: frames as file+offset */
	struct up_lines			lines;
	struct up_text			*cache[UP_TEXT_CACHE];
	char				*buf;	/* the text being made */
	size_t				len;
	size_t				size;
	bool				failed;	/* out of memory while making it */
	bool				unread;	/* a frame of it could not be read */
};

int up_texts_init(struct up_texts *texts, bool symbols, unsigned int sym_flags,
		  const char *debug_dir, const char *sysroot) __hidden;
void up_texts_clear(struct up_texts *texts) __hidden;
struct up_text *up_text_get(struct up_texts *texts, const struct ustack_stack *stack) __hidden;
void up_text_put(struct up_text *text) __hidden;

/* ---- ustack-head.c: the file opened again, its kallsyms left out ---- */

struct tracecmd_input *up_head_open(const char *file) __hidden;

/*
 * ---- libtracefs-ext's, linked in (hidden there, ustack-trace-head.c): the
 * headers read without the kallsyms; whole reads at an offset ----
 */

int ustack_trace_read_head(struct tracecmd_input *handle, int fd);
int ustack_pread_all(int fd, void *buf, size_t len, off_t off);

/* ---- ustack-reader.c: the records of the file ---- */

struct up_reopen;

struct up_reader {
	char			*file;
	int			buffer;		/* -1: the top-level one; else an instance */
	struct tracecmd_input	*top;		/* the file */
	struct tracecmd_input	*handle;	/* its buffer read: top, or an instance */
	struct tep_handle	*tep;		/* the first handle's, referenced */
	int			nr_cpus;
	struct tep_record	**next;		/* per CPU: read, not taken yet */
#ifdef UP_ZPAGE_WORKAROUND
	struct up_reopen	*reopen;
#endif
};

struct up_reader *up_reader_open(const char *file, int buffer,
				 unsigned long long reopen_bytes) __hidden;
void up_reader_close(struct up_reader *rd) __hidden;
int up_reader_open_handle(struct up_reader *rd) __hidden;
void up_reader_close_handle(struct up_reader *rd) __hidden;
struct tep_handle *up_reader_tep(struct up_reader *rd) __hidden;
int up_reader_cpus(struct up_reader *rd) __hidden;
const struct tep_record *up_reader_peek(struct up_reader *rd, int cpu) __hidden;
struct tep_record *up_reader_take(struct up_reader *rd, int cpu) __hidden;
void up_reader_stats(struct up_reader *rd, unsigned long long *reopens,
		     unsigned long long *dropped) __hidden;

#ifdef UP_ZPAGE_WORKAROUND
/*
 * libtracecmd before 1.5.1 keeps what it read until the handle is closed:
 * the reader opens the file again now and then (ustack-reopen.c) and drops
 * the pages it left from memory (ustack-drop.c). Not built otherwise.
 */

/* ---- ustack-drop.c: pages of the file read ahead, dropped from memory ---- */

#define UP_DROP_LAG	32	/* pages a CPU reads on before one it left is dropped */
#define UP_DROP_BATCH	64	/* pages dropped after one read of /proc/self/maps */

struct up_drop_lag {
	uintptr_t	addr[UP_DROP_LAG];	/* 0: none */
	unsigned int	pos;
};

struct up_drop {
	dev_t			dev;
	ino_t			ino;
	size_t			page_size;
	int			nr_cpus;
	struct up_drop_lag	*lag;		/* per CPU */
	uintptr_t		batch[UP_DROP_BATCH];
	size_t			nr;
	unsigned long long	dropped;	/* pages dropped */
	bool			off;		/* madvise() is not there */
};

int up_drop_init(struct up_drop *drop, const struct stat *st, size_t page_size,
		 int nr_cpus) __hidden;
bool up_drop_is_mapped(struct up_drop *drop, uintptr_t addr) __hidden;
void up_drop_left(struct up_drop *drop, int cpu, uintptr_t addr) __hidden;
void up_drop_flush(struct up_drop *drop) __hidden;
void up_drop_clear(struct up_drop *drop) __hidden;

/* ---- ustack-reopen.c: the file opened again, pages dropped ---- */

struct up_reopen *up_reopen_alloc(const char *file, int page_size, int nr_cpus,
				  unsigned long long reopen_bytes) __hidden;
void up_reopen_free(struct up_reopen *ro) __hidden;
void up_reopen_note(struct up_reopen *ro, int cpu, const struct tep_record *rec) __hidden;
bool up_reopen_due(const struct up_reopen *ro) __hidden;
int up_reader_reopen(struct up_reader *rd) __hidden;
void up_reopen_stats(const struct up_reopen *ro, unsigned long long *reopens,
		     unsigned long long *dropped) __hidden;
#endif /* UP_ZPAGE_WORKAROUND */

/* ---- ustack-ahead.c: the second reader of the trace file ---- */

/* What the read-ahead knows of one record of the trace. */
struct up_result {
	unsigned long long	ts;
	unsigned long long	offset;
	int			cpu;
	enum ustack_state	state;
	enum ustack_lost	lost;
	struct up_text		*text;
};

struct up_ahead;

/* How a read-ahead reads: the options of the plugin. */
struct up_ahead_opts {
	bool			raw;		/* hand back the user_unwind_* entries too */
	size_t			window;		/* the most events held awaiting a stack */
	bool			symbols;	/* symbolize the frames */
	unsigned int		sym_flags;	/* USTACK_SYMBOLIZE_* */
	const char		*debug_dir;	/* NULL: the default */
	const char		*sysroot;	/* NULL: none */
	unsigned long long	reopen_bytes;	/* 0: never (ustack-reopen.c) */
};

struct up_ahead *up_ahead_open(const char *file, int buffer,
			       const struct up_ahead_opts *opts) __hidden;
void up_ahead_close(struct up_ahead *ahead) __hidden;
struct tep_handle *up_ahead_tep(struct up_ahead *ahead) __hidden;
struct tracecmd_input *up_ahead_handle(struct up_ahead *ahead) __hidden;
const struct up_result *up_ahead_lookup(struct up_ahead *ahead,
					const struct tep_record *record) __hidden;
/* The stitcher's counters the plugin prints */
struct up_stats {
	unsigned long long	events;
	unsigned long long	stack;
	unsigned long long	lost;
	unsigned long long	unknown;
	unsigned long long	damaged;	/* records left out: longer than a page */
	unsigned long long	peak_held;
	unsigned long long	peak_held_bytes;
};
void up_ahead_stats(struct up_ahead *ahead, struct up_stats *stats,
		    size_t *peak_queue, unsigned long long *reopens,
		    unsigned long long *dropped) __hidden;

/* ---- ustack-buffers.c: every buffer of the file, each read ahead ---- */

struct up_buffers;

struct up_buffers *up_buffers_open(const char *file, struct tep_handle *tep,
				   const struct up_ahead_opts *opts) __hidden;
void up_buffers_close(struct up_buffers *bufs) __hidden;
struct tep_handle *up_buffers_tep(struct up_buffers *bufs) __hidden;
const struct up_result *up_buffers_lookup(struct up_buffers *bufs,
					  const struct tep_record *record) __hidden;
int up_buffers_nr(struct up_buffers *bufs) __hidden;
struct up_ahead *up_buffers_each(struct up_buffers *bufs, int i, const char **name) __hidden;

/* ---- plugin_ustack.c, ustack-hooks.c, ustack-print.c: the plugin for a tep ---- */

/* The user_unwind_* entries, whose handlers print them (and, with ustack_raw, more). */
enum {
	UP_E_COOKIE,
	UP_E_STACK,
	UP_E_FILE,
	UP_NR_ENTRIES,
};

/* The fields of a file entry that its print format leaves out, printed with ustack_raw. */
enum {
	UP_F_BUILD_ID,
	UP_F_BUILD_ID_SIZE,
	UP_NR_FIELDS,
};

/* The fields of one entry, looked up by name when it first prints (NULL: not in it). */
struct up_fields {
	struct tep_event	*event;
	struct tep_format_field	*field[UP_NR_FIELDS];
};

struct up_plugin;

/* An event whose handler is the plugin's: the handler it had before, called first. */
struct up_hook {
	struct up_hook		*next;
	struct up_plugin	*plugin;
	char			*system;
	char			*name;
	tep_event_handler_func	prev;
	void			*prev_context;
};

/* The plugin's state for one tep (one input file of report). */
struct up_plugin {
	struct up_plugin	*next;
	struct tep_handle	*tep;
	struct up_buffers	*bufs;		/* NULL: no stacks under events */
	bool			raw;
	bool			stats;
	bool			wrapped_all;
	struct up_hook		*hooks;
	struct up_fields	fields[UP_NR_ENTRIES];
	struct trace_seq	line;		/* an entry's line, made before it prints */
	const char		*why;		/* no stacks: why, said with the first entry */
	bool			say_at_end;	/* or at the end, if the trace has entries */
};

/* ---- ustack-options.c: the options ---- */

/*
 * The options as the first load found them: every load of the plugin that
 * is there at a time (one per input file of report) reads them from here.
 */
struct up_opts {
	bool		raw;
	bool		nosym;
	bool		stats;
	unsigned int	sym_flags;
	unsigned long	window;
	unsigned long	reopen_kb;
	char		*debug_dir;
	char		*sysroot;
};
extern struct up_opts up_opts __hidden;

int up_opts_register(void) __hidden;
void up_opts_unregister(void) __hidden;
int up_opts_snapshot(void) __hidden;
void up_opts_release(void) __hidden;

/* ---- ustack-hooks.c: the plugin's handler of every event ---- */

bool up_is_stack_entry(const struct tep_event *event) __hidden;
int up_hook_event(struct up_plugin *plugin, const char *system, const char *name) __hidden;
void up_wrap_all(struct up_plugin *plugin) __hidden;
void up_hooks_remove(struct up_plugin *plugin) __hidden;

/* ---- ustack-print.c: stacks, entries and statistics printed ---- */

void up_print_info(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
		   tep_event_handler_func prev, void *prev_context) __hidden;
void up_print_stack(struct up_plugin *plugin, struct trace_seq *s,
		    struct tep_record *record) __hidden;
void up_print_stats(struct up_plugin *plugin) __hidden;
bool up_entries_has(tep_event_handler_func func) __hidden;
void up_entries_register(struct up_plugin *plugin) __hidden;
void up_entries_unregister(struct up_plugin *plugin) __hidden;
bool up_entries_in(struct tep_handle *tep) __hidden;

#endif /* _USTACK_PLUGIN_H */
