// SPDX-License-Identifier: LGPL-2.1
/*
 * Samples: the events a stitcher hands back, each with its user stack and,
 * when the trace has them, its kernel stack, for profiles and flame graphs.
 *
 * trace-cmd record -T (options/stacktrace) and --func-stack make ftrace
 * write an ftrace/kernel_stack entry right after the event, on the same CPU
 * and with the same task: its field "caller" holds the kernel's return
 * addresses, innermost first, and "size" their number. The format says
 * caller[8], but the kernel writes all "size" of them, so they are read up
 * to the end of the record, never past it.
 *
 * An event is a sample of its own. Each CPU holds its last event until the
 * CPU's next record says whether a kernel stack follows: a kernel_stack
 * entry of the same task joins it, anything else hands it back without one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

#define USTACK_SAMPLE_FLAGS	USTACK_SAMPLE_NO_KERNEL
#define USTACK_SAMPLE_STAT_NR	(USTACK_SAMPLE_STAT_KERNEL_JOINED + 1)

/* The event a CPU holds, and the room for its kernel stack */
struct ustack_sample_slot {
	struct ustack_sample	sample;
	struct ustack_info	info;		/* sample.info points here */
	unsigned long long	*kernel;
	size_t			room;		/* entries of @kernel */
	bool			held;
};

struct ustack_sampler {
	struct tep_handle		*tep;
	ustack_sample_func		callback;
	void				*context;
	bool				join;		/* kernel stacks are joined */
	int				kstack_id;	/* ftrace/kernel_stack; -1: none */
	int				ustack_id;	/* ftrace/user_stack; -1: none */
	int				long_size;	/* of the traced kernel */
	unsigned int			size_offset;
	unsigned int			size_size;
	unsigned int			caller_offset;
	unsigned int			pid_offset;	/* common_pid; pid_size 0: none */
	unsigned int			pid_size;
	struct ustack_sample_slot	**cpus;
	int				nr_cpus;
	unsigned long long		stats[USTACK_SAMPLE_STAT_NR];
};

static int ustack_sampler_event_id(struct tep_handle *tep, const char *name)
{
	struct tep_event *event = tep_find_event_by_name(tep, "ftrace", name);

	return event ? event->id : -1;
}

/* Where the kernel_stack fields are; -1 when they are not as the kernel writes them. */
static int ustack_sampler_kstack_format(struct ustack_sampler *sp)
{
	struct tep_format_field *size, *caller;
	struct tep_event *event;

	event = tep_find_event_by_name(sp->tep, "ftrace", "kernel_stack");
	size = event ? tep_find_field(event, "size") : NULL;
	caller = event ? tep_find_field(event, "caller") : NULL;
	if (!size || !caller || (size->size != 4 && size->size != 8) ||
	    (caller->elementsize && caller->elementsize != (unsigned int)sp->long_size))
		return -1;
	sp->size_offset = size->offset;
	sp->size_size = size->size;
	sp->caller_offset = caller->offset;
	return 0;
}

/* Where common_pid is: every event has it where the first one has it. */
static void ustack_sampler_pid_format(struct ustack_sampler *sp)
{
	struct tep_event *any;
	struct tep_format_field *f;

	any = tep_get_events_count(sp->tep) > 0 ? tep_get_first_event(sp->tep) : NULL;
	f = any ? tep_find_common_field(any, "common_pid") : NULL;
	if (f && f->offset >= 0 && f->size > 0 && f->size <= 8) {
		sp->pid_offset = f->offset;
		sp->pid_size = f->size;
	}
}

/* A record's common_pid, read within the record (tep_data_pid() is not bounded); else -1. */
static int ustack_sampler_pid(const struct ustack_sampler *sp, const struct tep_record *record)
{
	if (!sp->pid_size || !record->data || record->size < 0 ||
	    sp->pid_offset + sp->pid_size > (unsigned int)record->size)
		return -1;
	return (int)tep_read_number(sp->tep, (const char *)record->data + sp->pid_offset,
				    sp->pid_size);
}

