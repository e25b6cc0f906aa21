/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libtracefs-ext: user-space stack helpers for ftrace.
 *
 * Five API families, each with its man page in Documentation/:
 *
 *   ustack-control.3	 the tracefs option user_stacktrace_deferred;
 *   ustack-stitcher.3	 events of a trace joined with their deferred user
 *			 stacks (the user_unwind_* entries of the kernel),
 *			 stacks as text or folded for flame graphs, and the
 *			 frame decoder alone, for a parser of its own;
 *   ustack-lookup.3	 the stack of a given event, asked in any order
 *			 (an index of the stitcher), stitchers fed in parts,
 *			 and stitchers fed records as bytes (no libtraceevent);
 *   ustack-symbolizer.3 "offset into a mapped file", what the kernel records
 *			 for a user stack frame, to "symbol+offset";
 *   ustack-sampler.3	 events as samples, each with its user stack and its
 *			 kernel stack (trace-cmd record -T), folded for flame
 *			 graphs.
 *
 * Every function is documented where it is defined.
 *
 * The ABI (soname libtracefs-ext.so.1, symbol versions in libtracefs-ext.map):
 * a struct the library hands out by pointer only (struct ustack_stack,
 * ustack_info, ustack_sample) may get fields at its end, as a program never
 * allocates, copies or steps over one. The elements of the arrays a program
 * indexes cannot: a program built against 1.0 steps through
 * ustack_stack.frames and the array of ustack_symbolizer_lookup_source()
 * with the element size it was built with. So struct ustack_frame and struct
 * ustack_source are frozen at their 1.0 layout for the life of this soname,
 * and what a later version knows more of a frame comes through functions.
 * New code reaches the frames through ustack_stack_nr_frames() and
 * ustack_stack_frame(), which check the index, and the words for a lost
 * reason through ustack_lost_name(), which has words for any value: no
 * array of a caller's is sized or indexed by an enum of this header. Accessors
 * were chosen over freezing everything so that struct ustack_stack and
 * ustack_info can still grow, and a caller's bounds never come from here.
 */
#ifndef _USTACK_H
#define _USTACK_H

#include <stdbool.h>
#include <stddef.h>

/* Of libtracefs, libtraceevent and libtracecmd; their headers are not needed here. */
struct tracefs_instance;
struct tracecmd_input;
struct tep_handle;
struct tep_event;
struct tep_record;

