// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg flood: many registrations through /dev/sframe, as the
 * 2026-11-28 review's N1 did: the program's own executable .sframe for N
 * ranges of an untouched PROT_READ|PROT_EXEC anonymous mapping, then the
 * teardown shapes that free the kernel's entries (exit, fork, a partial
 * munmap, exec, two threads registering at once).
 *
 * Prints one line per outcome, for tests/guest/sframe-flood.sh:
 *   flood N SIZE ok K einval E enospc S other O
 * and "child ok" / "exec ok" for the shapes that run another process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sframe-reg.h"

struct sr_flood {
	uint64_t	sframe;
	uint64_t	sframe_size;
	uint8_t		*text;
	unsigned long	n;
	unsigned long	size;
	unsigned long	first;
	unsigned long	step;
	unsigned long	ok, einval, enospc, other;
};

static void *sr_flood_run(void *arg)
{
	struct sr_flood *f = arg;
	unsigned long i;
	int ret;

	for (i = f->first; i < f->n; i += f->step) {
		ret = sr_register_raw(f->sframe, f->sframe_size,
				      (uint64_t)(f->text + i * f->size), f->size);
		if (!ret)
			f->ok++;
		else if (ret == -EINVAL)
			f->einval++;
		else if (ret == -ENOSPC)
			f->enospc++;
		else
			f->other++;
	}
	return NULL;
}

static void sr_flood_say(const char *what, const struct sr_flood *f, int nf)
{
	unsigned long ok = 0, einval = 0, enospc = 0, other = 0;
	int i;

	for (i = 0; i < nf; i++) {
		ok += f[i].ok;
		einval += f[i].einval;
		enospc += f[i].enospc;
		other += f[i].other;
	}
	printf("%s %lu %lu ok %lu einval %lu enospc %lu other %lu\n", what, f[0].n, f[0].size,
	       ok, einval, enospc, other);
	fflush(stdout);
}

/**
 * sr_flood_mode - register N ranges of SIZE bytes, then tear down by SHAPE
 * @n: registrations
 * @size: bytes of text each
 * @shape: exit, fork, munmap, exec, threads
 * @self: the program's path, for exec
 *
 * Return: the exit status.
 */
int sr_flood_mode(unsigned long n, unsigned long size, const char *shape, const char *self)
{
	struct sr_flood f[2] = { };
	struct sr_obj obj;
	size_t len = n * size;
	pthread_t th;
	uint8_t *text;
	pid_t pid;
	int st;

	if (sr_find_objs(&obj, 1, "") < 1 || obj.name[0]) {
		printf("flood: no PT_GNU_SFRAME in the executable\n");
		return 1;
	}
	text = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED)
		sr_die("mmap");
	f[0] = (struct sr_flood) {
		.sframe = obj.sframe, .sframe_size = obj.sframe_size,
		.text = text, .n = n, .size = size, .step = 1,
	};
	if (!strcmp(shape, "threads")) {
		f[0].step = 2;
		f[1] = f[0];
		f[1].first = 1;
		if (pthread_create(&th, NULL, sr_flood_run, &f[1]))
			sr_die("pthread_create");
		sr_flood_run(&f[0]);
		pthread_join(th, NULL);
		sr_flood_say("flood", f, 2);
		return 0;
	}
	sr_flood_run(&f[0]);
	sr_flood_say("flood", f, 1);

	if (!strcmp(shape, "fork")) {
		pid = fork();
		if (pid < 0)
			sr_die("fork");
		if (!pid) {
			/* the child's copies go with its exit, then the parent's */
			printf("child ok\n");
			fflush(stdout);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 1;
	} else if (!strcmp(shape, "munmap")) {
		/* every other page, then the rest */
		for (size_t off = 0; off < len; off += 2 * 4096)
			munmap(text + off, 4096 < len - off ? 4096 : len - off);
		munmap(text, len);
		printf("munmap ok\n");
	} else if (!strcmp(shape, "exec")) {
		fflush(stdout);
		execl(self, self, "calls", "1", (char *)NULL);
		sr_die("execl");
	}
	return 0;
}

/**
 * sr_mapflood_mode - N adjacent one-page executable mappings of FILE
 * @n: mappings
 * @path: a regular file of at least a page, with no SFrame section
 *
 * Each page maps file offset 0, so no two of them merge: N mappings, one
 * entry each in the mm's SFrame tree once a traced walk looked at them
 * (sframe_mm_fp_only() looks at every executable file mapping), with no
 * /dev/sframe and no cap: the mm's tree grows to N entries, in address
 * order, then goes with the process.
 *
 * Return: the exit status.
 */
int sr_mapflood_mode(unsigned long n, const char *path)
{
	unsigned long i, ok = 0;
	uint8_t *area, *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		sr_die(path);
	area = mmap(NULL, n * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		sr_die("mmap");
	for (i = 0; i < n; i++) {
		p = mmap(area + i * 4096, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
			 fd, 0);
		if (p == MAP_FAILED)
			break;
		ok++;
	}
	close(fd);
	/* the traced system calls: the walk looks at every mapping */
	for (i = 0; i < 3; i++)
		getppid();
	printf("mapflood %lu mapped %lu\n", n, ok);
	return ok == n ? 0 : 1;
}
