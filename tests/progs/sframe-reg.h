/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack-sframe-reg: the sample's known chain with SFrame sections the
 * program registers itself through /dev/sframe (see sframe-reg.c).
 */
#ifndef USTACK_SFRAME_REG_H
#define USTACK_SFRAME_REG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "usf.h"

#define NOINLINE __attribute__((noinline, noclone))

/* exit status when the kernel has no /dev/sframe: the tests say SKIP */
#define SR_EXIT_NODEV		77

/**
 * struct sr_version - the format a section is registered in
 * @version: 1, 2 or 3; 0: register nothing (the kernel finds the files' own)
 * @flags: USF_F_PCREL or 0
 * @name: as given on the command line (1, 2, 2p, 3, 0)
 */
struct sr_version {
	unsigned int	version;
	unsigned int	flags;
	const char	*name;
};

/**
 * struct sr_obj - a loaded ELF object with a PT_GNU_SFRAME segment
 * @name: its dl_iterate_phdr() name ("" for the executable)
 * @base: its load bias
 * @text_start: start of its executable PT_LOAD, at run time
 * @text_end: the end of that segment
 * @sframe: the section, at run time
 * @sframe_size: its size (p_memsz)
 */
struct sr_obj {
	char		name[256];
	uint64_t	base;
	uint64_t	text_start;
	uint64_t	text_end;
	uint64_t	sframe;
	uint64_t	sframe_size;
};

/**
 * struct sr_buf - an mmap'ed buffer holding one encoded section
 * @addr: where it is mapped (and what the section is encoded for)
 * @map_size: bytes mapped
 * @len: bytes of the section
 */
struct sr_buf {
	uint8_t		*addr;
	size_t		map_size;
	size_t		len;
};

/* options (sframe-reg.c) */
extern struct sr_version sr_ver;
extern const char *sr_eh_blob;
extern int sr_dry_run;

/* sframe-reg-sec.c: the program's own sections, buffers, the device */
int sr_parse_version(const char *s, struct sr_version *v);
int sr_find_objs(struct sr_obj *objs, int max, const char *name_part);
int sr_find_objs_all(struct sr_obj *objs, int max, const char *name_part);
int sr_decode_obj(const struct sr_obj *obj, struct usf_section *sec);
int sr_decode_blob(const char *path, const char *name_part, struct usf_section *sec);
void *sr_map_near(uint64_t near, size_t size, int prot);
int sr_encode_near(const struct usf_section *sec, const struct sr_version *v, uint64_t near,
		   struct sr_buf *buf);
void sr_buf_free(struct sr_buf *buf);
int sr_dev(void);
int sr_register(uint64_t sframe, uint64_t sframe_size, uint64_t text, uint64_t text_size);
int sr_register_raw(uint64_t sframe, uint64_t sframe_size, uint64_t text, uint64_t text_size);
int sr_unregister(uint64_t sframe);
int sr_register_objs(const char *name_part, struct sr_buf *bufs, int max);
long sr_stat(const char *name);
const char *sr_frame_str(uint64_t addr, char *buf, size_t size);
void sr_die(const char *what) __attribute__((noreturn));

/* sframe-reg-jit.c: code copied into anonymous memory */
void sr_jit_section(uint64_t from, uint64_t len, uint64_t to, struct usf_section *out);
uint8_t *sr_jit_map(void *at);
void sr_jit_place(uint8_t *at, const void *code, size_t len);
void sr_jit_register(uint64_t from, uint64_t len, uint8_t *to, struct sr_buf *buf);
long sr_jit_call(const char *name, const char *kind, uint8_t *at, uint64_t sys_off,
		 long planted);
int sr_jit_mode(void);
int sr_jit_fork_setup(void);
void sr_jit_fork_done(void);
long sr_jit_fork_call(void);

/* sframe-reg-fuzz.c */
int sr_fuzz_mode(unsigned long n, uint64_t seed);

/* sframe-reg-flood.c */
int sr_flood_mode(unsigned long n, unsigned long size, const char *shape, const char *self);
int sr_mapflood_mode(unsigned long n, const char *path);

/* sframe-reg-wide.c */
int sr_wide_mode(long kib);

/* sframe-reg-dl.c */
int sr_dl_mode(int calls);

/* sframe-reg-uffd.c: sections the kernel cannot read for a while */
#define SR_UFFD_MAX	8
void sr_uffd_hold(struct sr_buf *bufs, int n);
void sr_uffd_release(struct sr_buf *bufs, int n);

/* sframe-reg-race.c: a corrupt section's drop against a new one */
int sr_droprace_mode(void);

/* sframe-reg-asm.S */
long sr_call_nofp(void *fn, uint64_t *ra, long arg);
long sr_call_fp(long (*fn)(long), long arg);
long sr_sig_raise(long pid, long sig);
extern const char sr_wrong_frame[], sr_jit_a[], sr_jit_b[];
extern const char sr_fz_a[], sr_fz_b[], sr_fz_c[];

/**
 * struct sr_asm_addrs - places inside the functions of sframe-reg-asm.S
 * @call_nofp_ret: sr_call_nofp's return address from the function it calls
 * @jit_a_sys: after the system call of sr_jit_a
 * @jit_a_end: the end of sr_jit_a
 * @jit_b_sys: after the system call of sr_jit_b
 * @jit_b_end: the end of sr_jit_b
 * @fz_a_ret: sr_fz_a's return address from sr_fz_b
 * @fz_b_ret: sr_fz_b's return address from sr_fz_c
 * @fz_c_sys: after the system call of sr_fz_c
 * @fz_end: the end of the sr_fz_* block (sr_fz_a is its start)
 * @sig_raise_sys: after the system call of sr_sig_raise
 */
struct sr_asm_addrs {
	uint64_t	call_nofp_ret;
	uint64_t	jit_a_sys;
	uint64_t	jit_a_end;
	uint64_t	jit_b_sys;
	uint64_t	jit_b_end;
	uint64_t	fz_a_ret;
	uint64_t	fz_b_ret;
	uint64_t	fz_c_sys;
	uint64_t	fz_end;
	uint64_t	sig_raise_sys;
};
extern const struct sr_asm_addrs sr_asm;

#endif /* USTACK_SFRAME_REG_H */
