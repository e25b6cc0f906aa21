// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as pprof's profile.proto (github google/pprof), gzipped, as
 * go tool pprof, Parca, Pyroscope and Grafana read it: a sample per event,
 * its value 1 of the sample type "events"/"count" and, with --time, its
 * task's time since its previous event of the sample type
 * "time"/"nanoseconds"; its stack as locations
 * (the leaf first), and labels for its task (comm, tid), its event
 * ("system:name") and its buffer (an instance; none for the top level).
 * The message is built with the code protoc-c made from our
 * proto/pprof.proto and packed by libprotobuf-c, straight into zlib's gzip
 * stream: no copy of the packed message is kept.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "flame.h"
#include "pprof.pb-c.h"

/* libprotobuf-c's output, gzipped into a file as it comes */
struct flame_gzip {
	ProtobufCBuffer		base;		/* first: what libprotobuf-c calls */
	FILE			*out;
	z_stream		z;
	int			error;		/* errno of the first failure */
};

static int flame_gzip_run(struct flame_gzip *g, int flush)
{
	unsigned char chunk[65536];
	int ret;

	do {
		g->z.next_out = chunk;
		g->z.avail_out = sizeof(chunk);
		ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR) {
			g->error = EIO;
			return -1;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - g->z.avail_out, g->out) !=
		    sizeof(chunk) - g->z.avail_out) {
			flame_write_error(g->out);
			g->error = errno;
			return -1;
		}
	} while (!g->z.avail_out || (flush == Z_FINISH && ret != Z_STREAM_END));
	return 0;
}

static void flame_gzip_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	struct flame_gzip *g = (struct flame_gzip *)buffer;

	while (len && !g->error) {
		/* avail_in is an unsigned int */
		g->z.next_in = (unsigned char *)data;
		g->z.avail_in = len > (1U << 30) ? 1U << 30 : len;
		data += g->z.avail_in;
		len -= g->z.avail_in;
		flame_gzip_run(g, Z_NO_FLUSH);
	}
}

/* @msg packed and gzipped into @out; -1 with errno. */
static int flame_gzip_pack(FILE *out, const ProtobufCMessage *msg)
{
	struct flame_gzip g = { .base.append = flame_gzip_append, .out = out };

	/* 15 bits of window, +16: a gzip header and trailer, not zlib's */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	protobuf_c_message_pack_to_buffer(msg, &g.base);
	if (!g.error)
		flame_gzip_run(&g, Z_FINISH);
	deflateEnd(&g.z);
	if (g.error) {
		errno = g.error;
		return -1;
	}
	return 0;
}

/* The labels of a sample, with the names of their keys; the buffer last */
enum { FLAME_LABEL_COMM, FLAME_LABEL_TID, FLAME_LABEL_EVENT, FLAME_LABEL_BUFFER, FLAME_LABELS };

/* What the message points to, allocated for it */
struct flame_pprof {
	Perftools__Profiles__Profile		profile;
	Perftools__Profiles__ValueType		type;
	Perftools__Profiles__ValueType		time_type;	/* --time */
	Perftools__Profiles__ValueType		*types[2];
	int64_t					*values;	/* --time: 2 a sample */
	Perftools__Profiles__ValueType		period_type;
	Perftools__Profiles__Sample		*samples;
	Perftools__Profiles__Sample		**sample_ptrs;
	struct flame_dict			sets;		/* label sets: the values */
	Perftools__Profiles__Label		*labels;	/* FLAME_LABELS a set */
	Perftools__Profiles__Label		**label_ptrs;
	Perftools__Profiles__Mapping		*mappings;
	Perftools__Profiles__Mapping		**mapping_ptrs;
	Perftools__Profiles__Location		*locations;
	Perftools__Profiles__Location		**location_ptrs;
	Perftools__Profiles__Line		*lines;
	Perftools__Profiles__Line		**line_ptrs;
	Perftools__Profiles__Function		*functions;
	Perftools__Profiles__Function		**function_ptrs;
	char					**strings;
	int64_t					comment;
};


static void flame_pprof_free(struct flame_pprof *pp)
{
	free(pp->samples);
	free(pp->sample_ptrs);
	free(pp->values);
	flame_dict_free(&pp->sets);
	free(pp->labels);
	free(pp->label_ptrs);
	free(pp->mappings);
	free(pp->mapping_ptrs);
	free(pp->locations);
	free(pp->location_ptrs);
	free(pp->lines);
	free(pp->line_ptrs);
	free(pp->functions);
	free(pp->function_ptrs);
	free(pp->strings);
}