#ifdef __cplusplus
extern "C" {
#endif

/* Longest build-id a lookup accepts (GNU build-ids are 20 bytes). */
#define USTACK_BUILD_ID_MAX	64

/* Debug file root searched after those ustack_symbolizer_set_debug_dir() adds. */
#define USTACK_DEBUG_DIR	"/usr/lib/debug"

/*
 * ustack_symbolizer_lookup() flags: the offset is a return address (the
 * frame of a caller). The call is the instruction before it, and when the
 * callee never returns (exit(), abort(), __stack_chk_fail()) the call can be
 * the last instruction of its function: the return address is then one past
 * that function's end, so the symbol is looked for at the offset minus one.
 */
#define USTACK_LOOKUP_RETURN	0x1

/*
 * Symbolizer flags (ustack_symbolizer_set_flags()); all off by default. The
 * source lines and inlined calls need the DWARF of the file or of its debug
 * file; they show in ustack_frame_format(), ustack_stack_format() and
 * ustack_stack_fold(), and ustack_symbolizer_lookup_source() reads them.
 */
#define USTACK_SYMBOLIZE_SRCLINE	0x1	/* "at file.c:12" after a frame */
#define USTACK_SYMBOLIZE_INLINES	0x2	/* inlined calls as frames of their own */
#define USTACK_SYMBOLIZE_MANGLED	0x4	/* names as in the symbol table, not demangled */

struct ustack_symbolizer;

/*
 * Told before the symbolizer asks a debuginfod server for a file: @path the
 * file of the trace it is for (NULL when not known), @executable true for
 * the file itself, false for its debug file.
 */
typedef void (*ustack_fetch_func)(const char *path, const unsigned char *build_id,
				  size_t build_id_size, bool executable, void *data);

/**
 * struct ustack_symbol - what one file offset resolved to
 * @path: the mapped file as asked for (the symbolizer's copy)
 * @file: the file the symbol was read from: @path, or its separate debug file;
 *	NULL when unresolved
 * @name: the symbol containing the offset; NULL when unresolved
 * @file_offset: the offset asked for
 * @addr: the link-time virtual address of @file_offset; 0 when the offset is in
 *	no loadable segment
 * @sym_offset: @addr minus the start of @name. For a return address
 *	(USTACK_LOOKUP_RETURN) @name is the function of the call before it,
 *	so @sym_offset may be that function's size, when the call ends it.
 * @resolved: true when @name and @file are set
 *
 * The strings belong to the symbolizer and stay valid until it is freed or
 * its debug directory is changed.
 *
 * The caller allocates it, so its layout is frozen for LIBTRACEFS_EXT_1.0:
 * a field added later comes with a new version of the functions that take it
 * (ustack_symbolizer_lookup@LIBTRACEFS_EXT_1.1, see the version script), and
 * a program built against 1.0 keeps the 1.0 layout.
 */
struct ustack_symbol {
	const char		*path;
	const char		*file;
	const char		*name;
	unsigned long long	file_offset;
	unsigned long long	addr;
	unsigned long long	sym_offset;
	bool			resolved;
};

/* ustack-symbolize.c */
struct ustack_symbolizer *ustack_symbolizer_alloc(void);
void ustack_symbolizer_free(struct ustack_symbolizer *sym);
int ustack_symbolizer_set_debug_dir(struct ustack_symbolizer *sym, const char *dirs);
int ustack_symbolizer_set_debug_path(struct ustack_symbolizer *sym, const char *path);
int ustack_symbolizer_set_fetch_callback(struct ustack_symbolizer *sym, ustack_fetch_func fetch,
					 void *data);
const char *ustack_symbolizer_get_debug_dir(struct ustack_symbolizer *sym);
int ustack_symbolizer_lookup(struct ustack_symbolizer *sym, const char *path,
			     const unsigned char *build_id, size_t build_id_size,
			     unsigned long long offset, unsigned int flags,
			     struct ustack_symbol *symbol);
int ustack_symbol_format(const struct ustack_symbol *symbol, char *buf, size_t size);
int ustack_symbolizer_set_flags(struct ustack_symbolizer *sym, unsigned int flags);
unsigned int ustack_symbolizer_get_flags(struct ustack_symbolizer *sym);
int ustack_symbolizer_set_sysroot(struct ustack_symbolizer *sym, const char *dir);
const char *ustack_symbolizer_get_sysroot(struct ustack_symbolizer *sym);

/* ustack-jit.c: addresses in no file, from the perf map of their process */
int ustack_symbolizer_lookup_addr(struct ustack_symbolizer *sym, int pid,
				  unsigned long long addr, unsigned int flags,
				  struct ustack_symbol *symbol);

/**
 * struct ustack_source - one function at a code address, and where in its source
 * @function: the function (demangled unless USTACK_SYMBOLIZE_MANGLED); NULL
 *	when not known
 * @file: the source file; NULL when not known
 * @line: the line in @file; 0 when not known
 * @column: the column; 0 when not known
 * @inlined: @function was inlined into the next entry's function
 *
 * Allocated by the library only, as an array, innermost function first,
 * that programs index: its layout is frozen (see the top of this file).
 */
struct ustack_source {
	const char	*function;
	const char	*file;
	unsigned int	line;
	unsigned int	column;
	bool		inlined;
};

/* ustack-source.c */
int ustack_symbolizer_lookup_source(struct ustack_symbolizer *sym, const char *path,
				    const unsigned char *build_id, size_t build_id_size,
				    unsigned long long offset, unsigned int flags,
				    const struct ustack_source **source);

/* ustack-control.c: the option user_stacktrace_deferred of an instance */
int ustack_option_is_supported(struct tracefs_instance *instance);
int ustack_option_enable(struct tracefs_instance *instance);
int ustack_option_disable(struct tracefs_instance *instance);
int ustack_option_is_enabled(struct tracefs_instance *instance);

/*
 * struct ustack_stack flags: the kernel's (user_unwind_stack.flags), and one
 * of the library's own: the frame data was cut short or corrupt, and the
 * frames before the damage are given.
 *
 * USTACK_STACK_FP and USTACK_STACK_SFRAME say how the kernel found the
 * frames (both: some each way). SFrame, or an unwind table root loaded for
 * the file, describes the code: its frames are exact. Frame pointers are
 * followed where a file has neither, and through code built without them
 * (most distributions' binaries) the walk guesses: a frame can be wrong or
 * missing. ustack_stack_method() (LIBTRACEFS_EXT_1.2) says it in words.
 */
#define USTACK_STACK_TRUNCATED	0x1	/* more frames than were recorded */
#define USTACK_STACK_NO_STACK	0x2	/* the stack could not be walked; nr is 0 */
#define USTACK_STACK_FP		0x4	/* frame pointers found frames: may be a guess */
#define USTACK_STACK_SFRAME	0x8	/* SFrame or an unwind table found frames */
#define USTACK_STACK_MALFORMED	0x100	/* the frame data is damaged */

/*
 * struct ustack_frame flags: the frame's offset is a return address (every
 * frame but the innermost); ustack_frame_format() looks it up with
 * USTACK_LOOKUP_RETURN.
 */
#define USTACK_FRAME_RETURN	0x1

/**
 * struct ustack_frame - one frame of a user stack, as the kernel recorded it
 * @path: the mapped file, as /proc/PID/maps showed it; NULL when the frame is
 *	not in a file (@file_id 0) or the file is unknown (@file_id not 0: no
 *	readable user_unwind_file entry with that id came before the stack)
 * @build_id: the GNU build-id of the file; NULL when not known
 * @build_id_size: the bytes in @build_id; 0 when not known
 * @file_id: the id of the user_unwind_file entry; 0 when not in a file
 * @flags: USTACK_FRAME_* bits
 * @offset: the offset into the file (ip - vma_start + vm_pgoff * page_size),
 *	what ustack_symbolizer_lookup() takes; the address when @file_id is 0
 */
struct ustack_frame {
	const char		*path;
	const unsigned char	*build_id;
	size_t			build_id_size;
	unsigned int		file_id;
	unsigned int		flags;
	unsigned long long	offset;
};

/*
 * struct ustack_frame, struct ustack_stack and struct ustack_info are only
 * allocated by the library and handed to the caller as const pointers: a
 * caller must not allocate one to pass to the library, nor copy one by value.
 * struct ustack_stack and ustack_info may get fields at their end in a later
 * version; struct ustack_frame, an element of ustack_stack.frames, may not
 * (see the top of this file): take a frame with ustack_stack_frame().
 */

/**
 * struct ustack_stack - the user stack of one kernel entry of a task
 * @cookie: the entry's cookie
 * @pid: the task (common_pid of the user_unwind_stack entry)
 * @flags: USTACK_STACK_* bits
 * @nr: the number of @frames
 * @frames: innermost first
 */
struct ustack_stack {
	unsigned long long		cookie;
	int				pid;
	unsigned int			flags;
	unsigned int			nr;
	const struct ustack_frame	*frames;
};

/* What the stitcher knows of an event's user stack. */
enum ustack_state {
	USTACK_STATE_NONE,	/* the event carries no cookie: no user stack */
	USTACK_STATE_STACK,	/* the stack is there */
	USTACK_STATE_LOST,	/* it carries a cookie whose stack did not come */
	USTACK_STATE_UNKNOWN,	/* events were missed on its CPU: cookie not known */
	USTACK_STATE_RAW,	/* a user_unwind_* entry itself (USTACK_STITCH_RAW) */
	USTACK_STATE_PENDING,	/* ustack_stitcher_lookup(): its stack may still come */
};

/* Why a stack was lost. */
enum ustack_lost {
	USTACK_LOST_NONE,
	USTACK_LOST_NEXT_COOKIE,	/* the task's next cookie came first */
	USTACK_LOST_MISSED,		/* that, with events missed meanwhile */
	USTACK_LOST_END,		/* the input ended first */
	USTACK_LOST_LIMIT,		/* the stitcher's limits let the event go */
	/* a newer library may add reasons: ustack_lost_name() has words for any */
};

/**
 * struct ustack_info - an event's user stack, as handed to the callback
 * @state: see enum ustack_state
 * @lost: why, for USTACK_STATE_LOST; else USTACK_LOST_NONE
 * @cookie: the cookie the event carries; 0 when it carries none or when that
 *	is not known; for a raw user_unwind_cookie or user_unwind_stack entry,
 *	its cookie
 * @stack: for USTACK_STATE_STACK, and for a raw user_unwind_stack entry, the
 *	stack; else NULL. Valid during the callback only, unless the callback
 *	takes a reference with ustack_stack_get().
 */
struct ustack_info {
	enum ustack_state		state;
	enum ustack_lost		lost;
	unsigned long long		cookie;
	const struct ustack_stack	*stack;
};

/*
 * What ustack_stitcher_get_stat() reads. The counters are not a struct the
 * caller allocates: a new state or lost reason, or a new counter, is a new
 * enum value, and a program built before it keeps working (asked for by a
 * newer program, an older library says EINVAL).
 */
enum ustack_stat {
	USTACK_STAT_EVENTS,		/* events handed back (not user_unwind_* entries) */
	USTACK_STAT_STATE,		/* of those, in state @index (enum ustack_state) */
	USTACK_STAT_LOST,		/* of the lost ones, for reason @index (enum ustack_lost) */
	USTACK_STAT_STACKS,		/* user_unwind_stack entries read */
	USTACK_STAT_STACKS_UNMATCHED,	/* of those, stacks no event was waiting for */
	USTACK_STAT_MALFORMED,		/* user_unwind_* entries not read whole; records over a page */
	USTACK_STAT_TASKS,		/* tasks tracked now */
	USTACK_STAT_HELD,		/* events held now */
	USTACK_STAT_HELD_BYTES,		/* bytes held now: record copies and the stitcher's own */
	USTACK_STAT_PEAK_TASKS,		/* the most tasks there were */
	USTACK_STAT_PEAK_HELD,		/* the most events held there were */
	USTACK_STAT_PEAK_HELD_BYTES,	/* the most bytes held there were */
	USTACK_STAT_INDEX_SPANS,	/* runs of events kept for ustack_stitcher_lookup() */
	USTACK_STAT_INDEX_BYTES,	/* the bytes they take, with their entries */
};

/* Flags of ustack_stitcher_alloc() and the drivers */
#define USTACK_STITCH_RAW		(1U << 0)	/* hand back user_unwind_* entries too */
#define USTACK_STITCH_START_UNKNOWN	(1U << 1)	/* the input may start mid-stream */
/* Keep what every event carries for ustack_stitcher_lookup(), by position: */
#define USTACK_STITCH_INDEX_TS		(1U << 2)	/* the record's timestamp */
#define USTACK_STITCH_INDEX_OFFSET	(1U << 3)	/* its offset (in a trace.dat file) */

/* Default limits; see ustack_stitcher_set_limits() */
#define USTACK_STITCH_MAX_TASKS		4096
#define USTACK_STITCH_MAX_HELD		65536
#define USTACK_STITCH_MAX_HELD_BYTES	(16U << 20)

struct ustack_stitcher;

/*
 * Called for every event, in input order; a non-zero return stops the
 * handing back (see ustack_stitcher_add()). The record, and the stack in
 * info, are valid during the call only.
 */
typedef int (*ustack_stitch_func)(struct tep_event *event, struct tep_record *record, int cpu,
				  const struct ustack_info *info, void *context);

/* ustack-stitch.c */
struct ustack_stitcher *ustack_stitcher_alloc(struct tep_handle *tep, unsigned int flags,
					      ustack_stitch_func callback, void *context);
void ustack_stitcher_free(struct ustack_stitcher *st);
int ustack_stitcher_set_limits(struct ustack_stitcher *st, size_t max_tasks, size_t max_held,
			       size_t max_held_bytes);
int ustack_stitcher_add(struct ustack_stitcher *st, struct tep_record *record, int cpu);
int ustack_stitcher_flush(struct ustack_stitcher *st);
int ustack_stitcher_get_stat(struct ustack_stitcher *st, enum ustack_stat what, unsigned int index,
			     unsigned long long *value);

/* ustack-records.c: the kernel's rule of which events carry a cookie (LIBTRACEFS_EXT_1.1) */
int ustack_stitcher_event_has_cookie(const struct ustack_stitcher *st, int id);

/* ustack-trace-open.c: a trace.dat file opened as trace-cmd report opens it */
/* ustack_trace_open() flag: the kernel's symbols left out (LIBTRACEFS_EXT_1.2) */
#define USTACK_TRACE_NO_KALLSYMS	(1 << 30)
struct tracecmd_input *ustack_trace_open(const char *file, int flags);
const char *ustack_trace_strerror(int err);

/* ustack-stitch-tracefs.c, ustack-stitch-tracecmd.c: whole inputs */
int ustack_stitch_instance(struct tep_handle *tep, struct tracefs_instance *instance,
			   unsigned int flags, ustack_stitch_func callback, void *context);
int ustack_stitch_tracecmd(struct tracecmd_input *handle, unsigned int flags,
			   ustack_stitch_func callback, void *context);
/* the same into the caller's stitcher, which is not flushed: more input may follow */
int ustack_stitcher_feed_instance(struct ustack_stitcher *st, struct tracefs_instance *instance);
int ustack_stitcher_feed_tracecmd(struct ustack_stitcher *st, struct tracecmd_input *handle);

/* ustack-index.c: what an event carries, after the records were added */
const struct ustack_info *ustack_stitcher_lookup(struct ustack_stitcher *st, int cpu, int pid,
						 unsigned long long pos);

/*
 * ustack-layout.c: a stitcher for a tool that reads the ring buffer itself,
 * without libtraceevent: where the entries' fields are, from their format files
 */
struct ustack_layout;
struct ustack_layout *ustack_layout_alloc(void);
void ustack_layout_free(struct ustack_layout *layout);
int ustack_layout_set_event(struct ustack_layout *layout, const char *event, int id);
int ustack_layout_set_field(struct ustack_layout *layout, const char *event, const char *field,
			    unsigned int offset, unsigned int size);
int ustack_layout_set_big_endian(struct ustack_layout *layout, bool big_endian);
struct ustack_stitcher *ustack_stitcher_alloc_layout(const struct ustack_layout *layout,
						     unsigned int flags,
						     ustack_stitch_func callback, void *context);
int ustack_stitcher_add_data(struct ustack_stitcher *st, int cpu, unsigned long long ts,
			     unsigned long long offset, const void *data, size_t size,
			     bool missed);
int ustack_stitcher_add_event(struct ustack_stitcher *st, int cpu, int pid,
			      unsigned long long pos, bool missed);

/* ustack-frames.c: a stack kept past the callback, its frames' paths and build-ids with it */
const struct ustack_stack *ustack_stack_get(const struct ustack_stack *stack);
void ustack_stack_put(const struct ustack_stack *stack);

/* ustack-access.c: a stack's frames and a lost reason's words (LIBTRACEFS_EXT_1.1) */
int ustack_stack_nr_frames(const struct ustack_stack *stack);
const struct ustack_frame *ustack_stack_frame(const struct ustack_stack *stack, unsigned int i);
const char *ustack_lost_name(enum ustack_lost lost);
/* how the kernel found a stack's frames (LIBTRACEFS_EXT_1.2) */
const char *ustack_stack_method(const struct ustack_stack *stack);

/* ustack-stitch-format.c: frames and stacks as text */
int ustack_frame_format(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			char *buf, size_t size);
int ustack_stack_format(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
			char *buf, size_t size);

/*
 * ustack-decode.c: the frames of a user_unwind_stack entry, for a tool that
 * reads the entries' fields itself, without libtraceevent
 */
struct ustack_file_table;
struct ustack_file_table *ustack_file_table_alloc(void);
void ustack_file_table_free(struct ustack_file_table *table);
int ustack_file_table_set(struct ustack_file_table *table, unsigned int id, const char *path,
			  const unsigned char *build_id, size_t build_id_size);
const struct ustack_stack *ustack_frames_decode(const void *data, size_t size,
						unsigned int nr, unsigned int flags,
						struct ustack_file_table *table);

/* ustack-fold.c: a stack as one line "comm;outermost;...;innermost", for flame graphs */
int ustack_stack_fold(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
		      const char *comm, char *buf, size_t size);

/*
 * ustack-sample.c: the events a stitcher hands back as samples for profiles,
 * each with its user stack and, when the trace has them (trace-cmd record
 * -T), its kernel stack: the ftrace/kernel_stack entry after the event
 */
#define USTACK_SAMPLE_NO_KERNEL	(1U << 0)	/* leave the kernel stacks out */

/**
 * struct ustack_sample - an event with its user stack and its kernel stack
 * @event: the event's format
 * @tep: the sampler's event formats; they name the @kernel addresses from
 *	the trace's kallsyms (tep_find_function())
 * @info: the event's user stack, as the stitcher handed it back
 * @cpu: the event's CPU
 * @pid: its task
 * @ts: its timestamp
 * @offset: its record's offset (in a trace.dat file)
 * @nr_kernel: the number of @kernel addresses; 0 when it has no kernel stack
 * @kernel: the kernel stack's return addresses, innermost first; NULL when
 *	@nr_kernel is 0
 *
 * Allocated by the library only (fields may be added at its end), valid
 * during the callback only.
 */
struct ustack_sample {
	struct tep_event		*event;
	struct tep_handle		*tep;
	const struct ustack_info	*info;
	int				cpu;
	int				pid;
	unsigned long long		ts;
	unsigned long long		offset;
	unsigned int			nr_kernel;
	const unsigned long long	*kernel;
};

/* What ustack_sampler_get_stat() reads */
enum ustack_sample_stat {
	USTACK_SAMPLE_STAT_SAMPLES,		/* samples handed back */
	USTACK_SAMPLE_STAT_KERNEL_STACKS,	/* kernel_stack entries read */
	USTACK_SAMPLE_STAT_KERNEL_JOINED,	/* of those, joined to their event */
};

struct ustack_sampler;

/* Called for every sample; a non-zero return is passed on (see ustack_sampler_add()). */
typedef int (*ustack_sample_func)(const struct ustack_sample *sample, void *context);

struct ustack_sampler *ustack_sampler_alloc(struct tep_handle *tep, unsigned int flags,
					    ustack_sample_func callback, void *context);
void ustack_sampler_free(struct ustack_sampler *sp);
int ustack_sampler_add(struct ustack_sampler *sp, struct tep_event *event,
		       struct tep_record *record, int cpu, const struct ustack_info *info);
int ustack_sampler_flush(struct ustack_sampler *sp);
int ustack_sampler_get_stat(struct ustack_sampler *sp, enum ustack_sample_stat what,
			    unsigned long long *value);
/* ustack-fold.c: "comm;user outermost;...;user innermost;kernel outermost;...;kernel innermost" */
int ustack_sample_fold(const struct ustack_sample *sample, struct ustack_symbolizer *sym,
		       const char *comm, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* _USTACK_H */
