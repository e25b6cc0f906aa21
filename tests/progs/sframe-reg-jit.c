// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg: code no file describes. Functions of
 * sframe-reg-asm.S are copied into anonymous executable memory, their
 * FDEs moved with them into a section of their own, registered, called.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sframe-reg.h"

/* The executable's section, decoded once. */
static struct usf_section sr_exe;

static const struct usf_section *sr_exe_section(void)
{
	struct sr_obj objs[8];
	int i, n;

	if (sr_exe.nr_funcs)
		return &sr_exe;
	n = sr_find_objs(objs, 8, NULL);
	for (i = 0; i < n && objs[i].name[0]; i++)
		;
	if (i == n) {
		errno = ENOENT;
		sr_die("the executable's .sframe");
	}
	if (sr_decode_obj(&objs[i], &sr_exe)) {
		fprintf(stderr, "ustack-sframe-reg: %s\n", usf_last_error());
		exit(1);
	}
	return &sr_exe;
}

/**
 * sr_jit_section - the functions of [@from, @from + @len) moved to @to
 * @from: where they are in the executable
 * @len: bytes
 * @to: where their copy is
 * @out: the result
 */
void sr_jit_section(uint64_t from, uint64_t len, uint64_t to, struct usf_section *out)
{
	const struct usf_section *exe = sr_exe_section();
	struct usf_func *nf;
	struct usf_row *r;
	uint32_t i, j;

	usf_section_init(out, exe->abi);
	out->cfa_fixed_fp_offset = exe->cfa_fixed_fp_offset;
	out->cfa_fixed_ra_offset = exe->cfa_fixed_ra_offset;
	for (i = 0; i < exe->nr_funcs; i++) {
		const struct usf_func *f = &exe->funcs[i];

		if (f->start < from || f->start >= from + len)
			continue;
		nf = usf_section_add_func(out, f->start - from + to, f->size);
		if (!nf)
			sr_die("usf_section_add_func");
		nf->pc_type = f->pc_type;
		nf->kind = f->kind;
		nf->rep_size = f->rep_size;
		nf->flags = f->flags;
		for (j = 0; j < f->nr_rows; j++) {
			r = usf_func_add_row(nf, f->rows[j].start);
			if (!r)
				sr_die("usf_func_add_row");
			*r = f->rows[j];
		}
	}
	if (!out->nr_funcs) {
		errno = ENOENT;
		sr_die("no FDE for the JIT template in the executable's .sframe");
	}
}

/**
 * sr_jit_place - copy code into a page of sr_jit_map()
 * @at: where (the page is made writable, then executable again)
 * @code: the code
 * @len: its bytes
 */
void sr_jit_place(uint8_t *at, const void *code, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);

	if (mprotect(at, page, PROT_READ | PROT_WRITE))
		sr_die("mprotect");
	memcpy(at, code, len);
	if (mprotect(at, page, PROT_READ | PROT_EXEC))
		sr_die("mprotect");
	__builtin___clear_cache((char *)at, (char *)at + len);
}

/**
 * sr_jit_map - a page of anonymous memory for code
 * @at: its address (MAP_FIXED_NOREPLACE), NULL: anywhere
 *
 * Return: the page, readable and executable. Exits on failure.
 */
