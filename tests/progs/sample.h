/* SPDX-License-Identifier: GPL-2.0 */
#ifndef USTACK_SAMPLE_H
#define USTACK_SAMPLE_H

long ustack_lib_syscall(void);
long ustack_lib_inner(int calls);
long ustack_lib_enter(int calls);

#endif
