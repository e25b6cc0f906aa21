// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as OpenTelemetry profiles (opentelemetry-proto v1.11.0,
 * profiles/v1development): an ExportProfilesServiceRequest, the body an
 * OTLP/HTTP exporter posts, with one resource (the traced host), one scope
 * (ustack-flame) and one profile whose sample type is "events"/"count".
 * Its tables are the request's dictionary, each with the zero value at
 * index 0 as the specification asks. A sample is a stack with a set of
 * attributes (thread.id, thread.name, ustack.event, ustack.buffer), the
 * events that have both as its values (1 each) and their timestamps, as
 * the specification asks samples of the same identity to be combined.
 * With --time, a second profile of the sample type "time"/"nanoseconds"
 * follows in the same scope: the same samples (stacks, attributes and
 * timestamps, of the same dictionary), each event's value its task's time
 * since its previous event.
 * Mappings carry the file's GNU build-id as the attribute
 * process.executable.build_id.gnu. Built with the code protoc-c made from
 * our proto/otlp-profiles.proto, packed by libprotobuf-c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "otlp-profiles.pb-c.h"

typedef Ustack__Otlp__AnyValue		flame_any;
typedef Ustack__Otlp__KeyValueAndUnit	flame_attr;

/* The attributes of a sample */
enum { FLAME_ATTR_TID, FLAME_ATTR_COMM, FLAME_ATTR_EVENT, FLAME_ATTR_BUFFER, FLAME_ATTRS };

/* An attribute of the dictionary: its key and value, by index */
struct flame_oattr {
	unsigned long		key;		/* strings */
	unsigned long		is_int;		/* a word, so that the key has no padding */
	long long		value;		/* an int; else strings */
};

struct flame_otlp {
	struct flame_profile	*p;
	struct flame_dict	attr_keys;
	struct flame_oattr	*attrs;
	size_t			size_attrs;
	struct flame_dict	stack_keys;
	size_t			*stack_first;	/* by stack index - 1: into the profile's stack */
	unsigned int		*stack_nr;
	size_t			size_stacks;
	struct flame_dict	sample_keys;
	size_t			*event_sample;	/* by event: its sample index - 1 */
	unsigned long		*mapping_attr;	/* by mapping index - 1: its build-id's; 0 */
};

/* Room for @need in @array of @size elements of @elem bytes: a new size */
static int flame_otlp_grow(void *array, size_t size, size_t need, size_t elem)
{
	void **a = array, *n;

	if (need <= size)
		return 0;
	n = realloc(*a, need * elem);
	if (!n)
		return -1;
	*a = n;
	return 0;
}

/* The index of an attribute (int or string); 0 with errno ENOMEM. */
static unsigned long flame_otlp_attr(struct flame_otlp *o, unsigned long key, bool is_int,
				     long long value)
{
	struct flame_oattr a = { .key = key, .is_int = is_int, .value = value };
	unsigned long index;
	bool added;

	index = flame_dict_add(&o->attr_keys, &a, sizeof(a), &added);
	if (index && added) {
		if (index > o->size_attrs) {
			if (flame_otlp_grow(&o->attrs, o->size_attrs, 2 * index, sizeof(*o->attrs)))
				return 0;
			o->size_attrs = 2 * index;
		}
		o->attrs[index - 1] = a;
	}
	return index;
}

