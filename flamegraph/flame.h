/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack-flame: flame graphs from trace.dat files with deferred user stacks.
 *
 * The tool reads samples (one per traced event: its user stack, and its
 * kernel stack when the trace has them, joined by libtracefs-ext's sampler)
 * into a table of folded lines with counts (flame-counts.c), then writes
 * that table in the format asked for: folded text, speedscope JSON, a
 * static SVG or an HTML page that zooms.
 * The perf-script text for Perfetto is written per event while reading.
 */
#ifndef _FLAME_H
#define _FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <ustack.h>
/* libtracefs-ext's hash table: hidden in the library, linked in statically here */
#include <ustack-hash.h>

/* ---- flame-counts.c: folded lines "a;b;c" with their counts ---- */

/* A distinct line, in the table by the hash of its text */
struct flame_line {
	struct ustack_hnode	node;
	unsigned long long	count;
	size_t			len;		/* of text */
	char			text[];
};

struct flame_counts {
	struct ustack_htable	table;		/* the lines; set up at the first add */
	size_t			nr;		/* distinct lines */
	unsigned long long	total;		/* sum of the counts */
};

int flame_counts_add(struct flame_counts *fc, const char *line, size_t len,
		     unsigned long long count);
struct flame_line *flame_counts_find(const struct flame_counts *fc, const char *line,
				     size_t len);
struct flame_line **flame_counts_sorted(const struct flame_counts *fc);
void flame_counts_free(struct flame_counts *fc);

/* folded text read (-F): bounds, see ustack-flame(1) */
#define FLAME_FOLDED_MAX_LINE	(1U << 20)	/* bytes of a line, its newline not counted */
#define FLAME_FOLDED_MAX_BYTES	(1ULL << 30)	/* bytes read from a file */

struct flame_folded_read {
	char			*buf;		/* the last line */
	size_t			size;		/* of @buf */
	unsigned long long	bytes;		/* read */
	size_t			line;		/* the last line read (1: the first) */
	size_t			bad;		/* lines that are not "stack COUNT": skipped */
	bool			read_error;	/* errno is the error of reading */
};

int flame_counts_read_folded(struct flame_counts *fc, FILE *in, struct flame_folded_read *r);

/* ---- flame-tree.c: the lines as a tree of frames, for drawing ---- */

struct flame_node {
	const char		*name;		/* points into a line of the counts */
	size_t			name_len;
	unsigned long long	count;		/* this frame and everything above it */
	unsigned long long	start;		/* its left edge, in counts */
	unsigned int		depth;		/* 0: the root ("all") */
	unsigned int		nr_children;
	struct flame_node	**children;	/* sorted by name */
};

struct flame_tree {
	struct flame_node	root;
	unsigned int		max_depth;
	size_t			nr_nodes;	/* without the root */
};

int flame_tree_build(struct flame_tree *tree, const struct flame_counts *fc);
void flame_tree_free(struct flame_tree *tree);
typedef int (*flame_node_func)(const struct flame_node *node, void *context);
int flame_tree_walk(const struct flame_tree *tree, flame_node_func func, void *context);

/* ---- flame-escape.c: names written into other formats ---- */

void flame_put_xml(FILE *out, const char *text, size_t len);
void flame_put_json(FILE *out, const char *text, size_t len);
void flame_put_plain(FILE *out, const char *text, const char *bad);
size_t flame_utf8_chars(const char *text, size_t len, size_t max_chars, size_t *bytes);
size_t flame_utf8_len(const unsigned char *s, size_t len);

/* ---- flame-timeline.c: frames by name and file; every sample kept, for speedscope ---- */

struct flame_frame {
	const char		*key;		/* "name", or "name\1file" */
	size_t			name_len;
};

struct flame_frames {
	struct flame_counts	keys;		/* each frame's count is its index */
	struct flame_frame	*order;		/* by index */
	size_t			nr;
	size_t			size;
	char			*key;		/* the key being looked up */
	size_t			key_size;
};

long flame_frames_add(struct flame_frames *f, const char *name, size_t len, const char *file);
void flame_frames_free(struct flame_frames *f);

struct flame_event {
	unsigned long long	ts;		/* of its trace's clock */
	size_t			seq;		/* in the order read: equal times keep it */
	size_t			first;		/* its frames, outermost first: stack[first]... */
	unsigned int		nr;
	unsigned int		input;		/* the trace file it is of */
	unsigned int		profile;	/* its task, of the profiles; 0 when no task */
};

struct flame_timeline {
	struct ustack_symbolizer *sym;		/* the frames' (for --inlines); NULL: none */
	unsigned int		input;		/* of the samples added now */
	struct flame_frames	names;		/* every frame, by name and file */
	struct flame_frames	profiles;	/* the tasks' names (the lines' first frames) */
	struct flame_event	*events;
	size_t			nr_events;
	size_t			size_events;
	unsigned int		*stack;		/* the events' frames, indices into @names */
	size_t			nr_stack;
	size_t			size_stack;
};

struct flame_sample;
int flame_timeline_sample(const struct flame_sample *sample, void *context);
void flame_timeline_free(struct flame_timeline *tl);

/* ---- outputs ---- */

struct flame_page {
	const char		*title;
	unsigned int		width;		/* pixels */
	bool			html;		/* an HTML page with its script; else an SVG */
};

int flame_write_folded(FILE *out, const struct flame_counts *fc);
int flame_write_speedscope(FILE *out, const struct flame_counts *fc, const char *name,
			   bool per_task);
int flame_write_speedscope_timeline(FILE *out, struct flame_timeline *tl, const char *name);
int flame_write_page(FILE *out, const struct flame_tree *tree, const struct flame_page *page);

/* flame-assets.S: the page's script and style, .incbin'ed; no NUL at their ends */
extern const char flame_js[], flame_js_end[];
extern const char flame_css[], flame_css_end[];

/* ---- flame-collect.c: samples of trace files ---- */

enum flame_group {
	FLAME_GROUP_COMM,	/* the command name is the first frame */
	FLAME_GROUP_TASK,	/* "comm-PID" is */
	FLAME_GROUP_NONE,	/* every task together */
};


/* called for every sample that passes the filters; perf text takes these */
typedef int (*flame_sample_func)(const struct flame_sample *sample, void *context);

struct flame_options {
	struct ustack_symbolizer *sym;		/* NULL: frames named by file */
	enum flame_group	group;
	bool			kernel;		/* join the kernel stacks of the trace */
	bool			no_lost;	/* leave out events whose stack was lost */
	bool			unwind;		/* a root frame "[unwind=METHOD]" */
	int			pid;		/* only this task; -1: all */
	const char		*comm;		/* only tasks of this name; NULL: all */
	const char * const	*events;	/* only these events; NULL: all */
	size_t			nr_events;
	const char * const	*buffers;	/* only these buffers ("": the top); NULL: all */
	size_t			nr_buffers;
	flame_sample_func	sample_func;	/* NULL: none */
	void			*sample_context;
};

struct flame_stats {
	unsigned long long	events;		/* events read (not kernel_stack entries) */
	unsigned long long	task_match;	/* of those, of the task asked for (-p, -c) */
	unsigned long long	event_match;	/* of those, of the events asked for (-e) */
	unsigned long long	wanted;		/* of those, of both */
	unsigned long long	cookies;	/* of those, with a user stack, or lost */
	unsigned long long	left_out;	/* of those, left out: lost (-L) */
	unsigned long long	samples;	/* of the wanted ones, counted */
	unsigned long long	kernel;		/* samples with a kernel stack joined */
	unsigned long long	lost;		/* samples whose user stack was lost */
	unsigned int		buffers;	/* buffers read */
	bool			has_kernel;	/* the trace had kernel_stack entries */
	const char		*why;		/* why the file could not be read; NULL: errno */
	const char		*no_buffer;	/* the first file without a buffer of -B */
	char			buffer_names[256];	/* its buffers: "" "name" ... */
};

int flame_collect_file(const char *path, const struct flame_options *opts,
		       struct flame_counts *fc, struct flame_stats *stats);

/* a live instance (--stream): fed again and again, finished once */
struct flame_collect;
struct tep_handle;
struct flame_collect *flame_collect_alloc(struct tep_handle *tep, const char *buffer,
					  const struct flame_options *opts,
					  struct flame_counts *fc, struct flame_stats *stats);
int flame_collect_feed(struct flame_collect *c, struct tracefs_instance *instance);
int flame_collect_finish(struct flame_collect *c);
void flame_collect_free(struct flame_collect *c);

/* ---- flame-output.c: the output, replaced only when all of it was written ---- */

const char *flame_file_type(unsigned int mode);
const char *flame_strerror(int err);
int flame_write_error(FILE *out);

struct flame_out {
	FILE			*file;		/* where to write */
	const char		*name;		/* for messages: the path, or "standard output" */
	char			*target;	/* renamed over when done; NULL: written in place */
	char			*temp;		/* the temporary file beside it; NULL: none */
};

int flame_out_open(struct flame_out *o, const char *path, const char * const *inputs,
		   size_t nr);
int flame_out_close(struct flame_out *o, bool ok);

/* ---- flame-args.c: the command line ---- */

enum flame_format {
	FLAME_FORMAT_FOLDED,
	FLAME_FORMAT_SPEEDSCOPE,
	FLAME_FORMAT_PERF,
	FLAME_FORMAT_SVG,
	FLAME_FORMAT_HTML,
	FLAME_FORMAT_PPROF,
	FLAME_FORMAT_OTLP,
};

#define FLAME_MAX_LIST	64	/* events, buffers */

struct flame_args {
	const char		**inputs;	/* malloc()ed, room for one more (-F's) */
	size_t			nr_inputs;
	const char		*folded;	/* folded text to read instead; "-": stdin */
	const char		*events[FLAME_MAX_LIST];
	const char		*buffers[FLAME_MAX_LIST];
	const char		*output;	/* NULL or "-": standard output */
	const char		*title;
	char			*debug_dir;	/* -d lists joined, malloc()ed */
	const char		*sysroot;
	const char		*host;		/* --host: the traced machine's name (otlp) */
	const char		*pprof_dir;	/* --pprof-dir: a pprof file per period */
	const char		*endpoint;	/* --otlp-endpoint: an export per period */
	unsigned long long	period;		/* --period, in nanoseconds */
	const char		*stream;	/* --stream: a live instance; "/" the top level */
	unsigned int		queue;		/* --queue: periods waiting to be sent */
	unsigned int		post_tries;	/* --post-tries; 0: FLAME_EXPORT_TRIES */
	unsigned int		post_timeout_ms; /* --post-timeout; 0: FLAME_EXPORT_TIMEOUT_MS */
	bool			set_deferred;	/* --deferred: set the option for the run */
	enum flame_format	format;
	unsigned int		width;
	unsigned int		sym_flags;
	bool			symbols;
	bool			srcline;	/* --srcline: source files and lines (pprof, otlp) */
	bool			time;		/* --time: each event's time since its task's last */
	bool			verbose;
	struct flame_options	opts;
};

void flame_usage(FILE *out);
int flame_args_parse(int argc, char **argv, struct flame_args *a);

/* ---- what one sample is (flame-collect.c fills it) ---- */

/*
 * The library's sample (libtracefs-ext's sampler joins each event's kernel
 * stack, see ustack-sampler(3)) with what the tool adds to it.
 */
struct flame_sample {
	const struct ustack_sample	*sample;	/* event, CPU, time, kernel stack */
	const struct ustack_stack	*stack;		/* its user stack; NULL: none */
	const char			*comm;		/* or pid_name */
	char				pid_name[16];
	const char			*buffer;	/* its instance; "" the top level */
	const char			*why;		/* "[stack lost]", ...; NULL */
	const char			*unwind;	/* --unwind: "[unwind=fp]", ...; NULL */
	const char			*line;		/* its folded line (not NUL-ended) */
	size_t				len;
	bool				task;		/* the line's first frame is the task */
};

/* ---- flame-profile.c: samples with their frames as locations, for pprof and OTLP ---- */

/* Keys (any bytes) to indices from 1, in the order added: 0 is "none" in both formats. */
struct flame_dict {
	struct flame_counts	keys;		/* a key's count is its index */
	const char		**text;		/* by index - 1: the keys, NUL-ended */
	size_t			nr;
	size_t			size;
};

unsigned long flame_dict_add(struct flame_dict *d, const void *key, size_t len, bool *added);
void flame_dict_free(struct flame_dict *d);

/* A file the frames are in, or the kernel */
struct flame_pmapping {
	unsigned long		file;		/* strings */
	unsigned long		build_id;	/* strings: hex; 0 none */
	unsigned long long	start;		/* the lowest address of its locations */
	unsigned long long	limit;		/* one past the highest */
	bool			kernel;
};

struct flame_pfunction {
	unsigned long		name;		/* strings */
	unsigned long		file;		/* strings: the source file (--srcline); 0 none */
};

/* A frame: where it is, and its functions, the innermost inlined one first */
struct flame_plocation {
	unsigned long		mapping;	/* 0: none (a mark, a frame in no known file) */
	unsigned long long	address;	/* offset in the file; kernel address */
	size_t			first_line;	/* into lines */
	unsigned int		nr_lines;
};

struct flame_pline {
	unsigned long		function;
	long long		line;		/* 0: not known */
};

/*
 * --time: each task's (tid's) last event's time, kept across periods and
 * profiles, so that a gap is between a task's consecutive events of the
 * whole trace or stream. A tid's count is its last time; one entry a tid
 * seen, so at most pid_max's (PID_MAX_LIMIT, 4194304) entries.
 */
struct flame_gaps {
	struct flame_counts	last;
};

int flame_gaps_next(struct flame_gaps *g, int tid, unsigned long long ts,
		    unsigned long long *gap);
void flame_gaps_free(struct flame_gaps *g);

/* An event: its stack (location indices, the leaf first) and its labels */
struct flame_psample {
	unsigned long long	ts;		/* of the trace's clock */
	size_t			first;		/* into stack */
	unsigned int		nr;
	int			tid;
	unsigned long		comm;		/* strings */
	unsigned long		event;		/* strings: "system:name" */
	unsigned long		buffer;		/* strings: the instance; 0 the top level */
	unsigned long long	gap;		/* --time: since its task's previous event */
};

struct flame_profile {
	struct ustack_symbolizer *sym;		/* the frames' (inlines, source lines); NULL none */
	bool			srcline;	/* functions get their source file, lines their line */
	struct flame_gaps	*gaps;		/* --time: the samples' gaps; NULL none (not freed) */
	struct flame_dict	strings;	/* every name and label, valid UTF-8 */
	struct flame_dict	mapping_keys;
	struct flame_pmapping	*mappings;	/* by index - 1 */
	size_t			size_mappings;
	struct flame_dict	function_keys;
	struct flame_pfunction	*functions;
	size_t			size_functions;
	struct flame_dict	location_keys;
	struct flame_plocation	*locations;
	size_t			size_locations;
	struct flame_pline	*lines;
	size_t			nr_lines;
	size_t			size_lines;
	struct flame_psample	*samples;
	size_t			nr_samples;
	size_t			size_samples;
	uint64_t		*stack;		/* the samples' location indices */
	size_t			nr_stack;
	size_t			size_stack;
	unsigned long long	first_ts;	/* of the samples */
	unsigned long long	last_ts;
	char			*buf;		/* scratch: keys, names made UTF-8 */
	size_t			buf_size;
	const char		**names;	/* scratch: a line's names */
	size_t			size_names;
	size_t			*name_lens;
	size_t			size_name_lens;
};

unsigned long flame_profile_string(struct flame_profile *p, const char *text, size_t len);
int flame_profile_sample(const struct flame_sample *sample, void *context);
void flame_profile_free(struct flame_profile *p);

/* flame-pprof.c, flame-otlp.c: the profile in those formats */
int flame_write_pprof(FILE *out, struct flame_profile *p, const char *name);

struct flame_otlp_resource {
	const char		*host;		/* host.name */
};

int flame_write_otlp(FILE *out, struct flame_profile *p,
		     const struct flame_otlp_resource *res);
int flame_pack_otlp(struct flame_profile *p, const struct flame_otlp_resource *res,
		    uint8_t **buf, size_t *len);
void flame_otlp_say_time(unsigned long long ts);

/* ---- flame-http.c: an OTLP/HTTP export's POST ---- */

struct flame_url {
	char			host[256];
	char			port[16];
	char			path[1024];
};

/* an answer's body: an OTLP export's is small (a partial success, if any) */
struct flame_http_body {
	char			data[8192];
	size_t			len;
};

int flame_url_parse(const char *text, struct flame_url *url);
int flame_http_post(const struct flame_url *url, const char *type, const void *body, size_t len,
		    unsigned int timeout_ms, struct flame_http_body *answer);

/* ---- flame-export.c: a profile per period, to a directory or an OTLP endpoint ---- */

#define FLAME_EXPORT_TRIES	5	/* posts of an export, by default: the first and 4 more */
#define FLAME_EXPORT_TIMEOUT_MS	5000	/* of each step of a post, by default */

struct flame_export {
	const char		*dir;		/* --pprof-dir; NULL: post to @url */
	const char		*endpoint;	/* --otlp-endpoint, as given */
	struct flame_url	url;
	unsigned int		tries;		/* posts of an export, at most */
	unsigned int		timeout_ms;	/* of each step of a post */
	unsigned long long	period;		/* nanoseconds */
	struct flame_otlp_resource res;
	const char		*name;		/* what the profiles are of */
	const char * const	*inputs;	/* no file of the directory may be one */
	size_t			nr_inputs;
	struct ustack_symbolizer *sym;
	bool			srcline;
	struct flame_gaps	*gaps;		/* --time; NULL none */
	struct flame_profile	prof;		/* the period's */
	bool			started;
	unsigned long long	start;		/* of the first period */
	long long		period_index;	/* of the samples in @prof */
	unsigned int		seq;		/* profiles made */
	unsigned long long	sent;		/* profiles written or taken */
	unsigned long long	sent_events;
	unsigned long long	dropped;	/* profiles the endpoint did not take */
	unsigned long long	dropped_events;
	unsigned long long	rejected;	/* profiles taken in part: rejected_profiles */
	unsigned long long	retries;	/* posts tried again */
};

int flame_export_sample(const struct flame_sample *sample, void *context);
int flame_export_check(struct flame_export *e);
int flame_export_flush(struct flame_export *e);
void flame_export_free(struct flame_export *e);

/* ---- flame-stream.c: a live instance's profile per period (--stream) ---- */

#define FLAME_STREAM_QUEUE	4	/* periods waiting to be sent, by default */

int flame_stream(struct flame_args *a);

/* ---- flame-perf.c: perf-script text, which Perfetto and speedscope import ---- */

struct flame_perf {
	FILE				*out;
	struct ustack_symbolizer	*sym;
	unsigned long long		written;	/* samples */
};

int flame_perf_sample(const struct flame_sample *sample, void *context);

/* flame-notrace.c: --stream's own threads kept out of its instance's events */
struct flame_notrace {
	struct tracefs_instance	*inst;		/* NULL: nothing to write back */
	char			*saved;		/* set_event_notrace_pid before */
};

int flame_notrace_start(struct flame_notrace *n, struct tracefs_instance *inst);
int flame_notrace_add(struct flame_notrace *n, pid_t tid);
int flame_notrace_stop(struct flame_notrace *n);

#endif /* _FLAME_H */
