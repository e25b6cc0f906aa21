/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code of ustack-sframe-reg whose frames must be exactly as written: built
 * with gas --gsframe, so the executable's .sframe describes each function
 * from its CFI. None keeps a frame pointer except where said.
 *
 * The JIT templates (sr_jit_a, sr_jit_b, the sr_fz_* block) are copied
 * into anonymous executable memory and called there: they use no absolute
 * or rip-relative address, and the sr_fz_* functions call each other
 * through local labels (relative calls inside the block).
 */
#define SYS_getppid	110
#define SYS_kill	62

#define FUNC(name)			\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
name:


	.text

/*
 * long sr_call_nofp(void *fn, uint64_t *ra, long arg): fn(arg) with rbp
 * = 0, so that a frame-pointer walk from fn stops at once instead of
 * following whatever the caller kept in rbp; *ra = our return address.
 */
FUNC(sr_call_nofp)
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	8(%rsp), %rax
	mov	%rax, (%rsi)
	mov	%rdi, %rax
	mov	%rdx, %rdi
	xor	%ebp, %ebp
	call	*%rax
.Lsr_call_nofp_ret:
	pop	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sr_call_nofp, .-sr_call_nofp

/*
 * long sr_call_fp(long (*fn)(long), long arg): fn(arg) from a frame with
 * a frame pointer and no CFI, so that neither .eh_frame nor .sframe
 * describes it: the walk steps over it with the frame-pointer rule alone,
 * whatever rule the frame before it had.
 */
FUNC(sr_call_fp)
	push	%rbp
	mov	%rsp, %rbp
	mov	%rdi, %rax
	mov	%rsi, %rdi
	call	*%rax
	pop	%rbp
	ret
	.size	sr_call_fp, .-sr_call_fp

/* Never called: its address is planted where only a stale rule looks. */
FUNC(sr_wrong_frame)
	.cfi_startproc
	nop
	nop
	ret
	.cfi_endproc
	.size	sr_wrong_frame, .-sr_wrong_frame

/*
 * JIT template A: getppid from a 48-byte frame (CFA = rsp + 48).
 * long sr_jit_a(long planted)
 */
FUNC(sr_jit_a)
	.cfi_startproc
	sub	$40, %rsp
	.cfi_def_cfa_offset 48
	mov	%rdi, 8(%rsp)
	mov	$SYS_getppid, %eax
	syscall
.Lsr_jit_a_sys:
	add	$40, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.Lsr_jit_a_end:
	.size	sr_jit_a, .-sr_jit_a

/*
 * JIT template B: the same instructions at the same offsets with an
 * 80-byte frame, and @planted (the address of sr_wrong_frame + 1) where
 * A's rule takes the return address from. A stale section of A used for
 * B gives the frame sr_wrong_frame.
 */
FUNC(sr_jit_b)
	.cfi_startproc
	sub	$72, %rsp
	.cfi_def_cfa_offset 80
	mov	%rdi, 40(%rsp)
	mov	$SYS_getppid, %eax
	syscall
.Lsr_jit_b_sys:
	add	$72, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.Lsr_jit_b_end:
	.size	sr_jit_b, .-sr_jit_b

/*
 * The fuzzer's JIT block: sr_fz_a -> sr_fz_b -> sr_fz_c (getppid), three
 * frames of different shapes, copied as one block.
 */
	.p2align 4
FUNC(sr_fz_a)
	.cfi_startproc
	sub	$24, %rsp
	.cfi_def_cfa_offset 32
	call	.Lfz_b
.Lsr_fz_a_ret:
	add	$24, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sr_fz_a, .-sr_fz_a

FUNC(sr_fz_b)
.Lfz_b:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	sub	$32, %rsp
	.cfi_def_cfa_offset 48
	call	.Lfz_c
.Lsr_fz_b_ret:
	add	$32, %rsp
	.cfi_def_cfa_offset 16
	pop	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sr_fz_b, .-sr_fz_b

FUNC(sr_fz_c)
.Lfz_c:
	.cfi_startproc
	sub	$8, %rsp
	.cfi_def_cfa_offset 16
	mov	$SYS_getppid, %eax
	syscall
.Lsr_fz_c_sys:
	add	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sr_fz_c, .-sr_fz_c
.Lsr_fz_end:

/*
 * long sr_sig_raise(long pid, long sig): kill(pid, sig) from a frame of
 * its own, with rbp = 0 while the signal is delivered (on the return from
 * the system call, at sr_sig_raise_sys): the interrupted frame is ours,
 * and a frame-pointer walk from it stops.
 */
FUNC(sr_sig_raise)
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	sub	$16, %rsp
	.cfi_def_cfa_offset 32
	xor	%ebp, %ebp
	mov	$SYS_kill, %eax
	syscall
.Lsr_sig_raise_sys:
	add	$16, %rsp
	.cfi_def_cfa_offset 16
	pop	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sr_sig_raise, .-sr_sig_raise

/*
 * The addresses of the labels, for C (struct sr_asm_addrs): symbols in the
 * middle of functions would name frames in place of their functions.
 */
	.section .data.rel.ro, "aw"
	.p2align 3
	.globl	sr_asm
	.hidden	sr_asm
	.type	sr_asm, @object
sr_asm:
	.quad	.Lsr_call_nofp_ret
	.quad	.Lsr_jit_a_sys
	.quad	.Lsr_jit_a_end
	.quad	.Lsr_jit_b_sys
	.quad	.Lsr_jit_b_end
	.quad	.Lsr_fz_a_ret
	.quad	.Lsr_fz_b_ret
	.quad	.Lsr_fz_c_sys
	.quad	.Lsr_fz_end
	.quad	.Lsr_sig_raise_sys
	.size	sr_asm, .-sr_asm

	.section .note.GNU-stack, "", @progbits
