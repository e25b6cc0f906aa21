/* SPDX-License-Identifier: GPL-2.0 */
#ifndef USTACK_SAMPLE_H
#define USTACK_SAMPLE_H

long ustack_lib_syscall(void);
/* any system call, from a function with a frame pointer */
long ustack_lib_raw(long nr, long a1, long a2, long a3);
long ustack_lib_inner(int calls);
long ustack_lib_enter(int calls);

#endif
