/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _UTEST_HEADER_ALONE_H
#define _UTEST_HEADER_ALONE_H

#include <stddef.h>

/* header-alone.c: built without the include paths of the tracing libraries */
int utest_alone_fold(const void *data, size_t size, unsigned int nr, const char *path,
		     char *buf, size_t size_buf);
int utest_alone_lookup(const void * const *data, const size_t *size, const int *cpu, size_t nr,
		       int want_cpu, int want_pid, size_t want, char *buf, size_t size_buf);

#endif /* _UTEST_HEADER_ALONE_H */
