// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks as trace-cmd record -T (the "stacktrace" option) and
 * --func-stack write them: an ftrace/kernel_stack entry right after the
 * event, on the same CPU, its field "caller" the return addresses,
 * innermost first, and "size" their number. The format says caller[8], but
 * the kernel writes all "size" of them: they are read up to the end of
 * the record.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <event-parse.h>

#include "flame.h"

/**
 * flame_kstack_init - find the kernel_stack entry of a trace
 * @ks: filled in
 * @tep: the trace's event formats
 *
 * Return: 0, also when the trace has no kernel_stack format (@ks->id is
 * then -1 and no record is one); -1 with errno EINVAL when its format
 * lacks the fields or has them of other sizes.
 */
int flame_kstack_init(struct flame_kstack *ks, struct tep_handle *tep)
{
	struct tep_format_field *size, *caller;
	struct tep_event *event;

	memset(ks, 0, sizeof(*ks));
	ks->tep = tep;
	ks->id = -1;
	ks->long_size = tep_get_long_size(tep);
	if (ks->long_size != 4 && ks->long_size != 8)
		ks->long_size = 8;
	event = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	if (!event)
		return 0;
	size = tep_find_field(event, "size");
	caller = tep_find_field(event, "caller");
	if (!size || !caller || (size->size != 4 && size->size != 8) ||
	    (caller->elementsize && caller->elementsize != (unsigned int)ks->long_size)) {
		errno = EINVAL;
		return -1;
	}
	ks->id = event->id;
	ks->size_offset = size->offset;
	ks->size_size = size->size;
	ks->caller_offset = caller->offset;
	return 0;
}

/**
 * flame_kstack_is - whether a record is a kernel_stack entry
 * @ks: from flame_kstack_init()
 * @record: the record
 *
 * Return: true when it is.
 */
bool flame_kstack_is(const struct flame_kstack *ks, struct tep_record *record)
{
	return ks->id >= 0 && tep_data_type(ks->tep, record) == ks->id;
}

static unsigned long long flame_kstack_word(const struct flame_kstack *ks, const void *data,
					    int size)
{
	return tep_read_number(ks->tep, data, size);
}

/**
 * flame_kstack_read - the addresses of a kernel_stack entry
 * @ks: from flame_kstack_init()
 * @record: a record for which flame_kstack_is() said true
 * @addrs: filled with the addresses, innermost first
 * @max: the room in @addrs
 *
 * Entries that are no kernel text address are left out: 0 and -1 (the
 * ends of older kernels' arrays), and, on 64-bit kernels, anything in the
 * lower half (the function tracer's stacks start with 0x7fffffff).
 *
 * Return: the number of addresses in @addrs.
 */
int flame_kstack_read(const struct flame_kstack *ks, const struct tep_record *record,
		      unsigned long long *addrs, unsigned int max)
{
	const char *data = record->data;
	unsigned long long size, addr;
	unsigned int n = 0, i;
	size_t room;

	if (record->size < ks->caller_offset || record->size < ks->size_offset + ks->size_size)
		return 0;
	size = flame_kstack_word(ks, data + ks->size_offset, ks->size_size);
	room = (record->size - ks->caller_offset) / ks->long_size;
	if (size > room)
		size = room;
	for (i = 0; i < size && n < max; i++) {
		addr = flame_kstack_word(ks, data + ks->caller_offset + i * ks->long_size,
					 ks->long_size);
		if (ks->long_size == 4 && (addr == 0 || addr == 0xffffffffULL))
			continue;
		if (ks->long_size == 8 && (addr == ~0ULL || !(addr >> 63)))
			continue;
		addrs[n++] = addr;
	}
	return n;
}

/**
 * flame_kstack_name - the name of a kernel address, for a folded line
 * @ks: from flame_kstack_init()
 * @addr: the address
 * @buf: where to write "function_[k]", or "0xADDR_[k]" when the trace's
 *	kallsyms does not name it
 * @size: the size of @buf
 *
 * A ";" in the name is written "_" (it separates the frames).
 *
 * Return: the length of the name, as snprintf().
 */
int flame_kstack_name(const struct flame_kstack *ks, unsigned long long addr, char *buf,
		      size_t size)
{
	const char *func = tep_find_function(ks->tep, addr);
	char *c;
	int len;

	if (func)
		len = snprintf(buf, size, "%s_[k]", func);
	else
		len = snprintf(buf, size, "0x%llx_[k]", addr);
	for (c = buf; *c; c++) {
		if (*c == ';' || (unsigned char)*c < 0x20)
			*c = '_';
	}
	return len;
}
