// SPDX-License-Identifier: GPL-2.0
/*
 * Every sample kept as a profile of pprof's and OpenTelemetry's kind: the
 * frames as locations (a file and an offset in it, or a kernel address),
 * each with its functions (the innermost inlined one first) and, with
 * --srcline, their source files and lines; files as mappings with their
 * build-ids; the samples as lists of locations, the leaf first, with their
 * task, event and buffer. Every table is a dictionary: a frame, function,
 * file or string is kept once, however many samples have it. Both
 * formats are written from this (flame-pprof.c, flame-otlp.c).
 *
 * The names are those of the sample's folded line (the library's,
 * ustack_sample_fold()), so that a stack reads the same in every format;
 * the task, the line's first name, is a label here, not a frame. Names
 * are made valid UTF-8 (a byte that is not is U+FFFD): both formats keep
 * strings in proto3 string fields, which readers refuse otherwise.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <ustack.h>

#include "flame.h"

#define FLAME_KERNEL_FILE	"[kernel.kallsyms]"

/* Room for @need elements of @elem bytes in *@array, of *@size now. */
static int flame_grow(void *array, size_t *size, size_t need, size_t elem)
{
	void **a = array, *n;
	size_t size_new;

	if (need <= *size)
		return 0;
	size_new = *size ? 2 * *size : 64;
	if (size_new < need)
		size_new = need;
	if (size_new > SIZE_MAX / elem) {
		errno = ENOMEM;
		return -1;
	}
	n = realloc(*a, size_new * elem);
	if (!n)
		return -1;
	*a = n;
	*size = size_new;
	return 0;
}

/**
 * flame_dict_add - the index of a key, the key added when new
 * @d: the dictionary (zeroed before its first use)
 * @key: any bytes
 * @len: their number, not 0
 * @added: set to whether it was new; may be NULL
 *
 * Return: its index, from 1 in the order added; 0 with errno ENOMEM.
 */
unsigned long flame_dict_add(struct flame_dict *d, const void *key, size_t len, bool *added)
{
	struct flame_line *line = flame_counts_find(&d->keys, key, len);

	if (added)
		*added = !line;
	if (line)
		return line->count;
	if (flame_grow(&d->text, &d->size, d->nr + 1, sizeof(*d->text)) ||
	    flame_counts_add(&d->keys, key, len, 1))
		return 0;
	line = flame_counts_find(&d->keys, key, len);
	line->count = ++d->nr;
	d->text[d->nr - 1] = line->text;
	return d->nr;
}

/**
 * flame_dict_free - free a dictionary
 * @d: zeroed, ready for use again
 */
void flame_dict_free(struct flame_dict *d)
{
	flame_counts_free(&d->keys);
	free(d->text);
	memset(d, 0, sizeof(*d));
}

/* Room for @size bytes in the scratch buffer. */
static int flame_profile_buf(struct flame_profile *p, size_t size)
{
	return flame_grow(&p->buf, &p->buf_size, size, 1);
}

/**
 * flame_profile_string - the index of a string, in the profile's string table
 * @p: the profile
 * @text: the string; need not end with a NUL
 * @len: its length
 *
 * A byte of @text that is not valid UTF-8 is written U+FFFD.
 *
 * Return: the index; 0 for an empty string, and with errno ENOMEM.
 */
unsigned long flame_profile_string(struct flame_profile *p, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i, n, out = 0;

	if (!len)
		return 0;
	/* most names are ASCII: as they are */
	for (i = 0; i < len && s[i] < 0x80; i++)
		;
	if (i == len)
		return flame_dict_add(&p->strings, text, len, NULL);
	/* at most three bytes for each byte of @text */
	if (len > SIZE_MAX / 3 || flame_profile_buf(p, 3 * len)) {
		errno = ENOMEM;
		return 0;
	}
	for (i = 0; i < len; i += n) {
		n = flame_utf8_len(s + i, len - i);
		if (n) {
			memcpy(p->buf + out, s + i, n);
			out += n;
		} else {
			memcpy(p->buf + out, "\xef\xbf\xbd", 3);
			out += 3;
			n = 1;
		}
	}
	return flame_dict_add(&p->strings, p->buf, out, NULL);
}

