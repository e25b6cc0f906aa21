// SPDX-License-Identifier: GPL-2.0
/*
 * Profiles by period (issue 41's export side): the samples of every
 * --period of the trace's time in a profile of their own, written as a
 * pprof file into --pprof-dir, or posted as an OTLP/HTTP export to
 * --otlp-endpoint. A post that fails for want of an answer (the receiver
 * is down, a timeout: --post-timeout, 5 s, for each of connecting, sending
 * and waiting for the answer) or with 429, 502, 503 or 504 is tried again
 * after 100 ms, 200 ms, 400 ms and 800 ms (and 800 ms on, up to
 * --post-tries posts, 5); then, or at once for any other status, the
 * period's profile is dropped and counted, and the next one is made: an
 * endpoint that does not take them never stops the reading. A 2xx answer
 * whose partial success rejects the profile drops it too.
 *
 * Periods start at the first sample's time. The buffers of a file are read
 * one after the other, each in time order: a period's events of two
 * buffers are two profiles.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "flame.h"
#include "otlp-profiles.pb-c.h"

#define FLAME_EXPORT_WAIT_MS	100		/* before the second post; doubled each time */
#define FLAME_EXPORT_WAIT_MAX_MS 800		/* ... up to this */

/* Whether a post that failed so may work again later */
static bool flame_export_retry(int status)
{
	return status < 0 || status == 429 || status == 502 || status == 503 || status == 504;
}

static void flame_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A 2xx answer's partial success: 0 when the profile was taken, -1 (said)
 * when the receiver rejected it (the request has one profile).
 */
static int flame_export_taken(struct flame_export *e, const struct flame_http_body *answer)
{
	Ustack__Otlp__ExportProfilesServiceResponse *res;
	Ustack__Otlp__ExportProfilesPartialSuccess *ps;
	int ret = 0;

	/* an empty or unreadable body: taken, as no partial success says */
	res = ustack__otlp__export_profiles_service_response__unpack(NULL, answer->len,
								     (const uint8_t *)answer->data);
	if (!res)
		return 0;
	ps = res->partial_success;
	if (ps && ps->rejected_profiles > 0) {
		fprintf(stderr, "ustack-flame: %s: export %u of %zu events rejected: %s\n",
			e->endpoint, e->seq, e->prof.nr_samples,
			ps->error_message && *ps->error_message ? ps->error_message :
			"no reason given");
		e->rejected++;
		ret = -1;
	}
	ustack__otlp__export_profiles_service_response__free_unpacked(res, NULL);
	return ret;
}

/* The period's profile posted, tried again as said above; 0 sent, -1 dropped. */
static int flame_export_post(struct flame_export *e)
{
	unsigned int wait = FLAME_EXPORT_WAIT_MS, i;
	struct flame_http_body answer;
	int status = -1, err = 0;
	uint8_t *buf;
	size_t len;

	if (flame_pack_otlp(&e->prof, &e->res, &buf, &len)) {
		fprintf(stderr, "ustack-flame: export %u: %s\n", e->seq, strerror(errno));
		return -1;
	}
	for (i = 0; i < e->tries; i++) {
		if (i) {
			e->retries++;
			flame_sleep_ms(wait);
			if (wait < FLAME_EXPORT_WAIT_MAX_MS)
				wait *= 2;
		}
		status = flame_http_post(&e->url, "application/x-protobuf", buf, len,
					 e->timeout_ms, &answer);
		err = errno;
		if ((status >= 200 && status < 300) || !flame_export_retry(status))
			break;
	}
	free(buf);
	if (status >= 200 && status < 300)
		return flame_export_taken(e, &answer);
	if (status < 0)
		fprintf(stderr, "ustack-flame: %s: export %u of %zu events dropped after %u tries: "
			"%s\n", e->endpoint, e->seq, e->prof.nr_samples, i, strerror(err));
	else
		fprintf(stderr, "ustack-flame: %s: export %u of %zu events dropped: HTTP %d\n",
			e->endpoint, e->seq, e->prof.nr_samples, status);
	return -1;
}

