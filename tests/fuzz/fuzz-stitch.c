// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the stitcher, ustack_stitcher_add() and _flush(), on
 * records made from the input.
 *
 * The tep is the one the unit tests use (utest/formats/ustack-6.12.formats,
 * parsed by utest/trace-env.c). The input is a header, then records:
 *
 *   header  flags (bit 0 USTACK_STITCH_RAW, bit 1 START_UNKNOWN, bit 2: the
 *           callback asks to stop now and then, bit 3: a big-endian trace,
 *           every field written the other way round, bit 4: an index by
 *           timestamp, bit 5: with it, no callback, bit 6: a stitcher on a
 *           layout, fed records as bytes, bit 7: a sampler fed by the
 *           callback, ustack-sampler(3)), limits (0: defaults)
 *   record  op: bits 0-2 the kind, bits 3-4 the CPU, bit 5 a CPU byte
 *           follows (0xff: out of range), bit 6 a missed_events byte follows
 *           (0xff: -1, unknown), bit 7 a byte follows that cuts the record
 *           short by that many bytes; then the kind's fields:
 *     0 function event     pid; with a sampler, a kernel_stack entry
 *                          instead (trace-cmd record -T): pid, its size
 *                          field (a signed byte), a count, then a byte per
 *                          caller (0: 0, 0xff: ~0, else a kernel address)
 *     1 getppid event      pid
 *     2 cookie             pid, cookie
 *     3 stack              pid, cookie, nr, flags, length, frame bytes
 *     4 file               id (0xff: above the limit), build-id size, length,
 *                          path bytes (no NUL is added: a path may run on)
 *     5 raw record         length, bytes (its own type, pid and fields)
 *     6 flush
 *     7 stats
 *
 * Pids and cookies come from small sets, so that records meet: a pid byte
 * picks one of four tasks, a cookie byte is (b >> 4) << 32 | (b & 15) (flag 0x4 of
 * a stack in the input gives the entry the next cookie 2 << 32 above, as
 * the kernel would make it). Checked beyond crashes: records come back in input order, each
 * once (by their timestamps); what the callback is told is consistent (a
 * stack with STACK, a reason with LOST and only then, no cookie with NONE or
 * UNKNOWN, raw entries only when asked for); after the last flush nothing is
 * held, and the stitcher counted every event handed back. With an index,
 * every event is looked up right after it was added, and the last ones again
 * after the flush: none is pending then. With a sampler: samples come in
 * input order on each CPU, never a raw entry, a kernel stack no longer than its entry
 * could hold, each folded (ustack_sample_fold()) as long as its length
 * says; after its flush, which comes after the stitcher is freed (the held
 * samples' stacks outlive it), the sampler counted every sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <ustack.h>

#include "fuzz-input.h"
#include "trace-env.h"

#define FZ_KEEP		8
#define FZ_REC_MAX	1024
#define FZ_LOOKUPS	64
#define FZ_KSTACK_MAX	15	/* callers of a kernel_stack entry: more than its format's 8 */

/* An event added to a stitcher with an index, to look up again. */
struct fz_event {
	int			cpu;
	int			pid;
	unsigned long long	ts;
};

struct fz_stitch {
	unsigned int		flags;		/* of the stitcher */
	unsigned long long	last_ts;	/* of the last record handed back */
	unsigned long long	handed;		/* events, not raw entries */
	unsigned int		calls;
	bool			stop;
	const struct ustack_stack *kept[FZ_KEEP];
	unsigned int		nr_kept;
	bool			index;
	bool			layout;		/* ustack_stitcher_add_data() */
	struct fz_event		events[FZ_LOOKUPS];	/* the last ones added */
	unsigned int		nr_events;
	struct ustack_sampler	*sampler;	/* fed by the callback, or NULL */
	unsigned long long	samples;	/* handed back by the sampler */
	unsigned long long	sample_ts[256];	/* of the last one, per CPU */
};

/* What a lookup says is consistent; pending only when @pending may be. */
static void fz_lookup(struct ustack_stitcher *st, const struct fz_event *ev, bool pending)
{
	const struct ustack_info *info = ustack_stitcher_lookup(st, ev->cpu, ev->pid, ev->ts);

	if (!info || info->state == USTACK_STATE_RAW || info->state > USTACK_STATE_PENDING ||
	    (info->state == USTACK_STATE_PENDING && !pending) ||
	    (info->state == USTACK_STATE_STACK && !info->stack) ||
	    ((info->state == USTACK_STATE_LOST) != (info->lost != USTACK_LOST_NONE)))
		abort();
	if (info->stack && ustack_stack_format(info->stack, NULL, NULL, 0) < 0)
		abort();
}

static struct tep_handle *fz_tep[2];

/* trace-env.c reports its failures here; the fuzzer has nothing to record */
bool utest_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
{
	(void)file;
	(void)line;
	(void)fmt;
	return ok;
}

/* The sampler's callback: a sample as ustack-sampler(3) says, folded. */
static int fz_sample(const struct ustack_sample *sample, void *context)
{
	struct fz_stitch *fz = context;
	unsigned long long sum = 0;
	char line[128], *big;
	unsigned int i;
	int len;

	if (sample->cpu < 0 || sample->info->state == USTACK_STATE_RAW ||
	    sample->nr_kernel > FZ_KSTACK_MAX || !sample->kernel != !sample->nr_kernel)
		abort();
	if (sample->cpu < 256) {
		if (sample->ts <= fz->sample_ts[sample->cpu])
			abort();
		fz->sample_ts[sample->cpu] = sample->ts;
	}
	fz->samples++;
	/* every address read: one past the entry shows under ASan */
	for (i = 0; i < sample->nr_kernel; i++)
		sum += sample->kernel[i];
	(void)sum;
	len = ustack_sample_fold(sample, NULL, fz->samples & 1 ? "t;x" : NULL, line, sizeof(line));
	if (len < 0)
		abort();
	if ((size_t)len >= sizeof(line)) {
		big = malloc(len + 1);
		if (!big || ustack_sample_fold(sample, NULL, fz->samples & 1 ? "t;x" : NULL, big,
					       len + 1) != len || strlen(big) != (size_t)len)
			abort();
		free(big);
	} else if (strlen(line) != (size_t)len) {
		abort();
	}
	return fz->stop && !(fz->samples % 5);
}

static int fz_callback(struct tep_event *event, struct tep_record *record, int cpu,
		       const struct ustack_info *info, void *context)
{
	struct fz_stitch *fz = context;
	char text[256];
	unsigned int i;
	int ret;

	if (record->ts <= fz->last_ts)
		abort();
	fz->last_ts = record->ts;
	if ((info->state == USTACK_STATE_STACK && !info->stack) ||
	    ((info->state == USTACK_STATE_LOST) != (info->lost != USTACK_LOST_NONE)) ||
	    ((info->state == USTACK_STATE_NONE || info->state == USTACK_STATE_UNKNOWN) &&
	     (info->cookie || info->stack)) ||
	    (info->state == USTACK_STATE_RAW && !(fz->flags & USTACK_STITCH_RAW)) ||
	    info->state > USTACK_STATE_RAW)
		abort();
	/* the record is read whole: a short one shows under ASan */
	if (record->size)
		memcpy(text, record->data, (size_t)record->size < sizeof(text) ? record->size :
		       sizeof(text));
	if (info->state != USTACK_STATE_RAW)
		fz->handed++;
	if (info->stack) {
		ustack_stack_format(info->stack, NULL, text, sizeof(text));
		if (ustack_stack_format(info->stack, NULL, NULL, 0) < 0)
			abort();
		for (i = 0; i < info->stack->nr; i++)
			ustack_frame_format(&info->stack->frames[i], NULL, text, 16);
		if (fz->nr_kept < FZ_KEEP && !(fz->calls % 3))
			fz->kept[fz->nr_kept++] = ustack_stack_get(info->stack);
	}
	fz->calls++;
	if (fz->sampler) {
		ret = ustack_sampler_add(fz->sampler, event, record, cpu, info);
		if (ret < 0)
			abort();
		if (ret)
			return 1;
	}
	return fz->stop && !(fz->calls % 7);
}

static size_t fz_file_rec(unsigned char *buf, int pid, unsigned int id, unsigned int bid_size,
			  const uint8_t *path, size_t len)
{
	size_t n = ut_rec_event(buf, pid, 0);
	uint16_t type = UT_ID_FILE;
	unsigned int i;

	(void)n;
	memcpy(buf, &type, 2);
	memcpy(buf + 8, &id, 4);
	memcpy(buf + 12, &bid_size, 4);
	for (i = 0; i < 20; i++)
		buf[16 + i] = 0xb0 + i;
	memcpy(buf + 36, path, len);
	n = 36 + len;
	while (n % 4)
		buf[n++] = 0;
	return n;
}

static void fz_swap(unsigned char *p, size_t n)
{
	unsigned char t;
	size_t i;

	for (i = 0; i < n / 2; i++) {
		t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* A record of kind k (0-4; 5: kernel_stack) as a big-endian trace has it. */
static void fz_big_endian(unsigned char *buf, size_t size, unsigned int k)
{
	static const struct {
		unsigned char	offset;
		unsigned char	size;
	} fields[6][4] = {
		{ { 8, 8 }, { 16, 8 } },			/* function: ip, parent_ip */
		{ { 8, 4 } },					/* getppid: __syscall_nr */
		{ { 8, 8 } },					/* cookie */
		{ { 8, 8 }, { 16, 8 }, { 24, 2 }, { 26, 2 } },	/* stack */
		{ { 8, 4 }, { 12, 4 } },			/* file */
		{ { 8, 4 } },					/* kernel_stack: size */
	};
	unsigned int i;

	if (size < 8)
		return;
	fz_swap(buf, 2);
	fz_swap(buf + 4, 4);
	for (i = 0; i < 4 && fields[k][i].size; i++) {
		if (fields[k][i].offset + fields[k][i].size <= size)
			fz_swap(buf + fields[k][i].offset, fields[k][i].size);
	}
	/* the callers */
	for (i = 16; k == 5 && i + 8 <= size; i += 8)
		fz_swap(buf + i, 8);
}

/* A kernel_stack entry of @pid: its size field, a count, a byte per caller. */
static size_t fz_kstack_rec(struct fz_in *in, unsigned char *buf, int pid)
{
	unsigned long long callers[FZ_KSTACK_MAX];
	int size = (int8_t)fz_u8(in);
	unsigned int nr = fz_u8(in) % (FZ_KSTACK_MAX + 1), i;
	uint8_t c;

	for (i = 0; i < nr; i++) {
		c = fz_u8(in);
		callers[i] = c == 0xff ? ~0ULL : c ? 0xffffffff81000000ULL + 16 * c : 0;
	}
	return ut_rec_kernel_stack(buf, pid, size, callers, nr);
}

/* Flush until everything is handed back (the callback may ask to stop). */
static void fz_flush(struct ustack_stitcher *st)
{
	int ret;

	do {
		ret = ustack_stitcher_flush(st);
	} while (ret == 1);
	if (ret)
		abort();
}

/* The same for a sampler. */
static void fz_sampler_flush(struct ustack_sampler *sp)
{
	int ret;

	do {
		ret = ustack_sampler_flush(sp);
	} while (ret == 1);
	if (ret)
		abort();
}

static void fz_records(struct fz_in *in, struct ustack_stitcher *st, bool big_endian,
		       struct fz_stitch *fz)
{
	static const int pids[4] = { 1, 100, 200, 300 };
	unsigned char buf[FZ_REC_MAX];
	struct ut_stats stats;
	unsigned long long ts = 0;
	struct tep_record rec;
	const uint8_t *bytes;
	size_t size, len;
	struct fz_event *ev;
	uint8_t op, b;
	int cpu, pid = 0;

	while (fz_left(in)) {
		op = fz_u8(in);
		cpu = (op >> 3) & 3;
		if (op & 0x20) {
			b = fz_u8(in);
			cpu = b == 0xff ? 8192 : b;
		}
		memset(&rec, 0, sizeof(rec));
		if (op & 0x40) {
			b = fz_u8(in);
			rec.missed_events = b == 0xff ? -1 : b;
		}
		size = 0;
		switch (op & 7) {
		case 0:
			if (fz->sampler) {
				pid = pids[fz_u8(in) & 3];
				size = fz_kstack_rec(in, buf, pid);
				break;
			}
			/* fall through */
		case 1:
			pid = pids[fz_u8(in) & 3];
			size = ut_rec_event(buf, pid, fz_u8(in));
			if (op & 1) {
				uint16_t type = UT_ID_GETPPID;

				memcpy(buf, &type, 2);
			}
			break;
		case 2:
			pid = pids[fz_u8(in) & 3];
			b = fz_u8(in);
			size = ut_rec_cookie(buf, pid,
					     (unsigned long long)(b >> 4) << 32 | (b & 15));
			break;
		case 3: {
			unsigned long long cookie;
			unsigned int nr, flags;

			pid = pids[fz_u8(in) & 3];
			b = fz_u8(in);
			cookie = (unsigned long long)(b >> 4) << 32 | (b & 15);
			nr = fz_u8(in);
			flags = fz_u8(in);
			bytes = fz_bytes(in, fz_u8(in), &len);
			/* flag 0x4 of the input: a next cookie, 2 << 32 above */
			size = ut_rec_stack_next(buf, pid, cookie,
						 flags & 4 ? cookie + (2ULL << 32) : 0, nr,
						 flags & ~4U, bytes, len);
			break;
		}
		case 4: {
			unsigned int id, bid_size;

			b = fz_u8(in);
			id = b == 0xff ? 20000 : b;
			bid_size = fz_u8(in);
			bytes = fz_bytes(in, fz_u8(in), &len);
			size = fz_file_rec(buf, pids[0], id, bid_size, bytes, len);
			break;
		}
		case 5:
			bytes = fz_bytes(in, fz_u8(in), &len);
			memcpy(buf, bytes, len);
			size = len;
			break;
		case 6:
			fz_flush(st);
			continue;
		case 7:
			if (ut_get_stats(st, &stats))
				abort();
			continue;
		}
		if (big_endian && (op & 7) <= 4)
			fz_big_endian(buf, size, fz->sampler && !(op & 7) ? 5 : op & 7);
		if (op & 0x80) {
			b = fz_u8(in);
			size = b > size ? 0 : size - b;
		}
		/* exactly the record's bytes, so that ASan sees a read past them */
		rec.data = size ? malloc(size) : NULL;
		if (size && !rec.data)
			abort();
		if (size)
			memcpy(rec.data, buf, size);
		rec.ts = ts += 1000;
		rec.size = size;
		rec.record_size = size + 4;
		rec.cpu = cpu;
		rec.ref_count = 1;
		if ((fz->layout ? ustack_stitcher_add_data(st, cpu, rec.ts, 0, rec.data, size,
							   rec.missed_events) :
		     ustack_stitcher_add(st, &rec, cpu)) < 0) {
			if (errno != EINVAL)
				abort();
		} else if (fz->index && (op & 7) <= 1 && !(fz->sampler && !(op & 7)) && cpu < 8192) {
			ev = &fz->events[fz->nr_events++ % FZ_LOOKUPS];
			ev->cpu = cpu;
			ev->pid = pid;
			ev->ts = rec.ts;
			fz_lookup(st, ev, true);
		}
		/* held events must be copies */
		if (size)
			memset(rec.data, 0xa5, size);
		free(rec.data);
	}
}

/* The layout of utest/formats/ustack-6.12.formats, as an importer would give it. */
static struct ustack_layout *fz_layout(bool big_endian)
{
	static const struct {
		const char	*event;
		const char	*field;
		unsigned int	offset;
		unsigned int	size;
	} fields[] = {
		{ NULL, "common_type", 0, 2 }, { NULL, "common_pid", 4, 4 },
		{ "user_unwind_cookie", "cookie", 8, 8 },
		{ "user_unwind_stack", "cookie", 8, 8 }, { "user_unwind_stack", "next", 16, 8 },
		{ "user_unwind_stack", "nr", 24, 2 }, { "user_unwind_stack", "flags", 26, 2 },
		{ "user_unwind_stack", "frames", 28, 0 },
		{ "user_unwind_file", "id", 8, 4 }, { "user_unwind_file", "build_id_size", 12, 4 },
		{ "user_unwind_file", "build_id", 16, 20 }, { "user_unwind_file", "path", 36, 0 },
	};
	struct ustack_layout *layout = ustack_layout_alloc();
	unsigned int i;

	if (!layout || ustack_layout_set_event(layout, "user_unwind_cookie", UT_ID_COOKIE) ||
	    ustack_layout_set_event(layout, "user_unwind_stack", UT_ID_STACK) ||
	    ustack_layout_set_event(layout, "user_unwind_file", UT_ID_FILE) ||
	    ustack_layout_set_big_endian(layout, big_endian))
		abort();
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (ustack_layout_set_field(layout, fields[i].event, fields[i].field,
					    fields[i].offset, fields[i].size))
			abort();
	}
	return layout;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ustack_layout *layout;
	struct fz_in in = { data, size, 0 };
	struct ut_stats stats;
	struct fz_stitch fz = { 0 };
	struct ustack_stitcher *st;
	uint8_t flags, limits;
	unsigned int i;

	if (!fz_tep[0]) {
		fz_tep[0] = utest_tep(UT_FORMATS_ALL);
		fz_tep[1] = utest_tep(UT_FORMATS_ALL);
		if (!fz_tep[0] || !fz_tep[1])
			abort();
		tep_set_file_bigendian(fz_tep[1], TEP_BIG_ENDIAN);
	}
	flags = fz_u8(&in);
	limits = fz_u8(&in);
	fz.stop = flags & 4;
	fz.flags = flags & 3;
	fz.index = flags & 0x10;
	/* no callback: only with an index, and not with the raw entries */
	if (fz.index && (flags & 0x20))
		fz.flags &= ~USTACK_STITCH_RAW;
	fz.layout = flags & 0x40;
	if (fz.layout) {
		layout = fz_layout(flags & 8);
		st = ustack_stitcher_alloc_layout(layout,
						  fz.flags | (fz.index ? USTACK_STITCH_INDEX_TS : 0),
						  fz.index && (flags & 0x20) ? NULL : fz_callback,
						  &fz);
		ustack_layout_free(layout);
	} else {
		st = ustack_stitcher_alloc(fz_tep[!!(flags & 8)],
					   fz.flags | (fz.index ? USTACK_STITCH_INDEX_TS : 0),
					   fz.index && (flags & 0x20) ? NULL : fz_callback, &fz);
	}
	if (!st)
		abort();
	if (limits && ustack_stitcher_set_limits(st, 1 + (limits & 3), 1 + ((limits >> 2) & 7),
						 (limits >> 5) * 256))
		abort();
	/* a sampler only where the stitcher hands records to a callback */
	if ((flags & 0x80) && !(fz.index && (flags & 0x20))) {
		fz.sampler = ustack_sampler_alloc(fz_tep[!!(flags & 8)], 0, fz_sample, &fz);
		if (!fz.sampler)
			abort();
	}

	fz_records(&in, st, flags & 8, &fz);
	fz_flush(st);
	if (ut_get_stats(st, &stats) || stats.held || stats.events != fz.handed)
		abort();
	for (i = 0; i < fz.nr_events && i < FZ_LOOKUPS; i++)
		fz_lookup(st, &fz.events[i], false);
	ustack_stitcher_free(st);
	if (fz.sampler) {
		unsigned long long samples, kstacks, joined;

		/* the held samples' stacks outlive the stitcher */
		fz_sampler_flush(fz.sampler);
		if (ustack_sampler_get_stat(fz.sampler, USTACK_SAMPLE_STAT_SAMPLES, &samples) ||
		    ustack_sampler_get_stat(fz.sampler, USTACK_SAMPLE_STAT_KERNEL_STACKS,
					    &kstacks) ||
		    ustack_sampler_get_stat(fz.sampler, USTACK_SAMPLE_STAT_KERNEL_JOINED,
					    &joined) ||
		    samples != fz.samples || joined > kstacks || joined > samples)
			abort();
		ustack_sampler_free(fz.sampler);
	}
	/* kept stacks outlive their stitcher */
	for (i = 0; i < fz.nr_kept; i++) {
		char text[64];

		ustack_stack_format(fz.kept[i], NULL, text, sizeof(text));
		ustack_stack_put(fz.kept[i]);
	}
	return 0;
}