uint8_t *sr_jit_map(void *at)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	p = mmap(at, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS |
		 (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (p == MAP_FAILED)
		sr_die("mmap");
	return p;
}

/**
 * sr_jit_register - a section for the copy of [@from, +@len) at @to, registered
 * @from: where the functions are in the executable
 * @len: bytes
 * @to: where their copy is
 * @buf: the section's buffer
 *
 * Exits on failure.
 */
void sr_jit_register(uint64_t from, uint64_t len, uint8_t *to, struct sr_buf *buf)
{
	struct usf_section sec;
	int ret;

	sr_jit_section(from, len, (uint64_t)to, &sec);
	if (sr_encode_near(&sec, &sr_ver, (uint64_t)to, buf)) {
		fprintf(stderr, "ustack-sframe-reg: encoding: %s\n", usf_last_error());
		exit(1);
	}
	usf_section_release(&sec);
	ret = sr_register((uint64_t)buf->addr, buf->len, (uint64_t)to, len);
	if (ret) {
		errno = -ret;
		sr_die("SFRAME_IOC_REGISTER (JIT)");
	}
}

/**
 * sr_jit_call - call a JIT copy and print the frames its stack must start with
 * @name: the expect line's name
 * @kind: exact or prefix
 * @at: the copy
 * @sys_off: the offset of its system call's return in it
 * @planted: its argument
 *
 * Calls it with rbp = 0 (sr_call_nofp); the frames: the copy's system call
 * return, sr_call_nofp, our caller, its caller.
 *
 * Return: what the copy returned.
 */
NOINLINE long sr_jit_call(const char *name, const char *kind, uint8_t *at,
				 uint64_t sys_off, long planted)
{
	char f0[64], f1[512], f2[512], f3[512];
	uint64_t ra;
	long ret;

	ret = sr_call_nofp(at, &ra, planted);
	printf("expect %s %s %s %s %s %s\n", name, kind,
	       sr_frame_str((uint64_t)at + sys_off, f0, sizeof(f0)),
	       sr_frame_str(sr_asm.call_nofp_ret, f1, sizeof(f1)),
	       sr_frame_str(ra, f2, sizeof(f2)),
	       sr_frame_str((uint64_t)__builtin_return_address(0), f3, sizeof(f3)));
	asm volatile("" ::: "memory");
	return ret;
}

/**
 * sr_jit_mode - a JIT copy with a registered section, then the section
 *	gone three ways, and other code at the same address
 *
 * Each round copies sr_jit_a to the page, registers its section and calls
 * it (exact chain); then the section goes (round 1: its memory is
 * unmapped; 2: unregistered; 3: the code's memory is unmapped and mapped
 * again) and sr_jit_b, the same instructions with another frame size,
 * takes its place: a stack there must not use the removed section (which
 * would give the frame sr_wrong_frame, planted where the old rule finds a
 * return address).
 *
 * Return: 0.
 */
int sr_jit_mode(void)
{
	static const char * const how[] = { "section-unmapped", "unregistered", "text-unmapped" };
	uint64_t a = (uint64_t)sr_jit_a, b = (uint64_t)sr_jit_b;
	uint64_t alen = sr_asm.jit_a_end - a, blen = sr_asm.jit_b_end - b;
	size_t page = sysconf(_SC_PAGESIZE);
	long planted = (long)sr_wrong_frame + 1;
	char name[64], wrong[512];
	struct sr_buf buf;
	uint8_t *x;
	int round, ret;

	x = sr_jit_map(NULL);
	printf("jit text 0x%llx wrong %s\n", (unsigned long long)(uintptr_t)x,
	       sr_frame_str(planted, wrong, sizeof(wrong)));
	for (round = 0; round < 3; round++) {
		sr_jit_place(x, sr_jit_a, alen);
		sr_jit_register(a, alen, x, &buf);
		snprintf(name, sizeof(name), "jit-%s-registered", how[round]);
		sr_jit_call(name, "exact", x, sr_asm.jit_a_sys - a, 0);
		switch (round) {
		case 0:
			sr_buf_free(&buf);
			break;
		case 1:
			ret = sr_unregister((uint64_t)buf.addr);
			printf("jit unregister: %s\n", ret ? strerror(-ret) : "ok");
			sr_buf_free(&buf);
			break;
		case 2:
			munmap(x, page);
			if (sr_jit_map(x) != x)
				sr_die("mmap at the same address");
			ret = sr_unregister((uint64_t)buf.addr);
			printf("jit unregister after unmapping the text: %s\n",
			       ret == -ENOENT ? "ENOENT" : ret ? strerror(-ret) : "ok");
			sr_buf_free(&buf);
			break;
		}
		sr_jit_place(x, sr_jit_b, blen);
		snprintf(name, sizeof(name), "jit-%s-other-code", how[round]);
		sr_jit_call(name, "prefix", x, sr_asm.jit_b_sys - b, planted);
	}
	return 0;
}

/* fork: the JIT copy and its section, set up before fork() */
static uint8_t *sr_fork_x;
static struct sr_buf sr_fork_buf;

/**
 * sr_jit_fork_setup - copy sr_jit_a and register its section, for fork
 *
 * Return: 0.
 */
int sr_jit_fork_setup(void)
{
	uint64_t a = (uint64_t)sr_jit_a, alen = sr_asm.jit_a_end - a;

	sr_fork_x = sr_jit_map(NULL);
	sr_jit_place(sr_fork_x, sr_jit_a, alen);
	sr_jit_register(a, alen, sr_fork_x, &sr_fork_buf);
	printf("jit text 0x%llx\n", (unsigned long long)(uintptr_t)sr_fork_x);
	return 0;
}

/**
 * sr_jit_fork_done - the parent's JIT section goes, after fork()
 */
void sr_jit_fork_done(void)
{
	int ret = sr_unregister((uint64_t)sr_fork_buf.addr);

	printf("parent unregistered its JIT section: %s\n", ret ? strerror(-ret) : "ok");
	sr_buf_free(&sr_fork_buf);
}

/**
 * sr_jit_fork_call - the child calls the JIT copy: exact only with a copy
 *	of the parent's section
 *
 * Return: what the copy returned.
 */
long sr_jit_fork_call(void)
{
	return sr_jit_call("fork-child-jit", "exact", sr_fork_x,
			   sr_asm.jit_a_sys - (uint64_t)sr_jit_a, 0);
}
