// SPDX-License-Identifier: GPL-2.0
/*
 * Traces built by hand for the stitcher tests; see trace-env.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace-env.h"

#define UT_HEADER_PAGE_START	"\tfield: u64 timestamp;"
#define UT_RB_MISSED_EVENTS	(1ULL << 31)

/*
 * The formats file: "=== system/name" lines, each followed by the format of
 * that event; after the last one, the header page, which has no such line.
 */
const char *ut_header_page(size_t *len)
{
	const char *p = strstr(utest_formats, UT_HEADER_PAGE_START);

	*len = p ? strlen(p) : 0;
	return p;
}

int ut_formats_each(int (*cb)(const char *sys, const char *name, const char *fmt, size_t len,
			      void *data), void *data)
{
	const char *p = utest_formats, *end, *nl, *slash, *next;
	char sys[64], name[64];
	size_t len;
	int ret;

	end = strstr(utest_formats, UT_HEADER_PAGE_START);
	if (!end)
		end = utest_formats + strlen(utest_formats);
	while ((p = strstr(p, "=== ")) && p < end) {
		nl = strchr(p, '\n');
		slash = strchr(p, '/');
		if (!nl || !slash || slash > nl || slash - p - 4 >= (long)sizeof(sys) ||
		    nl - slash - 1 >= (long)sizeof(name))
			return -1;
		snprintf(sys, sizeof(sys), "%.*s", (int)(slash - p - 4), p + 4);
		snprintf(name, sizeof(name), "%.*s", (int)(nl - slash - 1), slash + 1);
		next = strstr(nl, "=== ");
		if (!next || next > end)
			next = end;
		len = next - (nl + 1);
		ret = cb(sys, name, nl + 1, len, data);
		if (ret)
			return ret;
		p = next;
	}
	return 0;
}

struct ut_parse {
	struct tep_handle	*tep;
	enum ut_formats		which;
};

static int ut_parse_one(const char *sys, const char *name, const char *fmt, size_t len,
			void *data)
{
	struct ut_parse *parse = data;

	if (!strncmp(name, "user_unwind_", 12)) {
		if (parse->which == UT_FORMATS_NO_USTACK)
			return 0;
		if (parse->which == UT_FORMATS_COOKIE_ONLY && strcmp(name, "user_unwind_cookie"))
			return 0;
	}
	return tep_parse_event(parse->tep, fmt, len, sys) ? -1 : 0;
}

/* A tep handle as libtracefs makes it from a tracing directory; NULL on failure. */
struct tep_handle *utest_tep(enum ut_formats which)
{
	struct ut_parse parse = { tep_alloc(), which };
	const char *hp;
	char *copy;
	size_t len;

	if (!UT_CHECK(parse.tep, "tep_alloc"))
		return NULL;
	tep_set_long_size(parse.tep, 8);
	tep_set_page_size(parse.tep, UT_PAGE);
	hp = ut_header_page(&len);
	copy = hp ? strndup(hp, len) : NULL;
	if (!UT_CHECK(copy && !tep_parse_header_page(parse.tep, copy, len, 8), "header page") ||
	    !UT_CHECK(!ut_formats_each(ut_parse_one, &parse), "event formats")) {
		free(copy);
		tep_free(parse.tep);
		return NULL;
	}
	free(copy);
	return parse.tep;
}

/* The common fields, then the fields from offset 8 on, padded to 4 bytes. */
static size_t ut_rec_head(unsigned char *buf, int type, int pid)
{
	uint16_t t = type;

	memset(buf, 0, 8);
	memcpy(buf, &t, 2);
	memcpy(buf + 4, &pid, 4);
	return 8;
}

static size_t ut_pad(unsigned char *buf, size_t size)
{
	while (size % 4)
		buf[size++] = 0;
	return size;
}

size_t ut_rec_event(unsigned char *buf, int pid, unsigned long long tag)
{
	unsigned long long parent = 0;
	size_t n = ut_rec_head(buf, UT_ID_FUNCTION, pid);

	memcpy(buf + n, &tag, 8);
	memcpy(buf + n + 8, &parent, 8);
	return n + 16;
}

