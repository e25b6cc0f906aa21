// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg: the sample's known chain, with the SFrame sections
 * registered by the program itself through /dev/sframe (sframe-dev.h).
 * Built -fomit-frame-pointer -Wa,--gsframe (SFrame V1 from gas 2.40) over
 * the SFrame build of libustack-sample.so.
 *
 *   ustack-sframe-reg [-v 0|1|2|2p|3] [-e BLOB] [-d] MODE [ARGS]
 *
 * -v  the version the sections are registered in (2p: V2 with PCREL;
 *     0: register nothing, the kernel finds the files' own); default 3
 * -e  the executable's section from this ustack-sframe convert-eh blob
 *     instead of its .sframe
 * -d  dry run: no /dev/sframe, nothing registered (host checks)
 *
 * Modes (each getppid system call is one the tests trace):
 *   calls N      register the executable's and the library's sections
 *                (read at run time through PT_GNU_SFRAME, encoded again),
 *                then N getppid calls through main -> sample_outer ->
 *                sample_middle -> ustack_lib_enter -> ustack_lib_inner ->
 *                ustack_lib_syscall; then unregister them
 *   late N       N calls first (the kernel finds the files' sections), then
 *                register: prints each error (EEXIST expected)
 *   fork N       register, plus a JIT copy of a function; fork; the parent
 *                unregisters the JIT section; the child makes N calls and
 *                one through the JIT copy
 *   jit          a function copied into anonymous executable memory with
 *                its section; removed three ways, then other code there
 *   dl N         dlopen/dlclose of two SFrame libraries in turn (a, b, a)
 *   fuzz N SEED  N mutated sections for a JIT block, one call each
 *   signal       a signal handler makes the call
 *   transient N  register, then N calls while the kernel cannot read the
 *                sections (sframe-reg-uffd.c), then N with them back
 *   droprace     a walk that finds a section corrupt after it was replaced
 *                (sframe-reg-race.c)
 *   deep D N [nodrap|fp]   D + 1 recursive frames, a DRAP frame (not with
 *                nodrap; with fp called through sr_call_fp, a frame no
 *                table describes), a realigned frame and alloca, then N
 *                calls
 *   errors       what registering bad sections and ranges says
 *   libc N BLOB  N calls (the kernel finds that libc has no section),
 *                then the section of the convert-eh blob BLOB of libc
 *                registered for libc's text, then N calls again
 *
 * Lines "expect NAME exact|prefix[=M] FRAME..." give, for each traced call
 * in order, the frames its stack must start with, as the trace writes
 * them (PATH+0xOFF, 0xADDR; * for any): exact: all of them; prefix: the
 * stack may end early (a frame no rule describes) but a frame it has must
 * be the one given (with =M only the first M are checked).
 */
#include <alloca.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "sample.h"
#include "sframe-dev.h"
#include "sframe-reg.h"

struct sr_version sr_ver = { .version = 3, .flags = USF_F_PCREL, .name = "3" };
const char *sr_eh_blob;
int sr_dry_run;

static volatile long sr_sink;

NOINLINE static long sample_middle(int calls)
{
	long ret = ustack_lib_enter(calls);

	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long sample_outer(int calls)
{
	long ret = sample_middle(calls);

	asm volatile("" ::: "memory");
	return ret;
}

/* Unregister what sr_register_objs() registered; prints the count. */
static void sr_unregister_bufs(struct sr_buf *bufs, int n)
{
	int i, done = 0, ret;

	for (i = 0; i < n; i++) {
		ret = sr_unregister((uint64_t)bufs[i].addr);
		if (ret)
			printf("unregister 0x%llx: %s\n", (unsigned long long)(uintptr_t)bufs[i].addr,
			       strerror(-ret));
		else
			done++;
		sr_buf_free(&bufs[i]);
	}
	printf("unregistered %d\n", done);
}

/* late: the files' sections are found first; registering then fails */
static void sr_late(void)
{
	struct sr_obj objs[8];
	int i, n, ret;

	n = sr_find_objs(objs, 8, NULL);
	for (i = 0; i < n; i++) {
		struct usf_section sec;
		struct sr_buf buf;

		if (sr_decode_obj(&objs[i], &sec) ||
		    sr_encode_near(&sec, &sr_ver, objs[i].text_start, &buf))
			sr_die(usf_last_error());
		usf_section_release(&sec);
		ret = sr_register((uint64_t)buf.addr, buf.len, objs[i].text_start,
				  objs[i].text_end - objs[i].text_start);
		printf("late %s %s\n", objs[i].name[0] ? objs[i].name : "executable",
		       ret == -EEXIST ? "EEXIST" : ret ? strerror(-ret) : "registered");
		if (!ret)
			sr_unregister((uint64_t)buf.addr);
		sr_buf_free(&buf);
	}
}

/*
 * libc: a file without .sframe, which the kernel found to have none: a
 * registered section takes its place ("libc registered: ok").
 */
static int sr_libc(const char *blob, struct sr_buf *buf)
{
	struct sr_obj objs[8];
	struct usf_section sec;
	int n, ret;

	n = sr_find_objs_all(objs, 8, "libc.so");
	if (n < 1 || sr_decode_blob(blob, "libc.so", &sec) ||
	    sr_encode_near(&sec, &sr_ver, objs[0].text_start, buf)) {
		fprintf(stderr, "ustack-sframe-reg: libc from %s: %s\n", blob, usf_last_error());
		return 1;
	}
	usf_section_release(&sec);
	ret = sr_register((uint64_t)buf->addr, buf->len, objs[0].text_start,
			  objs[0].text_end - objs[0].text_start);
	printf("libc registered: %s\n", ret ? strerrorname_np(-ret) ?: "?" : "ok");
	return !!ret;
}

/* errors: "errors CASE ERRNO-NAME" for each bad registration */
static void sr_error(const char *what, int ret)
{
	printf("errors %s %s\n", what, ret ? strerrorname_np(-ret) ?: "?" : "ok");
}

static int sr_errors(void)
{
	struct sframe_setup setup = { 0 };
	uint8_t zeros[64] = { 0 };
	struct sr_obj objs[8];
	struct usf_section sec;
	struct sr_buf buf;
	uint64_t text, size;
	int ret;

	if (sr_find_objs(objs, 8, NULL) < 1 || objs[0].name[0] || sr_decode_obj(&objs[0], &sec) ||
	    sr_encode_near(&sec, &sr_ver, objs[0].text_start, &buf))
		sr_die("the executable's section");
	usf_section_release(&sec);
	text = objs[0].text_start;
	size = objs[0].text_end - text;

	/* not executable: the section's own memory as the text */
	sr_error("text-not-executable", sr_register((uint64_t)buf.addr, buf.len,
						    (uint64_t)buf.addr, buf.len));
	/* text not mapped at all */
	sr_error("text-unmapped", sr_register((uint64_t)buf.addr, buf.len, 4096, 4096));
	/* a section of zeros */
	sr_error("bad-section", sr_register((uint64_t)zeros, sizeof(zeros), text, size));
	/* a section cut short: its FDEs lie beyond the end */
	sr_error("section-truncated", sr_register((uint64_t)buf.addr, 40, text, size));
	/* a section where nothing is mapped */
	sr_error("section-unmapped", sr_register(4096, buf.len, text, size));
	/* a section past the end of the address space */
	sr_error("section-wraps", sr_register(~0ULL - 8, buf.len, text, size));
	/* text that is not whole pages */
	sr_error("text-not-pages", sr_register_raw((uint64_t)buf.addr, buf.len, text + 16,
						   size - 16));
	sr_error("text-empty", sr_register_raw((uint64_t)buf.addr, buf.len, text, 0));
	sr_error("register", sr_register((uint64_t)buf.addr, buf.len, text, size));
	sr_error("register-again", sr_register((uint64_t)buf.addr, buf.len, text, size));
	sr_error("register-overlapping", sr_register((uint64_t)buf.addr, buf.len, text + 16,
						     size - 16));
	sr_error("unregister", sr_unregister((uint64_t)buf.addr));
	sr_error("unregister-again", sr_unregister((uint64_t)buf.addr));
	sr_error("unregister-unknown", sr_unregister(4096));
	/* unregister with other fields set */
	setup.sframe_start = (uint64_t)buf.addr;
	setup.text_start = text;
	ret = sr_dry_run ? 0 : ioctl(sr_dev(), SFRAME_IOC_UNREGISTER, &setup) ? -errno : 0;
	sr_error("unregister-with-text", ret);
	sr_buf_free(&buf);
	return 0;
}

/* fork: the child's copy of the sections, and of the JIT one only it has */
static int sr_fork(int calls)
{
	struct sr_buf bufs[8];
	int n, status, gate[2];
	pid_t pid;
	char c;

	n = sr_ver.version ? sr_register_objs(NULL, bufs, 8) : 0;
	if (sr_jit_fork_setup())
		return 1;
	if (pipe(gate))
		sr_die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		sr_die("fork");
	if (!pid) {
		/* until the parent has removed its JIT section */
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(1);
		printf("child %d\n", getpid());
		sample_outer(calls);
		sr_sink = sr_jit_fork_call();
		fflush(stdout);
		_exit(0);
	}
	close(gate[0]);
	/* the parent's own sections go: the child keeps its copies */
	sr_jit_fork_done();
	sr_unregister_bufs(bufs, n);
	fflush(stdout);
	if (write(gate[1], "g", 1) != 1)
		sr_die("write");
	close(gate[1]);
	if (waitpid(pid, &status, 0) != pid)
		sr_die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ---- signal: the handler's chain goes through the signal frame ---- */

static volatile long sr_sig_calls;

static void sr_sig_handler(int sig)
{
	sr_sig_calls += ustack_lib_syscall() + sig;
	asm volatile("" ::: "memory");
}

NOINLINE static int sr_signal(void)
{
	struct sigaction sa = { .sa_handler = sr_sig_handler }, old;
	char restorer[512], interrupted[512];

	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR1, NULL, &old))
		sr_die("sigaction");
	/* glibc's __restore_rt: where the handler returns to */
	printf("restorer %s\n", sr_frame_str((uint64_t)(uintptr_t)old.sa_restorer, restorer,
					      sizeof(restorer)));
	printf("expect signal exact * * %s %s\n", restorer,
	       sr_frame_str(sr_asm.sig_raise_sys, interrupted, sizeof(interrupted)));
	fflush(stdout);
	sr_sig_raise(getpid(), SIGUSR1);
	asm volatile("" ::: "memory");
	return sr_sig_calls ? 0 : 1;
}

/* ---- deep: recursion, DRAP, realignment, alloca ---- */

NOINLINE static long sr_alloca(int calls)
{
	char *p = alloca(calls + 16);
	long sum = 0;
	int i;

	memset(p, 1, calls + 16);
	for (i = 0; i < calls; i++)
		sum += ustack_lib_syscall() + p[i];
	asm volatile("" ::: "memory");
	return sum;
}

/* a 64-byte aligned local: the stack is realigned with a frame pointer */
NOINLINE static long sr_aligned(int calls)
{
	char buf[64] __attribute__((aligned(64)));
	long ret;

	memset(buf, calls, sizeof(buf));
	asm volatile("" : : "r"(buf) : "memory");
	ret = sr_alloca(calls);
	asm volatile("" ::: "memory");
	return ret + buf[1];
}

/* realigned and alloca: GCC keeps the CFA in r10 then in the frame (DRAP) */
NOINLINE static long sr_drap(long calls)
{
	char buf[64] __attribute__((aligned(64)));
	char *p = alloca(calls + 8);
	long ret;

	memset(buf, calls, sizeof(buf));
	memset(p, 2, calls + 8);
	asm volatile("" : : "r"(buf), "r"(p) : "memory");
	ret = sr_aligned(calls);
	asm volatile("" ::: "memory");
	return ret + buf[2] + p[calls];
}

static int sr_no_drap, sr_drap_fp;

NOINLINE static long sr_deep(int depth, int calls)
{
	long ret;

	if (depth)
		ret = sr_deep(depth - 1, calls);
	else if (sr_no_drap)
		ret = sr_aligned(calls);
	else if (sr_drap_fp)
		ret = sr_call_fp(sr_drap, calls);
	else
		ret = sr_drap(calls);
	/* not a tail call, nor a loop */
	sr_sink += depth;
	asm volatile("" ::: "memory");
	return ret;
}

static void sr_usage(void)
{
	fprintf(stderr, "usage: ustack-sframe-reg [-v 0|1|2|2p|3] [-e BLOB] [-d] MODE [ARGS]\n"
		"modes: calls N | late N | fork N | jit | dl N | fuzz N SEED | signal |\n"
		"       transient N | droprace |\n"
		"       deep D N [nodrap|fp] | errors | libc N BLOB |\n"
		"       flood N SIZE exit|fork|munmap|exec|threads | mapflood N FILE |\n"
		"       wide KIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sr_buf bufs[8];
	const char *mode;
	int opt, n = 0, ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "v:e:d")) != -1) {
		switch (opt) {
		case 'v':
			if (sr_parse_version(optarg, &sr_ver))
				sr_usage();
			break;
		case 'e':
			sr_eh_blob = optarg;
			break;
		case 'd':
			sr_dry_run = 1;
			break;
		default:
			sr_usage();
		}
	}
	if (optind >= argc)
		sr_usage();
	mode = argv[optind];
	argv += optind + 1;
	argc -= optind + 1;

	/* no tail calls from main: each chain ends in main */
	if (!strcmp(mode, "calls") && argc == 1) {
		if (sr_ver.version)
			n = sr_register_objs(NULL, bufs, 8);
		/* the chain of ustack-sample: main -> sample_outer -> ... */
		sample_outer(atoi(argv[0]));
		printf("ustack-sframe-reg: %d calls\n", atoi(argv[0]));
		sr_unregister_bufs(bufs, n);
	} else if (!strcmp(mode, "late") && argc == 1) {
		sample_outer(atoi(argv[0]));
		sr_late();
	} else if (!strcmp(mode, "fork") && argc == 1) {
		ret = sr_fork(atoi(argv[0]));
	} else if (!strcmp(mode, "jit") && !argc) {
		ret = sr_jit_mode();
	} else if (!strcmp(mode, "dl") && argc == 1) {
		ret = sr_dl_mode(atoi(argv[0]));
	} else if (!strcmp(mode, "fuzz") && argc == 2) {
		ret = sr_fuzz_mode(strtoul(argv[0], NULL, 0), strtoull(argv[1], NULL, 0));
	} else if (!strcmp(mode, "flood") && argc == 3) {
		ret = sr_flood_mode(strtoul(argv[0], NULL, 0), strtoul(argv[1], NULL, 0), argv[2],
				    "/proc/self/exe");
	} else if (!strcmp(mode, "wide") && argc == 1) {
		ret = sr_wide_mode(strtol(argv[0], NULL, 0));
	} else if (!strcmp(mode, "mapflood") && argc == 2) {
		ret = sr_mapflood_mode(strtoul(argv[0], NULL, 0), argv[1]);
	} else if (!strcmp(mode, "droprace") && !argc) {
		ret = sr_droprace_mode();
	} else if (!strcmp(mode, "transient") && argc == 1) {
		/* N calls while no section can be read, then N with them back */
		n = sr_register_objs(NULL, bufs, 8);
		sr_uffd_hold(bufs, n);
		sample_outer(atoi(argv[0]));
		sr_uffd_release(bufs, n);
		sample_outer(atoi(argv[0]));
		printf("ustack-sframe-reg: transient %d calls, then %d\n", atoi(argv[0]),
		       atoi(argv[0]));
		sr_unregister_bufs(bufs, n);
	} else if (!strcmp(mode, "signal") && !argc) {
		if (sr_ver.version)
			n = sr_register_objs(NULL, bufs, 8);
		ret = sr_signal();
	} else if (!strcmp(mode, "libc") && argc == 2) {
		sample_outer(atoi(argv[0]));
		ret = sr_libc(argv[1], &bufs[0]);
		sample_outer(atoi(argv[0]));
		printf("ustack-sframe-reg: %d calls, then %d\n", atoi(argv[0]), atoi(argv[0]));
	} else if (!strcmp(mode, "errors") && !argc) {
		ret = sr_errors();
	} else if (!strcmp(mode, "deep") &&
		   (argc == 2 || (argc == 3 && (!strcmp(argv[2], "nodrap") ||
						!strcmp(argv[2], "fp"))))) {
		sr_no_drap = argc == 3 && !strcmp(argv[2], "nodrap");
		sr_drap_fp = argc == 3 && !strcmp(argv[2], "fp");
		if (sr_ver.version)
			n = sr_register_objs(NULL, bufs, 8);
		sr_sink = sr_deep(atoi(argv[0]), atoi(argv[1]));
		printf("ustack-sframe-reg: deep %d, %d calls\n", atoi(argv[0]), atoi(argv[1]));
	} else {
		sr_usage();
	}
	asm volatile("" ::: "memory");
	return ret;
}