static unsigned long flame_profile_cstring(struct flame_profile *p, const char *text)
{
	return text ? flame_profile_string(p, text, strlen(text)) : 0;
}

/* The mapping of a file (or of the kernel: @path NULL); 0 with errno ENOMEM. */
static unsigned long flame_profile_mapping(struct flame_profile *p, const char *path,
					   const unsigned char *build_id, size_t build_id_size,
					   unsigned long long address)
{
	size_t path_len = path ? strlen(path) : 0, key_len = 1 + path_len + 1 + build_id_size;
	struct flame_pmapping *m;
	unsigned long index;
	char hex[2 * USTACK_BUILD_ID_MAX + 1];
	bool added;
	size_t i;

	if (flame_profile_buf(p, key_len))
		return 0;
	/* memcpy() of NULL is undefined, even of no bytes */
	p->buf[0] = path ? 'f' : 'k';
	if (path)
		memcpy(p->buf + 1, path, path_len);
	p->buf[1 + path_len] = '\0';
	if (build_id_size)
		memcpy(p->buf + 2 + path_len, build_id, build_id_size);
	index = flame_dict_add(&p->mapping_keys, p->buf, key_len, &added);
	if (!index)
		return 0;
	if (added) {
		if (flame_grow(&p->mappings, &p->size_mappings, p->mapping_keys.nr, sizeof(*p->mappings)))
			return 0;
		m = &p->mappings[index - 1];
		memset(m, 0, sizeof(*m));
		m->kernel = !path;
		m->file = flame_profile_cstring(p, path ? path : FLAME_KERNEL_FILE);
		if (build_id_size > USTACK_BUILD_ID_MAX)
			build_id_size = USTACK_BUILD_ID_MAX;
		for (i = 0; i < build_id_size; i++)
			sprintf(hex + 2 * i, "%02x", build_id[i]);
		m->build_id = flame_profile_string(p, hex, 2 * build_id_size);
		/* a file's addresses are offsets in it: from 0, as its file offsets are */
		m->start = path ? 0 : address;
		if (!m->file || (build_id_size && !m->build_id))
			return 0;
	}
	m = &p->mappings[index - 1];
	if (address < m->start)
		m->start = address;
	if (address >= m->limit)
		m->limit = address + 1;
	return index;
}

/* A function of a name and a source file; 0 with errno ENOMEM. */
static unsigned long flame_profile_function(struct flame_profile *p, unsigned long name,
					    unsigned long file)
{
	unsigned long key[2] = { name, file }, index;
	bool added;

	index = flame_dict_add(&p->function_keys, key, sizeof(key), &added);
	if (index && added) {
		if (flame_grow(&p->functions, &p->size_functions, p->function_keys.nr, sizeof(*p->functions)))
			return 0;
		p->functions[index - 1].name = name;
		p->functions[index - 1].file = file;
	}
	return index;
}

/*
 * The location of a frame, its @nr lines the last ones of p->lines (added
 * by the caller, the innermost function first): they stay when the
 * location is new, else they go. 0 with errno ENOMEM.
 */
static unsigned long flame_profile_location(struct flame_profile *p, unsigned long mapping,
					    unsigned long long address, unsigned int nr)
{
	size_t first = p->nr_lines - nr, key_len = 2 * sizeof(unsigned long long) +
		       nr * sizeof(struct flame_pline);
	struct flame_plocation *l;
	unsigned long long head[2] = { mapping, address };
	unsigned long index;
	bool added;

	if (flame_profile_buf(p, key_len))
		return 0;
	memcpy(p->buf, head, sizeof(head));
	memcpy(p->buf + sizeof(head), p->lines + first, nr * sizeof(*p->lines));
	index = flame_dict_add(&p->location_keys, p->buf, key_len, &added);
	if (!index)
		return 0;
	if (!added) {
		p->nr_lines = first;
		return index;
	}
	if (flame_grow(&p->locations, &p->size_locations, p->location_keys.nr,
		       sizeof(*p->locations)))
		return 0;
	l = &p->locations[index - 1];
	l->mapping = mapping;
	l->address = address;
	l->first_line = first;
	l->nr_lines = nr;
	return index;
}