size_t ut_rec_kernel_stack(unsigned char *buf, int pid, int size,
			   const unsigned long long *callers, unsigned int nr)
{
	size_t n = ut_rec_head(buf, UT_ID_KSTACK, pid);

	memcpy(buf + n, &size, 4);
	memset(buf + n + 4, 0, 4);
	memcpy(buf + n + 8, callers, nr * 8);
	return n + 8 + nr * 8;
}

size_t ut_rec_print(unsigned char *buf, int pid, unsigned long long tag, const char *text)
{
	size_t n = ut_rec_head(buf, UT_ID_PRINT, pid), len = strlen(text) + 1;

	memcpy(buf + n, &tag, 8);
	memcpy(buf + n + 8, text, len);
	return ut_pad(buf, n + 8 + len);
}

size_t ut_rec_repeats(unsigned char *buf, int pid, unsigned long long tag)
{
	size_t n = ut_rec_head(buf, UT_ID_REPEATS, pid);
	uint16_t count = 1;

	memset(buf + n, 0, 24);
	memcpy(buf + n, &tag, 8);
	memcpy(buf + n + 16, &count, 2);
	return n + 24;
}

size_t ut_rec_cookie(unsigned char *buf, int pid, unsigned long long cookie)
{
	size_t n = ut_rec_head(buf, UT_ID_COOKIE, pid);

	memcpy(buf + n, &cookie, 8);
	return n + 8;
}

size_t ut_rec_stack_next(unsigned char *buf, int pid, unsigned long long cookie,
			 unsigned long long next, unsigned int nr, unsigned int flags,
			 const unsigned char *frames, size_t len)
{
	size_t n = ut_rec_head(buf, UT_ID_STACK, pid);
	uint16_t nr16 = nr, flags16 = flags;

	memcpy(buf + n, &cookie, 8);
	memcpy(buf + 16, &next, 8);
	memcpy(buf + 24, &nr16, 2);
	memcpy(buf + 26, &flags16, 2);
	if (len)
		memcpy(buf + 28, frames, len);
	return ut_pad(buf, 28 + len);
}

size_t ut_rec_stack(unsigned char *buf, int pid, unsigned long long cookie, unsigned int nr,
		    unsigned int flags, const unsigned char *frames, size_t len)
{
	return ut_rec_stack_next(buf, pid, cookie, 0, nr, flags, frames, len);
}

size_t ut_rec_file(unsigned char *buf, int pid, unsigned int id, unsigned int build_id_size,
		   const char *path)
{
	size_t n = ut_rec_head(buf, UT_ID_FILE, pid), len = strlen(path) + 1;
	unsigned int i;

	memcpy(buf + n, &id, 4);
	memcpy(buf + 12, &build_id_size, 4);
	for (i = 0; i < 20; i++)
		buf[16 + i] = i < build_id_size ? 0xb0 + i : 0;
	memcpy(buf + 36, path, len);
	return ut_pad(buf, 36 + len);
}

size_t ut_uleb128(unsigned char *buf, unsigned long long val)
{
	size_t n = 0;

	do {
		buf[n] = val & 0x7f;
		val >>= 7;
		if (val)
			buf[n] |= 0x80;
		n++;
	} while (val);
	return n;
}

/* The kernel's encoding (kernel/trace/trace_user_unwind.c), for the tests. */
size_t ut_encode(unsigned char *buf, const struct ut_frame *frames, unsigned int nr)
{
	unsigned long long prev = 0, tag;
	unsigned int i;
	size_t n = 0;
	bool map;
	int64_t d;

	for (i = 0; i < nr; i++) {
		map = !i || frames[i].id != frames[i - 1].id;
		if (map)
			prev = 0;
		d = (int64_t)(frames[i].offset - prev);
		tag = (((uint64_t)d << 1) ^ (uint64_t)(d >> 63)) << 1 | map;
		n += ut_uleb128(buf + n, tag);
		if (map)
			n += ut_uleb128(buf + n, frames[i].id);
		prev = frames[i].offset;
	}
	return n;
}