/* Each event's stack, attributes and sample; 0, or -1 with errno ENOMEM. */
static int flame_otlp_index(struct flame_otlp *o, const unsigned long *keys)
{
	struct flame_profile *p = o->p;
	const struct flame_psample *ps;
	unsigned long key[1 + FLAME_ATTRS], stack;
	unsigned int nr;
	bool added;
	size_t i;

	o->event_sample = calloc(p->nr_samples ? p->nr_samples : 1, sizeof(*o->event_sample));
	if (!o->event_sample)
		return -1;
	for (i = 0; i < p->nr_samples; i++) {
		ps = &p->samples[i];
		stack = flame_dict_add(&o->stack_keys, p->stack + ps->first,
				       ps->nr * sizeof(*p->stack), &added);
		if (!stack)
			return -1;
		if (added && stack > o->size_stacks) {
			if (flame_otlp_grow(&o->stack_first, o->size_stacks, 2 * stack,
					    sizeof(*o->stack_first)) ||
			    flame_otlp_grow(&o->stack_nr, o->size_stacks, 2 * stack,
					    sizeof(*o->stack_nr)))
				return -1;
			o->size_stacks = 2 * stack;
		}
		o->stack_first[stack - 1] = ps->first;
		o->stack_nr[stack - 1] = ps->nr;
		key[0] = stack;
		key[1 + FLAME_ATTR_TID] = flame_otlp_attr(o, keys[FLAME_ATTR_TID], true, ps->tid);
		key[1 + FLAME_ATTR_COMM] = flame_otlp_attr(o, keys[FLAME_ATTR_COMM], false,
							   ps->comm);
		key[1 + FLAME_ATTR_EVENT] = flame_otlp_attr(o, keys[FLAME_ATTR_EVENT], false,
							    ps->event);
		/* the top level has no buffer attribute */
		key[1 + FLAME_ATTR_BUFFER] = ps->buffer ?
			flame_otlp_attr(o, keys[FLAME_ATTR_BUFFER], false, ps->buffer) : 0;
		for (nr = 1; nr <= FLAME_ATTRS; nr++) {
			if (!key[nr] && (nr != 1 + FLAME_ATTR_BUFFER || ps->buffer))
				return -1;
		}
		o->event_sample[i] = flame_dict_add(&o->sample_keys, key, sizeof(key), NULL);
		if (!o->event_sample[i])
			return -1;
	}
	return 0;
}

/* What the message points to, allocated for it */
struct flame_omsg {
	Ustack__Otlp__ExportProfilesServiceRequest	req;
	Ustack__Otlp__ResourceProfiles			rp, *rps[1];
	Ustack__Otlp__Resource				resource;
	Ustack__Otlp__KeyValue				res_kv[2], *res_kvs[2];
	flame_any					res_val[2];
	Ustack__Otlp__ScopeProfiles			sp, *sps[1];
	Ustack__Otlp__InstrumentationScope		scope;
	Ustack__Otlp__Profile				profile, *profiles[2];
	Ustack__Otlp__ValueType				type;
	Ustack__Otlp__Profile				time_profile;	/* --time */
	Ustack__Otlp__ValueType				time_type;
	Ustack__Otlp__Sample				*time_samples, **time_sample_ptrs;
	int64_t						*gaps;
	Ustack__Otlp__ProfilesDictionary		dict;
	Ustack__Otlp__Link				link, *links[1];
	Ustack__Otlp__Sample				*samples, **sample_ptrs;
	int32_t						*sample_attrs;
	int64_t						*values;
	uint64_t					*timestamps;
	Ustack__Otlp__Stack				*stacks, **stack_ptrs;
	int32_t						*stack_locs;
	Ustack__Otlp__Mapping				*mappings, **mapping_ptrs;
	int32_t						*mapping_attrs;
	Ustack__Otlp__Location				*locations, **location_ptrs;
	Ustack__Otlp__Line				*lines, **line_ptrs;
	Ustack__Otlp__Function				*functions, **function_ptrs;
	flame_attr					*attrs, **attr_ptrs;
	flame_any					*attr_vals;
	char						**strings;
};

static void flame_omsg_free(struct flame_omsg *m)
{
	free(m->samples);
	free(m->sample_ptrs);
	free(m->sample_attrs);
	free(m->values);
	free(m->timestamps);
	free(m->time_samples);
	free(m->time_sample_ptrs);
	free(m->gaps);
	free(m->stacks);
	free(m->stack_ptrs);
	free(m->stack_locs);
	free(m->mappings);
	free(m->mapping_ptrs);
	free(m->mapping_attrs);
	free(m->locations);
	free(m->location_ptrs);
	free(m->lines);
	free(m->line_ptrs);
	free(m->functions);
	free(m->function_ptrs);
	free(m->attrs);
	free(m->attr_ptrs);
	free(m->attr_vals);
	free(m->strings);
}