/* A line of a location to come: a function of @name, in @file at @line. */
static int flame_profile_line(struct flame_profile *p, const char *name, size_t len,
			      const char *file, unsigned int line)
{
	unsigned long name_index, file_index = 0, function;

	if (flame_grow(&p->lines, &p->size_lines, p->nr_lines + 1, sizeof(*p->lines)))
		return -1;
	errno = 0;
	name_index = flame_profile_string(p, name, len);
	if (file)
		file_index = flame_profile_cstring(p, file);
	if (errno)
		return -1;
	function = flame_profile_function(p, name_index, file_index);
	if (!function)
		return -1;
	p->lines[p->nr_lines].function = function;
	p->lines[p->nr_lines].line = line;
	p->nr_lines++;
	return 0;
}

/* A location of one name and no file: a mark ("[stack lost]"), or a frame of the fallback. */
static unsigned long flame_profile_mark(struct flame_profile *p, const char *name, size_t len)
{
	if (flame_profile_line(p, name, len, NULL, 0))
		return 0;
	return flame_profile_location(p, 0, 0, 1);
}

/*
 * How many names the folded line has for a user frame: one, and with
 * --inlines one for each function inlined at it (ustack_sample_fold()'s
 * rule); its source entries in *@src, the innermost first, when it has them.
 */
static int flame_profile_sources(struct flame_profile *p, const struct ustack_frame *frame,
				 const struct ustack_source **src, int *nr_src)
{
	unsigned int flags = frame->flags & USTACK_FRAME_RETURN ? USTACK_LOOKUP_RETURN : 0;
	struct ustack_symbol symbol;
	bool inlines;
	int n;

	*nr_src = 0;
	if (!p->sym || !frame->file_id || !frame->path)
		return 1;
	inlines = ustack_symbolizer_get_flags(p->sym) & USTACK_SYMBOLIZE_INLINES;
	if (!inlines && !p->srcline)
		return 1;
	if (ustack_symbolizer_lookup(p->sym, frame->path, frame->build_id, frame->build_id_size,
				     frame->offset, flags, &symbol) || !symbol.resolved)
		return 1;
	n = ustack_symbolizer_lookup_source(p->sym, frame->path, frame->build_id,
					    frame->build_id_size, frame->offset, flags, src);
	if (n <= 0)
		return 1;
	*nr_src = n;
	return inlines && n > 1 ? n : 1;
}

/* A user frame of @nr names (outermost first): its location; 0 with errno. */
static unsigned long flame_profile_user(struct flame_profile *p, const struct ustack_frame *frame,
					const char * const *names, const size_t *lens,
					unsigned int nr, const struct ustack_source *src,
					int nr_src)
{
	const struct ustack_source *s;
	unsigned long mapping = 0;
	unsigned int i;

	if (frame->file_id && frame->path) {
		mapping = flame_profile_mapping(p, frame->path, frame->build_id,
						frame->build_id_size, frame->offset);
		if (!mapping)
			return 0;
	}
	for (i = 0; i < nr; i++) {
		/* the innermost first; one line alone is the outer function's */
		s = !p->srcline || !nr_src ? NULL : nr == 1 ? &src[nr_src - 1] : &src[i];
		if (flame_profile_line(p, names[nr - 1 - i], lens[nr - 1 - i], s ? s->file : NULL,
				       s ? s->line : 0))
			return 0;
	}
	return flame_profile_location(p, mapping, frame->offset, nr);
}