void ut_note(struct ut_seen *s, struct tep_event *event, struct tep_record *record, int cpu,
	     const struct ustack_info *info)
{
	memset(s, 0, sizeof(*s));
	s->type = event ? event->id : -1;
	if (record->size >= 8)
		memcpy(&s->pid, (char *)record->data + 4, 4);
	if ((s->type == UT_ID_FUNCTION || s->type == UT_ID_PRINT || s->type == UT_ID_REPEATS) &&
	    record->size >= 16)
		memcpy(&s->tag, (char *)record->data + 8, 8);
	s->cpu = cpu;
	s->state = info->state;
	s->lost = info->lost;
	s->cookie = info->cookie;
	if (info->stack) {
		s->nr = info->stack->nr;
		s->flags = info->stack->flags;
		ustack_stack_format(info->stack, NULL, s->text, sizeof(s->text));
	}
}

int ut_callback(struct tep_event *event, struct tep_record *record, int cpu,
		const struct ustack_info *info, void *context)
{
	struct ut_trace *t = context;
	struct ut_seen *seen;

	if (t->nr_seen == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		seen = realloc(t->seen, t->cap * sizeof(*seen));
		if (!seen)
			abort();
		t->seen = seen;
	}
	ut_note(&t->seen[t->nr_seen++], event, record, cpu, info);
	return t->stop_at && t->nr_seen == t->stop_at;
}

bool ut_start(struct ut_trace *t, enum ut_formats which, unsigned int flags)
{
	memset(t, 0, sizeof(*t));
	t->tep = utest_tep(which);
	if (!t->tep)
		return false;
	t->st = ustack_stitcher_alloc(t->tep, flags, ut_callback, t);
	if (!UT_CHECK(t->st, "ustack_stitcher_alloc: %s", strerror(errno))) {
		tep_free(t->tep);
		return false;
	}
	return true;
}

void ut_end(struct ut_trace *t)
{
	ustack_stitcher_free(t->st);
	tep_free(t->tep);
	free(t->seen);
	memset(t, 0, sizeof(*t));
}

/* Feed the record in t->buf, then scribble over it: held events must be copies. */
int ut_add(struct ut_trace *t, int cpu, size_t size)
{
	struct tep_record rec = {
		.ts		= t->ts += 1000,
		.size		= size,
		.record_size	= size + 4,
		.data		= t->buf,
		.cpu		= cpu,
		.ref_count	= 1,
	};
	int ret;

	if (cpu < UT_CPUS) {
		rec.missed_events = t->missed[cpu];
		t->missed[cpu] = 0;
	}
	ret = ustack_stitcher_add(t->st, &rec, cpu);
	memset(t->buf, 0xa5, size);
	return ret;
}

int ut_event(struct ut_trace *t, int cpu, int pid, unsigned long long tag)
{
	return ut_add(t, cpu, ut_rec_event(t->buf, pid, tag));
}

int ut_cookie(struct ut_trace *t, int cpu, int pid, unsigned long long cookie)
{
	return ut_add(t, cpu, ut_rec_cookie(t->buf, pid, cookie));
}

int ut_stack(struct ut_trace *t, int cpu, int pid, unsigned long long cookie,
	     const struct ut_frame *frames, unsigned int nr)
{
	unsigned char enc[1024];
	size_t len = ut_encode(enc, frames, nr);

	return ut_add(t, cpu, ut_rec_stack(t->buf, pid, cookie, nr, 0, enc, len));
}

int ut_file(struct ut_trace *t, int cpu, unsigned int id, const char *path)
{
	return ut_add(t, cpu, ut_rec_file(t->buf, 1, id, 20, path));
}

void ut_two_waiting(struct ut_trace *t)
{
	ut_cookie(t, 0, P, K1);
	ut_event(t, 0, P, 1);
	ut_cookie(t, 1, Q, K2);
	ut_event(t, 1, Q, 2);
}

static const char * const ut_state_names[] = {
	"NONE", "STACK", "LOST", "UNKNOWN", "RAW",
};

bool ut_expect(struct ut_trace *t, size_t i, unsigned long long tag, enum ustack_state state,
	       enum ustack_lost lost, const char *file, unsigned int line)
{
	struct ut_seen *s;

	if (!utest_check(i < t->nr_seen, file, line, "event %zu not handed back (%zu were)", i,
			 t->nr_seen))
		return false;
	s = &t->seen[i];
	return utest_check(s->tag == tag && s->state == state && s->lost == lost, file, line,
			   "event %zu is tag %llu %s/%d, want tag %llu %s/%d", i, s->tag,
			   ut_state_names[s->state], s->lost, tag, ut_state_names[state], lost);
}

