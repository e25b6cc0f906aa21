/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * plugin-ustack.so, the KernelShark 2.2.1 plugin of ustack: what its C and
 * C++ files share. Everything here is hidden in the plugin; only the
 * KernelShark entry points (ks-plugin.c, ks-menu.cpp) are exported.
 */
#ifndef _KS_USTACK_H
#define _KS_USTACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libkshark.h>
#include <ustack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KSU_HIDDEN __attribute__((visibility("hidden")))
#define KSU_EXPORT __attribute__((visibility("default")))

/* The CPUs a stream may have (NR_CPUS is at most 8192) */
#define KSU_CPU_MAX	8192

/* The three entries of the kernel's deferred user stacks */
enum ksu_kind {
	KSU_COOKIE,
	KSU_STACK,
	KSU_FILE,
	KSU_KIND_NR,
};

/* A user_unwind_* record copied while KernelShark loads (ks-collect.c) */
struct ksu_rec {
	int64_t			offset;
	const unsigned char	*data;
	uint32_t		size;
	bool			missed;
};

/* The last user_unwind_file record of an id in a CPU's current chunk (NULL: none) */
#define KSU_SAME_SLOTS	64

struct ksu_same {
	const unsigned char	*data;
	uint32_t		id;
	uint32_t		size;
};

/* A piece of a CPU's copies; freed once the stitching has read it */
struct ksu_chunk {
	struct ksu_chunk	*next;
	size_t			len;
	size_t			size;
	unsigned char		data[];
};

/*
 * The user_unwind_* records of one CPU, in the order KernelShark read them,
 * packed in chunks (ks-collect.c); read back, and the chunks freed, by
 * ksu_collect_next().
 */
struct ksu_cpu_recs {
	struct ksu_chunk	*head;		/* the first not read whole */
	struct ksu_chunk	*tail;
	size_t			bytes;		/* of the chunks there are */
	struct ksu_same		same[KSU_SAME_SLOTS];
	const unsigned char	*stack;		/* the last stack copied whole in tail */
	uint32_t		stack_size;
	uint32_t		frames_off;	/* where a stack record's frames are */
	int64_t			last_offset;	/* of the last record copied */
	size_t			pos;		/* read up to there in head */
	int64_t			read_offset;	/* of the last record read */
	unsigned char		*buf;		/* a stack put together when read */
	uint32_t		buf_size;
	struct ksu_rec		peek;		/* read, not fed yet (ks-stitch.c) */
	bool			peeked;
};

struct ksu_fed_file;

/* The next entry of a CPU's chain to stitch (entry->next: the CPU's next in time) */
struct ksu_head {
	int64_t				ts;
	int				cpu;
	const struct kshark_entry	*entry;
};

/*
 * The stitching of a stream's entries, done as far as lookups need it
 * (ks-stitch.c): the CPUs' chains of entries merged in time order, as
 * KernelShark's rows are, fed to the stitcher with the copied records.
 */
struct ksu_walk {
	struct ksu_head			*heap;		/* by time, then CPU */
	int				nr;		/* CPUs with entries left */
	const struct kshark_entry	**first;	/* each CPU's first entry */
	int64_t				*fed;		/* offset of each CPU's last entry fed */
	int				nr_cpus;
	bool				*missed;	/* events missed before the CPU's next */
	struct ksu_fed_file		*files;		/* the last file entries fed */
	bool				active;		/* entries are left */
	bool				failed;		/* no memory: no stacks this load */
	bool				log;		/* USTACK_KSHARK_LOG: say what was done */
	double				ms;		/* CPU time spent so far (logged) */
};

/**
 * struct ksu_stream - the plugin's state for one KernelShark data stream
 * @stream: the stream (a buffer of a trace.dat file)
 * @ids: the event ids of the user_unwind_* entries
 * @file_id_off: where user_unwind_file's id is in its records; -1: not known
 * @frames_off: where user_unwind_stack's frames are in its records; -1: not known
 * @common_end: the bytes a record needs for its common_type and common_pid
 * @cpus: their records per CPU, kept until the stitching has read them
 * @nr_cpus: the size of @cpus
 * @collect_failed: a copy failed for want of memory: no stacks this load
 * @collect_seen: the load had user_unwind_* entries (copied or not)
 * @st: the stitcher with its index by record offset, after a load
 * @walk: how far the stitching of the loaded entries went
 * @orig_get_info: the stream's get_info before the plugin's
 * @orig_load_entries: the stream's load_entries before the plugin's
 * @lock: guards @st, @walk and @cpus against lookups from the GUI thread
 *	(which stitch on) and a reload
 * @histo: the model of the last graph drawn (GUI thread), for the dialog
 * @stacks: events with a stack after the last load
 * @lost: events whose stack was lost or is unknown after the last load
 */
