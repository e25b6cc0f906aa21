/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deferred callchain bits of struct perf_event_attr, by number: the
 * system headers may predate them. The flags word is the 64 bits after
 * read_format; defer_callchain is bit 38, defer_output bit 39 (mainline
 * Linux 6.19).
 */
#ifndef USTACK_PERF_DEFER_H
#define USTACK_PERF_DEFER_H

#include <stddef.h>
#include <linux/perf_event.h>

#define ATTR_FLAGS_OFFSET	(offsetof(struct perf_event_attr, read_format) + 8)
#define ATTR_DEFER_CALLCHAIN	(1ULL << 38)
#define ATTR_DEFER_OUTPUT	(1ULL << 39)

/* The context word before the cookie in a sample's callchain (6.19). */
#ifndef PERF_CONTEXT_USER_DEFERRED
#define PERF_CONTEXT_USER_DEFERRED	((__u64)-640)
#endif

#endif