/* The period's profile as a pprof file of the directory; -1 (said) when it cannot be. */
static int flame_export_file(struct flame_export *e)
{
	struct flame_out out = { 0 };
	char path[PATH_MAX];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/ustack-%06u.pb.gz", e->dir, e->seq) >=
	    sizeof(path)) {
		fprintf(stderr, "ustack-flame: %s: the directory's name is too long\n", e->dir);
		return -1;
	}
	if (flame_out_open(&out, path, e->inputs, e->nr_inputs))
		return -1;
	ret = flame_write_pprof(out.file, &e->prof, e->name);
	if (ret)
		fprintf(stderr, "ustack-flame: %s: %s\n", out.name, flame_strerror(errno));
	if (flame_out_close(&out, !ret))
		ret = -1;
	return ret;
}

/**
 * flame_export_flush - export the period's profile, and start the next
 * @e: the exporter
 *
 * Return: 0, also when the export was dropped (counted); -1 when a file of
 * the directory cannot be written (said on standard error).
 */
int flame_export_flush(struct flame_export *e)
{
	size_t events = e->prof.nr_samples;
	int ret = 0;

	if (!events)
		return 0;
	e->seq++;
	if (e->dir) {
		ret = flame_export_file(e);
		if (!ret) {
			e->sent++;
			e->sent_events += events;
		}
	} else if (flame_export_post(e)) {
		e->dropped++;
		e->dropped_events += events;
	} else {
		e->sent++;
		e->sent_events += events;
	}
	flame_profile_free(&e->prof);
	e->prof.sym = e->sym;
	e->prof.srcline = e->srcline;
	e->prof.gaps = e->gaps;
	return ret;
}

/**
 * flame_export_sample - keep a sample in its period's profile
 * @sample: the sample
 * @context: the struct flame_export
 *
 * A sample of another period than the samples kept exports them first.
 *
 * Return: 0; -1 with errno (ENOMEM), or when a file cannot be written.
 */
int flame_export_sample(const struct flame_sample *sample, void *context)
{
	unsigned long long ts = sample->sample->ts;
	struct flame_export *e = context;
	long long period;

	if (!e->started) {
		e->start = ts;
		e->started = true;
		if (!e->dir)
			flame_otlp_say_time(ts);
		e->prof.sym = e->sym;
		e->prof.srcline = e->srcline;
		e->prof.gaps = e->gaps;
	}
	/* whole periods from the start, before it too */
	period = ts >= e->start ? (long long)((ts - e->start) / e->period) :
				  -(long long)((e->start - ts - 1) / e->period) - 1;
	if (e->prof.nr_samples && period != e->period_index && flame_export_flush(e)) {
		errno = EIO;
		return -1;
	}
	e->period_index = period;
	return flame_profile_sample(sample, &e->prof);
}

/**
 * flame_export_check - check where the profiles go, before anything is read
 * @e: the exporter: @e->dir a directory, or @e->endpoint a URL (parsed into @e->url);
 *	@e->tries and @e->timeout_ms set to their defaults when 0
 *
 * Return: 0; -1 when they cannot go there (said on standard error).
 */
int flame_export_check(struct flame_export *e)
{
	struct stat st = { 0 };

	if (!e->tries)
		e->tries = FLAME_EXPORT_TRIES;
	if (!e->timeout_ms)
		e->timeout_ms = FLAME_EXPORT_TIMEOUT_MS;
	errno = 0;
	if (e->dir && (stat(e->dir, &st) || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "ustack-flame: --pprof-dir %s: %s\n", e->dir,
			errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (e->endpoint && flame_url_parse(e->endpoint, &e->url)) {
		fprintf(stderr, "ustack-flame: --otlp-endpoint %s: not http://HOST[:PORT][/PATH]\n",
			e->endpoint);
		return -1;
	}
	return 0;
}

/**
 * flame_export_free - free what the exporter kept
 * @e: the exporter
 */
void flame_export_free(struct flame_export *e)
{
	flame_profile_free(&e->prof);
}