/**
 * ustack_sampler_alloc - make a sampler: events with their user and kernel stacks
 * @tep: the trace's event formats; it must outlive the sampler
 * @flags: USTACK_SAMPLE_NO_KERNEL to leave kernel stacks out; else 0
 * @callback: called with every sample (see ustack_sampler_add())
 * @context: passed to @callback
 *
 * The sampler is fed the events a stitcher hands back, in that order
 * (ustack_sampler_add() from the stitcher's callback) and hands each back
 * to @callback as a sample: the event, its user stack as the stitcher knew
 * it, and its kernel stack when the trace has one (trace-cmd record -T).
 *
 * Return: the sampler, to be freed with ustack_sampler_free(); NULL with
 * errno EINVAL (@tep or @callback NULL, unknown @flags), EPROTO (kernel
 * stacks are wanted and the trace's ftrace/kernel_stack format lacks the
 * fields "size" and "caller", or has them of other sizes than the kernel
 * writes) or ENOMEM.
 */
struct ustack_sampler *ustack_sampler_alloc(struct tep_handle *tep, unsigned int flags,
					    ustack_sample_func callback, void *context)
{
	struct ustack_sampler *sp;

	if (!tep || !callback || (flags & ~USTACK_SAMPLE_FLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->tep = tep;
	sp->callback = callback;
	sp->context = context;
	sp->long_size = tep_get_long_size(tep);
	if (sp->long_size != 4 && sp->long_size != 8)
		sp->long_size = 8;
	sp->kstack_id = ustack_sampler_event_id(tep, "kernel_stack");
	sp->ustack_id = ustack_sampler_event_id(tep, "user_stack");
	ustack_sampler_pid_format(sp);
	if (sp->kstack_id >= 0 && !(flags & USTACK_SAMPLE_NO_KERNEL)) {
		if (ustack_sampler_kstack_format(sp)) {
			free(sp);
			errno = EPROTO;
			return NULL;
		}
		sp->join = true;
	}
	return sp;
}

/* Hand the CPU's held event back, if there is one: 1 when the callback said stop. */
static int ustack_sampler_hand(struct ustack_sampler *sp, struct ustack_sample_slot *slot)
{
	int ret;

	if (!slot || !slot->held)
		return 0;
	slot->held = false;
	sp->stats[USTACK_SAMPLE_STAT_SAMPLES]++;
	ret = sp->callback(&slot->sample, sp->context);
	if (slot->info.stack)
		ustack_stack_put(slot->info.stack);
	slot->info.stack = NULL;
	return ret ? 1 : 0;
}

/**
 * ustack_sampler_free - free a sampler
 * @sp: the sampler; NULL is allowed
 *
 * Events still held are dropped without being handed back: call
 * ustack_sampler_flush() first to have them.
 */
void ustack_sampler_free(struct ustack_sampler *sp)
{
	struct ustack_sample_slot *slot;
	int i;

	if (!sp)
		return;
	for (i = 0; i < sp->nr_cpus; i++) {
		slot = sp->cpus[i];
		if (!slot)
			continue;
		if (slot->held && slot->info.stack)
			ustack_stack_put(slot->info.stack);
		free(slot->kernel);
		free(slot);
	}
	free(sp->cpus);
	free(sp);
}

/* The slot of a CPU, made on its first record. */
static struct ustack_sample_slot *ustack_sampler_slot(struct ustack_sampler *sp, int cpu)
{
	struct ustack_sample_slot **cpus;
	int n;

	if (cpu >= sp->nr_cpus) {
		n = cpu + 1 > 2 * sp->nr_cpus ? cpu + 1 : 2 * sp->nr_cpus;
		if (n > USTACK_CPU_MAX)
			n = USTACK_CPU_MAX;
		cpus = realloc(sp->cpus, n * sizeof(*cpus));
		if (!cpus)
			return NULL;
		memset(cpus + sp->nr_cpus, 0, (n - sp->nr_cpus) * sizeof(*cpus));
		sp->cpus = cpus;
		sp->nr_cpus = n;
	}
	if (!sp->cpus[cpu])
		sp->cpus[cpu] = calloc(1, sizeof(**sp->cpus));
	return sp->cpus[cpu];
}

/*
 * The addresses of a kernel_stack entry into the slot, innermost first: as
 * many as "size" says, but no more than the record holds. Entries that are
 * no kernel text address are left out: 0 and -1 (the ends of older
 * kernels' arrays) and, on 64-bit kernels, anything in the lower half (the
 * function tracer's stacks start with 0x7fffffff).
 */
static int ustack_sampler_read_kernel(struct ustack_sampler *sp, struct ustack_sample_slot *slot,
				      const struct tep_record *record)
{
	const unsigned char *data = record->data;
	unsigned long long nr, addr;
	unsigned long long *kernel;
	unsigned int size;
	size_t room, i, n = 0;

	if (!data || record->size <= 0)
		return 0;
	size = record->size;
	if (size < sp->caller_offset || size < sp->size_offset + sp->size_size)
		return 0;
	nr = tep_read_number(sp->tep, data + sp->size_offset, sp->size_size);
	room = (size - sp->caller_offset) / sp->long_size;
	if (nr > room)
		nr = room;
	if (nr > slot->room) {
		kernel = realloc(slot->kernel, nr * sizeof(*kernel));
		if (!kernel)
			return -1;
		slot->kernel = kernel;
		slot->room = nr;
	}
	for (i = 0; i < nr; i++) {
		addr = tep_read_number(sp->tep, data + sp->caller_offset + i * sp->long_size,
				       sp->long_size);
		if (sp->long_size == 4 && (addr == 0 || addr == 0xffffffffULL))
			continue;
		if (sp->long_size == 8 && (addr == ~0ULL || !(addr >> 63)))
			continue;
		slot->kernel[n++] = addr;
	}
	slot->sample.nr_kernel = n;
	slot->sample.kernel = n ? slot->kernel : NULL;
	return 0;
}

/* A kernel_stack entry: the kernel stack of the CPU's held event, if it is its. */
static int ustack_sampler_add_kernel(struct ustack_sampler *sp, struct ustack_sample_slot *slot,
				     struct tep_record *record)
{
	sp->stats[USTACK_SAMPLE_STAT_KERNEL_STACKS]++;
	if (sp->join && slot->held && !record->missed_events &&
	    slot->sample.pid == ustack_sampler_pid(sp, record)) {
		if (ustack_sampler_read_kernel(sp, slot, record))
			return -1;
		sp->stats[USTACK_SAMPLE_STAT_KERNEL_JOINED]++;
	}
	return ustack_sampler_hand(sp, slot);
}

/* An event, held by its CPU until the CPU's next record, or handed back now. */
static int ustack_sampler_take(struct ustack_sampler *sp, struct ustack_sample_slot *slot,
			       struct tep_event *event, struct tep_record *record, int cpu,
			       const struct ustack_info *info)
{
	slot->info = *info;
	slot->info.stack = info->state == USTACK_STATE_STACK && info->stack ?
			   ustack_stack_get(info->stack) : NULL;
	if (slot->info.state == USTACK_STATE_STACK && !slot->info.stack)
		slot->info.state = USTACK_STATE_NONE;
	slot->sample = (struct ustack_sample){
		.event		= event,
		.tep		= sp->tep,
		.info		= &slot->info,
		.cpu		= cpu,
		.pid		= ustack_sampler_pid(sp, record),
		.ts		= record->ts,
		.offset		= record->offset,
	};
	slot->held = true;
	/* no kernel stack can follow: hand it back now */
	return sp->join ? 0 : ustack_sampler_hand(sp, slot);
}

/**
 * ustack_sampler_add - feed an event the stitcher handed back
 * @sp: the sampler
 * @event: the event's format, as the stitcher's callback got it; NULL for a
 *	record of no known format
 * @record: its record (needed during this call only)
 * @cpu: its CPU
 * @info: its user stack, as the stitcher's callback got it
 *
 * Call it from the stitcher's callback (ustack_stitch_func) with what that
 * got, for every record, in the order the stitcher hands them back.
 *
 * Every event becomes one sample, handed to the sampler's callback once:
 * with its user stack (a reference is kept, so the stack outlives the
 * stitcher's callback) and its kernel stack, the addresses of the
 * ftrace/kernel_stack entry that comes next on the same CPU when that entry
 * is of the same task and no events were missed on the CPU in between
 * (trace-cmd record -T writes it so). The CPU holds its last event until
 * its next record says: that record is fed, the held event is handed back
 * first (with the kernel stack when the record is its kernel_stack entry).
 * A kernel_stack entry that is no held event's is left out. Without kernel
 * stacks (USTACK_SAMPLE_NO_KERNEL, or no kernel_stack format in the trace)
 * an event is handed back at once.
 *
 * Not samples: kernel_stack entries, ftrace/user_stack entries (the
 * in-place user stack of options/userstacktrace, part of the event before
 * it), user_unwind_* entries handed back by a USTACK_STITCH_RAW stitcher
 * (USTACK_STATE_RAW) and records of no known format; each of them but a
 * kernel_stack entry hands the CPU's held event back without a kernel stack.
 *
 * The callback must not call the sampler; the sample is valid during the
 * call only (take a reference to its user stack with ustack_stack_get() to
 * keep that). A non-zero return of the callback is passed on as 1; the
 * sample is handed back all the same.
 *
 * Return: 0; 1 when the callback returned non-zero; -1 with errno EINVAL
 * (@sp, @record or @info NULL, @cpu negative or 8192 or more) or ENOMEM
 * (the record is then not taken, and the CPU's held event stays held).
 */
int ustack_sampler_add(struct ustack_sampler *sp, struct tep_event *event,
		       struct tep_record *record, int cpu, const struct ustack_info *info)
{
	struct ustack_sample_slot *slot;
	int ret;

	if (!sp || !record || !info || cpu < 0 || cpu >= USTACK_CPU_MAX) {
		errno = EINVAL;
		return -1;
	}
	slot = ustack_sampler_slot(sp, cpu);
	if (!slot)
		return -1;
	if (event && event->id == sp->kstack_id)
		return ustack_sampler_add_kernel(sp, slot, record);
	ret = ustack_sampler_hand(sp, slot);
	if (!event || event->id == sp->ustack_id || info->state == USTACK_STATE_RAW)
		return ret;
	return ustack_sampler_take(sp, slot, event, record, cpu, info) || ret;
}

/**
 * ustack_sampler_flush - the input ended: hand back the events held
 * @sp: the sampler
 *
 * Each CPU's held event is handed back, without a kernel stack, CPU by
 * CPU. Call it after the stitcher's own flush (ustack_stitcher_flush(),
 * or ustack_stitch_tracecmd() returning), which may hand back more events.
 * The sampler can then take another input.
 *
 * Return: 0; 1 when the callback returned non-zero (call again for the
 * rest); -1 with errno EINVAL when @sp is NULL.
 */
int ustack_sampler_flush(struct ustack_sampler *sp)
{
	int i;

	if (!sp) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < sp->nr_cpus; i++) {
		if (ustack_sampler_hand(sp, sp->cpus[i]))
			return 1;
	}
	return 0;
}

/**
 * ustack_sampler_get_stat - read one counter of a sampler
 * @sp: the sampler
 * @what: which counter (enum ustack_sample_stat)
 * @value: the counter's value
 *
 * Return: 0; -1 with errno EINVAL when @sp or @value is NULL, or @what is
 * not one this library knows.
 */
int ustack_sampler_get_stat(struct ustack_sampler *sp, enum ustack_sample_stat what,
			    unsigned long long *value)
{
	if (!sp || !value || (unsigned int)what >= USTACK_SAMPLE_STAT_NR) {
		errno = EINVAL;
		return -1;
	}
	*value = sp->stats[what];
	return 0;
}