/* The line's names into p->names, without the task; their number. */
static long flame_profile_names(struct flame_profile *p, const struct flame_sample *s)
{
	const char *name = s->line, *end = s->line + s->len, *sep;
	size_t nr = 0;

	for (; name <= end; name = sep + 1) {
		sep = memchr(name, ';', end - name);
		if (!sep)
			sep = end;
		if (flame_grow(&p->names, &p->size_names, nr + 1, sizeof(*p->names)) ||
		    flame_grow(&p->name_lens, &p->size_name_lens, nr + 1, sizeof(*p->name_lens)))
			return -1;
		p->names[nr] = name;
		p->name_lens[nr++] = sep - name;
	}
	if (s->task && nr) {
		memmove(p->names, p->names + 1, --nr * sizeof(*p->names));
		memmove(p->name_lens, p->name_lens + 1, nr * sizeof(*p->name_lens));
	}
	return nr;
}

/*
 * The locations of a sample, outermost first, into p->stack: [unwind]
 * [mark] user frames... [lost mark] kernel frames..., as its folded line
 * has them (the unwind mark with --unwind).
 * When the names are not the frames one for one, each name is a location
 * of its own, with no file: the line is still right.
 */
static int flame_profile_frames(struct flame_profile *p, const struct flame_sample *s,
				size_t nr)
{
	const struct ustack_sample *us = s->sample;
	const struct ustack_stack *stack = s->stack;
	const struct ustack_frame *frame;
	const struct ustack_source *src;
	size_t k = 0, user = 0, before;
	unsigned long loc, mapping;
	unsigned int i;
	int n, nr_src;

	before = stack && (stack->flags & (USTACK_STACK_NO_STACK | USTACK_STACK_TRUNCATED |
					   USTACK_STACK_MALFORMED)) ? 1 : 0;
	before += s->unwind ? 1 : 0;
	for (i = 0; stack && i < stack->nr; i++)
		user += flame_profile_sources(p, ustack_stack_frame(stack, i), &src, &nr_src);
	if (before + user + !!s->why + us->nr_kernel != nr)
		goto names;
	for (; k < before; k++) {
		loc = flame_profile_mark(p, p->names[k], p->name_lens[k]);
		if (!loc)
			return -1;
		p->stack[p->nr_stack++] = loc;
	}
	for (i = stack ? stack->nr : 0; i-- > 0;) {
		frame = ustack_stack_frame(stack, i);
		n = flame_profile_sources(p, frame, &src, &nr_src);
		loc = flame_profile_user(p, frame, p->names + k, p->name_lens + k, n, src, nr_src);
		if (!loc)
			return -1;
		p->stack[p->nr_stack++] = loc;
		k += n;
	}
	if (s->why) {
		loc = flame_profile_mark(p, p->names[k], p->name_lens[k]);
		if (!loc)
			return -1;
		p->stack[p->nr_stack++] = loc;
		k++;
	}
	for (i = us->nr_kernel; i-- > 0; k++) {
		if (flame_profile_line(p, p->names[k], p->name_lens[k], NULL, 0))
			return -1;
		mapping = flame_profile_mapping(p, NULL, NULL, 0, us->kernel[i]);
		loc = mapping ? flame_profile_location(p, mapping, us->kernel[i], 1) : 0;
		if (!loc)
			return -1;
		p->stack[p->nr_stack++] = loc;
	}
	return 0;
names:
	for (k = 0; k < nr; k++) {
		loc = flame_profile_mark(p, p->names[k], p->name_lens[k]);
		if (!loc)
			return -1;
		p->stack[p->nr_stack++] = loc;
	}
	return 0;
}

