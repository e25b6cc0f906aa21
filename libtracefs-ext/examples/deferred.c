// SPDX-License-Identifier: GPL-2.0
/*
 * deferred: show, set or clear the option user_stacktrace_deferred.
 *
 *   deferred [-t TRACING_DIR] [-i INSTANCE] [on|off]
 *
 * Without on or off, it says whether the kernel has the option, and whether
 * it is set. INSTANCE must exist; TRACING_DIR is where tracefs is, when not
 * where libtracefs finds it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include <ustack.h>

static const char usage_text[] = "usage: deferred [-t TRACING_DIR] [-i INSTANCE] [on|off]\n";

int main(int argc, char **argv)
{
	struct tracefs_instance *instance = NULL;
	const char *tracing_dir = NULL, *name = NULL;
	int opt, ret;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	while ((opt = getopt(argc, argv, "t:i:")) != -1) {
		switch (opt) {
		case 't':
			tracing_dir = optarg;
			break;
		case 'i':
			name = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind > 1)
		goto usage;

	if (tracing_dir && tracefs_set_tracing_dir((char *)tracing_dir)) {
		perror("deferred: tracefs_set_tracing_dir");
		return 1;
	}
	/* the top level of another tracing directory is an instance without a name */
	if (tracing_dir || name) {
		instance = tracefs_instance_alloc(tracing_dir, name);
		if (!instance) {
			fprintf(stderr, "deferred: no instance %s in %s\n", name ? name : "(top)",
				tracing_dir ? tracing_dir : "the tracing directory");
			return 1;
		}
	}

	if (optind == argc) {
		ret = ustack_option_is_supported(instance);
		if (ret == 0) {
			printf("user_stacktrace_deferred: not supported\n");
		} else if (ret == 1) {
			ret = ustack_option_is_enabled(instance);
			if (ret >= 0)
				printf("user_stacktrace_deferred: %s\n", ret ? "on" : "off");
		}
	} else if (!strcmp(argv[optind], "on")) {
		ret = ustack_option_enable(instance);
	} else if (!strcmp(argv[optind], "off")) {
		ret = ustack_option_disable(instance);
	} else {
		tracefs_instance_free(instance);
		goto usage;
	}

	if (ret < 0) {
		if (errno == ENOTSUP)
			fprintf(stderr, "deferred: the kernel has no user_stacktrace_deferred\n");
		else
			fprintf(stderr, "deferred: %s\n", strerror(errno));
	}
	tracefs_instance_free(instance);
	return ret < 0 ? 1 : 0;

usage:
	fputs(usage_text, stderr);
	return 2;
}