static int flame_pprof_alloc(struct flame_pprof *pp, const struct flame_profile *p)
{
	pp->samples = calloc(p->nr_samples, sizeof(*pp->samples));
	pp->sample_ptrs = calloc(p->nr_samples, sizeof(*pp->sample_ptrs));
	if (p->gaps)
		pp->values = calloc(2 * p->nr_samples + 1, sizeof(*pp->values));
	pp->mappings = calloc(p->mapping_keys.nr + 1, sizeof(*pp->mappings));
	pp->mapping_ptrs = calloc(p->mapping_keys.nr + 1, sizeof(*pp->mapping_ptrs));
	pp->locations = calloc(p->location_keys.nr + 1, sizeof(*pp->locations));
	pp->location_ptrs = calloc(p->location_keys.nr + 1, sizeof(*pp->location_ptrs));
	pp->lines = calloc(p->nr_lines + 1, sizeof(*pp->lines));
	pp->line_ptrs = calloc(p->nr_lines + 1, sizeof(*pp->line_ptrs));
	pp->functions = calloc(p->function_keys.nr + 1, sizeof(*pp->functions));
	pp->function_ptrs = calloc(p->function_keys.nr + 1, sizeof(*pp->function_ptrs));
	pp->strings = calloc(p->strings.nr + 1, sizeof(*pp->strings));
	if (!pp->samples || !pp->sample_ptrs || !pp->mappings || !pp->mapping_ptrs || !pp->locations ||
	    !pp->location_ptrs || !pp->lines || !pp->line_ptrs || !pp->functions ||
	    !pp->function_ptrs || !pp->strings || (p->gaps && !pp->values)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Each sample's set of labels, each set once (index - 1 of pp->sets); -1 with errno ENOMEM. */
static int flame_pprof_sets(struct flame_pprof *pp, const struct flame_profile *p,
			    size_t *set)
{
	unsigned long key[FLAME_LABELS];
	size_t i;

	for (i = 0; i < p->nr_samples; i++) {
		key[FLAME_LABEL_COMM] = p->samples[i].comm;
		key[FLAME_LABEL_TID] = p->samples[i].tid;
		key[FLAME_LABEL_EVENT] = p->samples[i].event;
		key[FLAME_LABEL_BUFFER] = p->samples[i].buffer;
		set[i] = flame_dict_add(&pp->sets, key, sizeof(key), NULL);
		if (!set[i])
			return -1;
	}
	pp->labels = calloc(pp->sets.nr * FLAME_LABELS, sizeof(*pp->labels));
	pp->label_ptrs = calloc(pp->sets.nr * FLAME_LABELS, sizeof(*pp->label_ptrs));
	if (!pp->labels || !pp->label_ptrs) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void flame_pprof_samples(struct flame_pprof *pp, const struct flame_profile *p,
				const unsigned long *keys, const size_t *set)
{
	static int64_t one = 1;
	Perftools__Profiles__Label *l, **lp;
	const unsigned long *values;
	Perftools__Profiles__Sample *s;
	size_t i, j;

	for (i = 0; i < pp->sets.nr; i++) {
		values = (const unsigned long *)pp->sets.text[i];
		l = pp->labels + i * FLAME_LABELS;
		lp = pp->label_ptrs + i * FLAME_LABELS;
		for (j = 0; j < FLAME_LABELS; j++) {
			perftools__profiles__label__init(&l[j]);
			l[j].key = keys[j];
			lp[j] = &l[j];
		}
		l[FLAME_LABEL_COMM].str = values[FLAME_LABEL_COMM];
		l[FLAME_LABEL_TID].num = (int)values[FLAME_LABEL_TID];
		l[FLAME_LABEL_EVENT].str = values[FLAME_LABEL_EVENT];
		l[FLAME_LABEL_BUFFER].str = values[FLAME_LABEL_BUFFER];
	}
	for (i = 0; i < p->nr_samples; i++) {
		s = &pp->samples[i];
		perftools__profiles__sample__init(s);
		s->n_location_id = p->samples[i].nr;
		/* the profile's own array: packed, not changed */
		s->location_id = p->stack + p->samples[i].first;
		s->n_value = 1;
		s->value = &one;
		if (p->gaps) {
			s->n_value = 2;
			s->value = pp->values + 2 * i;
			s->value[0] = 1;
			s->value[1] = p->samples[i].gap;
		}
		/* the top level has no buffer label: it is the last */
		s->n_label = p->samples[i].buffer ? FLAME_LABELS : FLAME_LABELS - 1;
		s->label = pp->label_ptrs + (set[i] - 1) * FLAME_LABELS;
		pp->sample_ptrs[i] = s;
	}
	pp->profile.n_sample = p->nr_samples;
	pp->profile.sample = pp->sample_ptrs;
}

static void flame_pprof_tables(struct flame_pprof *pp, const struct flame_profile *p)
{
	bool lines = p->srcline, inlines = false;
	const struct flame_plocation *pl;
	const struct flame_pmapping *pm;
	Perftools__Profiles__Location *l;
	Perftools__Profiles__Mapping *m;
	size_t i, j;

	for (i = 0; i < p->location_keys.nr; i++)
		inlines |= p->locations[i].nr_lines > 1;
	for (i = 0; i < p->mapping_keys.nr; i++) {
		pm = &p->mappings[i];
		m = &pp->mappings[i];
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = pm->start;
		m->memory_limit = pm->limit;
		m->filename = pm->file;
		m->build_id = pm->build_id;
		/* every location has its functions: no reader needs to look them up */
		m->has_functions = true;
		m->has_filenames = lines && !pm->kernel;
		m->has_line_numbers = lines && !pm->kernel;
		m->has_inline_frames = inlines && !pm->kernel;
		pp->mapping_ptrs[i] = m;
	}
	for (i = 0; i < p->nr_lines; i++) {
		perftools__profiles__line__init(&pp->lines[i]);
		pp->lines[i].function_id = p->lines[i].function;
		pp->lines[i].line = p->lines[i].line;
		pp->line_ptrs[i] = &pp->lines[i];
	}
	for (i = 0; i < p->location_keys.nr; i++) {
		pl = &p->locations[i];
		l = &pp->locations[i];
		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = pl->mapping;
		l->address = pl->address;
		l->n_line = pl->nr_lines;
		l->line = pp->line_ptrs + pl->first_line;
		pp->location_ptrs[i] = l;
	}
	for (i = 0; i < p->function_keys.nr; i++) {
		perftools__profiles__function__init(&pp->functions[i]);
		pp->functions[i].id = i + 1;
		pp->functions[i].name = p->functions[i].name;
		pp->functions[i].system_name = p->functions[i].name;
		pp->functions[i].filename = p->functions[i].file;
		pp->function_ptrs[i] = &pp->functions[i];
	}
	pp->strings[0] = "";
	for (j = 0; j < p->strings.nr; j++)
		pp->strings[j + 1] = (char *)p->strings.text[j];
	pp->profile.n_mapping = p->mapping_keys.nr;
	pp->profile.mapping = pp->mapping_ptrs;
	pp->profile.n_location = p->location_keys.nr;
	pp->profile.location = pp->location_ptrs;
	pp->profile.n_function = p->function_keys.nr;
	pp->profile.function = pp->function_ptrs;
	pp->profile.n_string_table = p->strings.nr + 1;
	pp->profile.string_table = pp->strings;
}

/**
 * flame_write_pprof - write the profile as a gzipped pprof profile.proto
 * @out: where to
 * @p: the profile; the strings of the format are added to it
 * @name: what it is of (the trace file), for its comment
 *
 * Return: 0; -1 with errno (ENOMEM, or the error of writing).
 */
int flame_write_pprof(FILE *out, struct flame_profile *p, const char *name)
{
	static const char * const label_keys[FLAME_LABELS] = {
		[FLAME_LABEL_COMM]	= "comm",
		[FLAME_LABEL_TID]	= "tid",
		[FLAME_LABEL_EVENT]	= "event",
		[FLAME_LABEL_BUFFER]	= "buffer",
	};
	struct flame_pprof pp = { 0 };
	unsigned long keys[FLAME_LABELS], events, count, time_name = 0, ns = 0;
	size_t *set = NULL;
	char comment[512];
	int ret = -1;
	size_t i;

	errno = 0;
	events = flame_profile_string(p, "events", 6);
	count = flame_profile_string(p, "count", 5);
	for (i = 0; i < FLAME_LABELS; i++)
		keys[i] = flame_profile_string(p, label_keys[i], strlen(label_keys[i]));
	snprintf(comment, sizeof(comment), "ustack-flame %s: an event a sample, of %s",
		 FLAME_VERSION, name);
	/* only with --time: a profile without it stays as it was */
	if (p->gaps) {
		time_name = flame_profile_string(p, "time", 4);
		ns = flame_profile_string(p, "nanoseconds", 11);
	}
	pp.comment = flame_profile_string(p, comment, strlen(comment));
	if (errno || flame_pprof_alloc(&pp, p))
		goto out;
	set = calloc(p->nr_samples ? p->nr_samples : 1, sizeof(*set));
	if (!set || flame_pprof_sets(&pp, p, set))
		goto out;
	perftools__profiles__profile__init(&pp.profile);
	perftools__profiles__value_type__init(&pp.type);
	pp.type.type = events;
	pp.type.unit = count;
	pp.types[0] = &pp.type;
	pp.period_type = pp.type;
	pp.profile.n_sample_type = 1;
	pp.profile.sample_type = pp.types;
	if (p->gaps) {
		perftools__profiles__value_type__init(&pp.time_type);
		pp.time_type.type = time_name;
		pp.time_type.unit = ns;
		pp.types[1] = &pp.time_type;
		pp.profile.n_sample_type = 2;
	}
	pp.profile.period_type = &pp.period_type;
	pp.profile.period = 1;
	pp.profile.default_sample_type = events;
	pp.profile.n_comment = 1;
	pp.profile.comment = &pp.comment;
	pp.profile.time_nanos = p->first_ts;
	pp.profile.duration_nanos = p->last_ts - p->first_ts;
	flame_pprof_samples(&pp, p, keys, set);
	flame_pprof_tables(&pp, p);
	ret = flame_gzip_pack(out, &pp.profile.base);
out:
	free(set);
	flame_pprof_free(&pp);
	return ret;
}