static int flame_omsg_alloc(struct flame_omsg *m, const struct flame_otlp *o)
{
	const struct flame_profile *p = o->p;
	size_t nr_samples = o->sample_keys.nr, nr_stacks = o->stack_keys.nr + 1;
	size_t nr_maps = p->mapping_keys.nr + 1, nr_locs = p->location_keys.nr + 1;
	size_t nr_funcs = p->function_keys.nr + 1, nr_attrs = o->attr_keys.nr + 1;

	m->samples = calloc(nr_samples + 1, sizeof(*m->samples));
	m->sample_ptrs = calloc(nr_samples + 1, sizeof(*m->sample_ptrs));
	m->sample_attrs = calloc((nr_samples + 1) * FLAME_ATTRS, sizeof(*m->sample_attrs));
	m->values = calloc(p->nr_samples + 1, sizeof(*m->values));
	m->timestamps = calloc(p->nr_samples + 1, sizeof(*m->timestamps));
	m->stacks = calloc(nr_stacks, sizeof(*m->stacks));
	m->stack_ptrs = calloc(nr_stacks, sizeof(*m->stack_ptrs));
	m->stack_locs = calloc(p->nr_stack + 1, sizeof(*m->stack_locs));
	m->mappings = calloc(nr_maps, sizeof(*m->mappings));
	m->mapping_ptrs = calloc(nr_maps, sizeof(*m->mapping_ptrs));
	m->mapping_attrs = calloc(nr_maps, sizeof(*m->mapping_attrs));
	m->locations = calloc(nr_locs, sizeof(*m->locations));
	m->location_ptrs = calloc(nr_locs, sizeof(*m->location_ptrs));
	m->lines = calloc(p->nr_lines + 1, sizeof(*m->lines));
	m->line_ptrs = calloc(p->nr_lines + 1, sizeof(*m->line_ptrs));
	m->functions = calloc(nr_funcs, sizeof(*m->functions));
	m->function_ptrs = calloc(nr_funcs, sizeof(*m->function_ptrs));
	m->attrs = calloc(nr_attrs, sizeof(*m->attrs));
	m->attr_ptrs = calloc(nr_attrs, sizeof(*m->attr_ptrs));
	m->attr_vals = calloc(nr_attrs, sizeof(*m->attr_vals));
	m->strings = calloc(p->strings.nr + 1, sizeof(*m->strings));
	if (p->gaps) {
		m->time_samples = calloc(nr_samples + 1, sizeof(*m->time_samples));
		m->time_sample_ptrs = calloc(nr_samples + 1, sizeof(*m->time_sample_ptrs));
		m->gaps = calloc(p->nr_samples + 1, sizeof(*m->gaps));
		if (!m->time_samples || !m->time_sample_ptrs || !m->gaps) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (!m->samples || !m->sample_ptrs || !m->sample_attrs || !m->values ||
	    !m->timestamps || !m->stacks || !m->stack_ptrs || !m->stack_locs || !m->mappings ||
	    !m->mapping_ptrs || !m->mapping_attrs || !m->locations || !m->location_ptrs ||
	    !m->lines || !m->line_ptrs || !m->functions || !m->function_ptrs || !m->attrs ||
	    !m->attr_ptrs || !m->attr_vals || !m->strings) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* The samples: each its events' values and timestamps, in the order of the events. */
static void flame_omsg_samples(struct flame_omsg *m, const struct flame_otlp *o)
{
	const struct flame_profile *p = o->p;
	const unsigned long *key;
	Ustack__Otlp__Sample *s;
	size_t i, nr = o->sample_keys.nr, at = 0, k;
	int32_t *attrs;

	for (i = 0; i < nr; i++)
		ustack__otlp__sample__init(&m->samples[i]);
	/* each sample's count of events, then where its events start */
	for (i = 0; i < p->nr_samples; i++)
		m->samples[o->event_sample[i] - 1].n_values++;
	for (i = 0; i < nr; i++) {
		s = &m->samples[i];
		s->values = m->values + at;
		s->timestamps_unix_nano = m->timestamps + at;
		at += s->n_values;
		s->n_values = 0;
	}
	for (i = 0; i < p->nr_samples; i++) {
		s = &m->samples[o->event_sample[i] - 1];
		if (m->gaps)
			m->gaps[s->values - m->values + s->n_values] = p->samples[i].gap;
		s->values[s->n_values] = 1;
		s->timestamps_unix_nano[s->n_values++] = p->samples[i].ts;
		s->n_timestamps_unix_nano = s->n_values;
	}
	for (i = 0; i < nr; i++) {
		s = &m->samples[i];
		key = (const unsigned long *)o->sample_keys.text[i];
		s->stack_index = key[0];
		attrs = m->sample_attrs + i * FLAME_ATTRS;
		s->attribute_indices = attrs;
		for (k = 0; k < FLAME_ATTRS; k++) {
			if (key[1 + k])
				attrs[s->n_attribute_indices++] = key[1 + k];
		}
		m->sample_ptrs[i] = s;
	}
	m->profile.n_samples = nr;
	m->profile.samples = m->sample_ptrs;
	if (!m->gaps)
		return;
	/* --time: the same samples, their events' gaps as their values */
	for (i = 0; i < nr; i++) {
		m->time_samples[i] = m->samples[i];
		m->time_samples[i].values = m->gaps + (m->samples[i].values - m->values);
		m->time_sample_ptrs[i] = &m->time_samples[i];
	}
	m->time_profile.n_samples = nr;
	m->time_profile.samples = m->time_sample_ptrs;
}

/* The dictionary's tables, each with the zero value first */
static void flame_omsg_dict(struct flame_omsg *m, const struct flame_otlp *o)
{
	const struct flame_profile *p = o->p;
	Ustack__Otlp__ProfilesDictionary *d = &m->dict;
	const struct flame_plocation *pl;
	const struct flame_pmapping *pm;
	const struct flame_oattr *a;
	Ustack__Otlp__Location *l;
	Ustack__Otlp__Mapping *mp;
	Ustack__Otlp__Stack *st;
	size_t i, j;

	ustack__otlp__profiles_dictionary__init(d);
	for (i = 0; i <= o->stack_keys.nr; i++) {
		st = &m->stacks[i];
		ustack__otlp__stack__init(st);
		if (i) {
			st->n_location_indices = o->stack_nr[i - 1];
			st->location_indices = m->stack_locs + o->stack_first[i - 1];
		}
		m->stack_ptrs[i] = st;
	}
	for (i = 0; i < p->nr_stack; i++)
		m->stack_locs[i] = p->stack[i];
	for (i = 0; i <= p->mapping_keys.nr; i++) {
		mp = &m->mappings[i];
		ustack__otlp__mapping__init(mp);
		if (i) {
			pm = &p->mappings[i - 1];
			mp->memory_start = pm->start;
			mp->memory_limit = pm->limit;
			mp->filename_strindex = pm->file;
			if (o->mapping_attr[i - 1]) {
				m->mapping_attrs[i] = o->mapping_attr[i - 1];
				mp->n_attribute_indices = 1;
				mp->attribute_indices = &m->mapping_attrs[i];
			}
		}
		m->mapping_ptrs[i] = mp;
	}
	for (i = 0; i < p->nr_lines; i++) {
		ustack__otlp__line__init(&m->lines[i]);
		m->lines[i].function_index = p->lines[i].function;
		m->lines[i].line = p->lines[i].line;
		m->line_ptrs[i] = &m->lines[i];
	}
	for (i = 0; i <= p->location_keys.nr; i++) {
		l = &m->locations[i];
		ustack__otlp__location__init(l);
		if (i) {
			pl = &p->locations[i - 1];
			l->mapping_index = pl->mapping;
			l->address = pl->address;
			l->n_lines = pl->nr_lines;
			l->lines = m->line_ptrs + pl->first_line;
		}
		m->location_ptrs[i] = l;
	}
	for (i = 0; i <= p->function_keys.nr; i++) {
		ustack__otlp__function__init(&m->functions[i]);
		if (i) {
			m->functions[i].name_strindex = p->functions[i - 1].name;
			m->functions[i].system_name_strindex = p->functions[i - 1].name;
			m->functions[i].filename_strindex = p->functions[i - 1].file;
		}
		m->function_ptrs[i] = &m->functions[i];
	}
	for (i = 0; i <= o->attr_keys.nr; i++) {
		ustack__otlp__key_value_and_unit__init(&m->attrs[i]);
		if (i) {
			a = &o->attrs[i - 1];
			ustack__otlp__any_value__init(&m->attr_vals[i]);
			if (a->is_int) {
				m->attr_vals[i].value_case = USTACK__OTLP__ANY_VALUE__VALUE_INT_VALUE;
				m->attr_vals[i].int_value = a->value;
			} else {
				m->attr_vals[i].value_case =
					USTACK__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
				m->attr_vals[i].string_value =
					(char *)p->strings.text[a->value - 1];
			}
			m->attrs[i].key_strindex = a->key;
			m->attrs[i].value = &m->attr_vals[i];
		}
		m->attr_ptrs[i] = &m->attrs[i];
	}
	m->strings[0] = "";
	for (j = 0; j < p->strings.nr; j++)
		m->strings[j + 1] = (char *)p->strings.text[j];
	ustack__otlp__link__init(&m->link);
	m->links[0] = &m->link;
	d->n_mapping_table = p->mapping_keys.nr + 1;
	d->mapping_table = m->mapping_ptrs;
	d->n_location_table = p->location_keys.nr + 1;
	d->location_table = m->location_ptrs;
	d->n_function_table = p->function_keys.nr + 1;
	d->function_table = m->function_ptrs;
	d->n_link_table = 1;
	d->link_table = m->links;
	d->n_string_table = p->strings.nr + 1;
	d->string_table = m->strings;
	d->n_attribute_table = o->attr_keys.nr + 1;
	d->attribute_table = m->attr_ptrs;
	d->n_stack_table = o->stack_keys.nr + 1;
	d->stack_table = m->stack_ptrs;
}

/*
 * The resource (the host), the scope (this tool) and the profile around the
 * samples, of the sample type @types[0] (type) and [1] (unit); with --time
 * the second profile too, of @types[2] and [3].
 */
static void flame_omsg_request(struct flame_omsg *m, const struct flame_otlp *o,
			       const struct flame_otlp_resource *res, const unsigned long *types)
{
	static const char * const keys[2] = { "host.name", "os.type" };
	const char *values[2] = { res->host, "linux" };
	size_t i;

	ustack__otlp__export_profiles_service_request__init(&m->req);
	ustack__otlp__resource_profiles__init(&m->rp);
	ustack__otlp__resource__init(&m->resource);
	for (i = 0; i < 2; i++) {
		ustack__otlp__key_value__init(&m->res_kv[i]);
		ustack__otlp__any_value__init(&m->res_val[i]);
		m->res_kv[i].key = (char *)keys[i];
		m->res_val[i].value_case = USTACK__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
		m->res_val[i].string_value = (char *)values[i];
		m->res_kv[i].value = &m->res_val[i];
		m->res_kvs[i] = &m->res_kv[i];
	}
	m->resource.n_attributes = res->host ? 2 : 0;
	m->resource.attributes = m->res_kvs;
	if (!res->host) {
		/* os.type alone */
		m->res_kvs[0] = &m->res_kv[1];
		m->resource.n_attributes = 1;
	}
	ustack__otlp__scope_profiles__init(&m->sp);
	ustack__otlp__instrumentation_scope__init(&m->scope);
	m->scope.name = "ustack-flame";
	m->scope.version = FLAME_VERSION;
	ustack__otlp__profile__init(&m->profile);
	ustack__otlp__value_type__init(&m->type);
	m->type.type_strindex = types[0];
	m->type.unit_strindex = types[1];
	m->profile.sample_type = &m->type;
	m->profile.time_unix_nano = o->p->first_ts;
	m->profile.duration_nano = o->p->last_ts - o->p->first_ts;
	m->profiles[0] = &m->profile;
	m->sp.scope = &m->scope;
	m->sp.n_profiles = 1;
	if (o->p->gaps) {
		ustack__otlp__profile__init(&m->time_profile);
		ustack__otlp__value_type__init(&m->time_type);
		m->time_type.type_strindex = types[2];
		m->time_type.unit_strindex = types[3];
		m->time_profile.sample_type = &m->time_type;
		m->time_profile.time_unix_nano = m->profile.time_unix_nano;
		m->time_profile.duration_nano = m->profile.duration_nano;
		m->profiles[1] = &m->time_profile;
		m->sp.n_profiles = 2;
	}
	m->sp.profiles = m->profiles;
	m->sps[0] = &m->sp;
	m->rp.resource = &m->resource;
	m->rp.n_scope_profiles = 1;
	m->rp.scope_profiles = m->sps;
	m->rps[0] = &m->rp;
	m->req.n_resource_profiles = 1;
	m->req.resource_profiles = m->rps;
	m->req.dictionary = &m->dict;
}

static void flame_otlp_free(struct flame_otlp *o)
{
	flame_dict_free(&o->attr_keys);
	flame_dict_free(&o->stack_keys);
	flame_dict_free(&o->sample_keys);
	free(o->attrs);
	free(o->stack_first);
	free(o->stack_nr);
	free(o->event_sample);
	free(o->mapping_attr);
}

/* 2000-01-01 in UNIX nanoseconds: a trace's time before it is of another clock */
#define FLAME_UNIX_2000		946684800000000000ULL

/**
 * flame_otlp_say_time - warn when a trace's times are no UNIX times
 * @ts: the time of its first event
 *
 * OTLP's timestamps are UNIX times, and a receiver may drop samples that are
 * decades old; a trace's times are its clock's, counted from the machine's
 * boot unless it was recorded with trace-cmd record --date.
 */
void flame_otlp_say_time(unsigned long long ts)
{
	if (ts < FLAME_UNIX_2000)
		fprintf(stderr, "ustack-flame: warning: the trace's times are not UNIX times "
			"(%llu.%09llu s): record with trace-cmd record --date, or receivers may "
			"drop the samples\n", ts / 1000000000ULL, ts % 1000000000ULL);
}

/**
 * flame_pack_otlp - the profile packed as an OTLP ExportProfilesServiceRequest
 * @p: the profile; the strings of the format are added to it
 * @res: the resource's attributes
 * @buf: set to the packed message, malloc()ed
 * @len: set to its length
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int flame_pack_otlp(struct flame_profile *p, const struct flame_otlp_resource *res,
		    uint8_t **buf, size_t *len)
{
	static const char * const attr_keys[FLAME_ATTRS] = {
		[FLAME_ATTR_TID]	= "thread.id",
		[FLAME_ATTR_COMM]	= "thread.name",
		[FLAME_ATTR_EVENT]	= "ustack.event",
		[FLAME_ATTR_BUFFER]	= "ustack.buffer",
	};
	unsigned long keys[FLAME_ATTRS], types[4] = { 0 }, build_id_key;
	struct flame_otlp o = { .p = p };
	struct flame_omsg m = { 0 };
	int ret = -1;
	size_t i;

	errno = 0;
	types[0] = flame_profile_string(p, "events", 6);
	types[1] = flame_profile_string(p, "count", 5);
	build_id_key = flame_profile_string(p, "process.executable.build_id.gnu", 31);
	for (i = 0; i < FLAME_ATTRS; i++)
		keys[i] = flame_profile_string(p, attr_keys[i], strlen(attr_keys[i]));
	/* only with --time: a request without it stays as it was */
	if (p->gaps) {
		types[2] = flame_profile_string(p, "time", 4);
		types[3] = flame_profile_string(p, "nanoseconds", 11);
	}
	if (errno || flame_otlp_index(&o, keys))
		goto out;
	/* the files' build-ids as attributes, before the table is sized */
	o.mapping_attr = calloc(p->mapping_keys.nr + 1, sizeof(*o.mapping_attr));
	if (!o.mapping_attr)
		goto out;
	for (i = 0; i < p->mapping_keys.nr; i++) {
		if (!p->mappings[i].build_id)
			continue;
		o.mapping_attr[i] = flame_otlp_attr(&o, build_id_key, false,
						    p->mappings[i].build_id);
		if (!o.mapping_attr[i])
			goto out;
	}
	if (flame_omsg_alloc(&m, &o))
		goto out;
	flame_omsg_request(&m, &o, res, types);
	flame_omsg_samples(&m, &o);
	flame_omsg_dict(&m, &o);
	*len = ustack__otlp__export_profiles_service_request__get_packed_size(&m.req);
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		goto out;
	*len = ustack__otlp__export_profiles_service_request__pack(&m.req, *buf);
	ret = 0;
out:
	flame_omsg_free(&m);
	flame_otlp_free(&o);
	return ret;
}

/**
 * flame_write_otlp - write the profile as an OTLP ExportProfilesServiceRequest
 * @out: where to
 * @p: the profile; the strings of the format are added to it
 * @res: the resource's attributes
 *
 * Return: 0; -1 with errno (ENOMEM, or the error of writing).
 */
int flame_write_otlp(FILE *out, struct flame_profile *p, const struct flame_otlp_resource *res)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (flame_pack_otlp(p, res, &buf, &len))
		return -1;
	ret = fwrite(buf, 1, len, out) == len ? 0 : flame_write_error(out);
	free(buf);
	return ret;
}