/* Start a page: its timestamp, commit (event bytes and the missed flag) after it. */
static bool ut_page_new(struct ut_pages *p, unsigned long long ts, bool missed)
{
	unsigned char *data = realloc(p->data, (p->nr + 1) * UT_PAGE);
	unsigned long long commit = missed ? UT_RB_MISSED_EVENTS : 0;

	if (!data)
		return false;
	p->data = data;
	data += p->nr++ * UT_PAGE;
	memset(data, 0, UT_PAGE);
	memcpy(data, &ts, 8);
	memcpy(data + 8, &commit, 8);
	p->used = 0;
	p->last_ts = ts;
	return true;
}

bool ut_pages_add(struct ut_pages *p, unsigned long long ts, const unsigned char *rec,
		  size_t size, bool missed)
{
	unsigned char *page;
	unsigned long long commit;
	uint32_t head;

	if (size % 4 || size > 28 * 4 || ts < p->last_ts || ts - p->last_ts >= (1U << 27))
		return false;
	if ((!p->nr || missed || 16 + p->used + 4 + size > UT_PAGE) &&
	    !ut_page_new(p, ts, missed))
		return false;
	page = p->data + (p->nr - 1) * UT_PAGE;
	/* type_len: the data length in words; time_delta: to the previous event */
	head = (size / 4) | (uint32_t)(ts - p->last_ts) << 5;
	memcpy(page + 16 + p->used, &head, 4);
	memcpy(page + 16 + p->used + 4, rec, size);
	p->used += 4 + size;
	p->last_ts = ts;
	memcpy(&commit, page + 8, 8);
	commit = (commit & UT_RB_MISSED_EVENTS) | p->used;
	memcpy(page + 8, &commit, 8);
	return true;
}

void ut_pages_free(struct ut_pages *p)
{
	free(p->data);
	memset(p, 0, sizeof(*p));
}

int ut_tracefs_mounts(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[4096], type[64];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %63s", type) == 1 &&
		    (!strcmp(type, "tracefs") || !strcmp(type, "debugfs")))
			n++;
	}
	fclose(f);
	return n;
}

/* Every counter of @st into @s; -1 when any read fails. */
int ut_get_stats(struct ustack_stitcher *st, struct ut_stats *s)
{
	static const struct {
		enum ustack_stat	what;
		size_t			off;
	} one[] = {
		{ USTACK_STAT_EVENTS, offsetof(struct ut_stats, events) },
		{ USTACK_STAT_STACKS, offsetof(struct ut_stats, stacks) },
		{ USTACK_STAT_STACKS_UNMATCHED, offsetof(struct ut_stats, stacks_unmatched) },
		{ USTACK_STAT_MALFORMED, offsetof(struct ut_stats, malformed) },
		{ USTACK_STAT_TASKS, offsetof(struct ut_stats, tasks) },
		{ USTACK_STAT_HELD, offsetof(struct ut_stats, held) },
		{ USTACK_STAT_HELD_BYTES, offsetof(struct ut_stats, held_bytes) },
		{ USTACK_STAT_PEAK_TASKS, offsetof(struct ut_stats, peak_tasks) },
		{ USTACK_STAT_PEAK_HELD, offsetof(struct ut_stats, peak_held) },
		{ USTACK_STAT_PEAK_HELD_BYTES, offsetof(struct ut_stats, peak_held_bytes) },
	};
	unsigned int i;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < UT_ARRAY_SIZE(one); i++)
		ret |= ustack_stitcher_get_stat(st, one[i].what, 0,
						(unsigned long long *)((char *)s + one[i].off));
	for (i = 0; i <= USTACK_STATE_RAW; i++)
		ret |= ustack_stitcher_get_stat(st, USTACK_STAT_STATE, i, &s->states[i]);
	for (i = 0; i < UT_LOST_NR; i++)
		ret |= ustack_stitcher_get_stat(st, USTACK_STAT_LOST, i, &s->lost[i]);
	return ret ? -1 : 0;
}
