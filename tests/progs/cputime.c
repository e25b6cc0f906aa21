// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-cputime: run a command and print the CPU time it used, user and
 * system, in microseconds: "cputime_us N" on standard error, then exit
 * with its status.
 *
 *   ustack-cputime COMMAND [ARGS...]
 *
 * The kernel's user and system times of a reaped child add up to its
 * scheduler run time, which counts only the time it ran: unlike the wall
 * clock between a start and an end, no idle time of the machine is in it
 * (under QEMU's instruction counting with sleep=off, an idle guest's clock
 * jumps to the next timer, by amounts that differ from run to run). The
 * benchmark's real-program row is timed with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

static long long cputime_us(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000LL +
	       ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ustack-cputime COMMAND [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("ustack-cputime: fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror("ustack-cputime: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("ustack-cputime: wait4");
		return 2;
	}
	fprintf(stderr, "cputime_us %lld\n", cputime_us(&ru));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