/* The task's name as the folded line's first frame has it: ";" and control characters "_" */
static unsigned long flame_profile_comm(struct flame_profile *p, const char *comm)
{
	char name[64];
	size_t i;

	snprintf(name, sizeof(name), "%s", comm);
	for (i = 0; name[i]; i++) {
		if (name[i] == ';' || (unsigned char)name[i] < 0x20)
			name[i] = '_';
	}
	return flame_profile_string(p, name, i);
}

/**
 * flame_profile_sample - keep a sample, with its frames as locations
 * @sample: the sample, with its folded line
 * @context: the struct flame_profile
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int flame_profile_sample(const struct flame_sample *sample, void *context)
{
	const struct ustack_sample *us = sample->sample;
	struct flame_profile *p = context;
	struct flame_psample *ps;
	size_t first = p->nr_stack, i, j;
	uint64_t tmp;
	char event[256];
	long nr;

	nr = flame_profile_names(p, sample);
	if (nr < 0 || flame_grow(&p->stack, &p->size_stack, p->nr_stack + nr, sizeof(*p->stack)) ||
	    flame_grow(&p->samples, &p->size_samples, p->nr_samples + 1, sizeof(*p->samples)))
		return -1;
	if (flame_profile_frames(p, sample, nr)) {
		p->nr_stack = first;
		return -1;
	}
	/* the leaf first */
	for (i = first, j = p->nr_stack; i + 1 < j; i++, j--) {
		tmp = p->stack[i];
		p->stack[i] = p->stack[j - 1];
		p->stack[j - 1] = tmp;
	}
	ps = &p->samples[p->nr_samples];
	ps->ts = us->ts;
	ps->first = first;
	ps->nr = p->nr_stack - first;
	ps->tid = us->pid;
	errno = 0;
	ps->comm = flame_profile_comm(p, sample->comm);
	snprintf(event, sizeof(event), "%s:%s", us->event->system, us->event->name);
	ps->event = flame_profile_cstring(p, event);
	ps->buffer = flame_profile_cstring(p, sample->buffer);
	if (errno)
		return -1;
	ps->gap = 0;
	if (p->gaps && flame_gaps_next(p->gaps, ps->tid, us->ts, &ps->gap))
		return -1;
	if (!p->nr_samples || us->ts < p->first_ts)
		p->first_ts = us->ts;
	if (!p->nr_samples || us->ts > p->last_ts)
		p->last_ts = us->ts;
	p->nr_samples++;
	return 0;
}

/**
 * flame_gaps_next - the time from a task's previous event to this one
 * @g: the tasks' last events' times
 * @tid: the task
 * @ts: the time of its event, of the trace's clock
 * @gap: set to @ts less the time of the task's previous event: 0 for its
 *	first event, and for an event before its previous one (which stays
 *	the task's last)
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int flame_gaps_next(struct flame_gaps *g, int tid, unsigned long long ts,
		    unsigned long long *gap)
{
	struct flame_line *last = flame_counts_find(&g->last, (const char *)&tid, sizeof(tid));

	*gap = 0;
	if (!last) {
		if (flame_counts_add(&g->last, (const char *)&tid, sizeof(tid), 0))
			return -1;
		last = flame_counts_find(&g->last, (const char *)&tid, sizeof(tid));
	} else if (ts > last->count) {
		*gap = ts - last->count;
	}
	if (ts > last->count)
		last->count = ts;
	return 0;
}

/**
 * flame_gaps_free - free the tasks' times
 * @g: zeroed, ready for use again
 */
void flame_gaps_free(struct flame_gaps *g)
{
	flame_counts_free(&g->last);
}

/**
 * flame_profile_free - free what the profile kept
 * @p: zeroed, ready for use again
 */
void flame_profile_free(struct flame_profile *p)
{
	flame_dict_free(&p->strings);
	flame_dict_free(&p->mapping_keys);
	flame_dict_free(&p->function_keys);
	flame_dict_free(&p->location_keys);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->lines);
	free(p->samples);
	free(p->stack);
	free(p->buf);
	free(p->names);
	free(p->name_lens);
	memset(p, 0, sizeof(*p));
}