struct ksu_stream {
	struct kshark_data_stream	*stream;
	int				ids[KSU_KIND_NR];
	int				file_id_off;
	int				frames_off;
	uint32_t			common_end;
	struct ksu_cpu_recs		*cpus;
	int				nr_cpus;
	bool				collect_failed;
	bool				collect_seen;
	struct ustack_stitcher		*st;
	struct ksu_walk			walk;
	stream_get_str_func		orig_get_info;
	load_entries_func		orig_load_entries;
	pthread_mutex_t			lock;
	struct kshark_trace_histo	*histo;
	size_t				stacks;
	size_t				lost;
};

/* ks-plugin.c: the per-stream contexts */
KSU_HIDDEN struct ksu_stream *ksu_stream_get(int sd);
KSU_HIDDEN void ksu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ks-collect.c: the user_unwind_* records copied during the load */
KSU_HIDDEN int ksu_collect_register(struct ksu_stream *s);
KSU_HIDDEN void ksu_collect_unregister(struct ksu_stream *s);
KSU_HIDDEN void ksu_collect_start(struct ksu_stream *s);
KSU_HIDDEN bool ksu_collect_next(struct ksu_cpu_recs *c, struct ksu_rec *r);
KSU_HIDDEN size_t ksu_collect_bytes(const struct ksu_stream *s);
KSU_HIDDEN bool ksu_file_id(const struct ksu_stream *s, const unsigned char *data, uint32_t size,
			    uint32_t *id);
KSU_HIDDEN void ksu_collect_free(struct ksu_stream *s);

/* ks-stitch.c: the stacks stitched as far as lookups need, looked up by entry */
KSU_HIDDEN void ksu_walk_free(struct ksu_stream *s);
KSU_HIDDEN ssize_t ksu_load_entries(struct kshark_data_stream *stream,
				    struct kshark_context *ctx, struct kshark_entry ***rows);
KSU_HIDDEN const struct ustack_info *ksu_lookup(const struct kshark_entry *entry);
KSU_HIDDEN const struct ustack_info *ksu_stitcher_lookup(struct ksu_stream *s,
							 const struct kshark_entry *entry);
KSU_HIDDEN const struct ustack_stack *ksu_lookup_get(const struct kshark_entry *entry,
						     enum ustack_state *state, enum ustack_lost *lost);

/* ks-info.c: the Info column with the stack under it; stacks as text */
KSU_HIDDEN char *ksu_get_info(struct kshark_data_stream *stream, const struct kshark_entry *entry);
KSU_HIDDEN char *ksu_info_text(const struct ustack_info *info, int cpu);
KSU_HIDDEN char *ksu_fold_text(const struct ustack_stack *stack, const char *comm);
KSU_HIDDEN void ksu_symbolizer_free(void);
KSU_HIDDEN const char *ksu_lost_why(const struct ustack_info *info);

/* ks-group.c: the stacks of a range of entries, grouped by identical stack */
struct ksu_group {
	const struct ustack_stack	*stack;		/* a reference; NULL: the lost ones */
	enum ustack_state		state;
	enum ustack_lost		lost;
	int				pid;
	size_t				count;
	const struct kshark_entry	*first;		/* the first event of the group */
};

struct ksu_groups {
	struct ksu_group	*groups;
	size_t			nr;
	size_t			events;		/* events with a stack or lost */
};

KSU_HIDDEN int ksu_group_entries(struct kshark_entry **rows, size_t n, int64_t min, int64_t max,
				 int pid, struct ksu_groups *out);
KSU_HIDDEN void ksu_groups_free(struct ksu_groups *g);
KSU_HIDDEN char *ksu_groups_folded(const struct ksu_groups *g);

#ifdef __cplusplus
}
#endif

#endif /* _KS_USTACK_H */
