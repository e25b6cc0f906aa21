// SPDX-License-Identifier: LGPL-2.1
/*
 * The converter's entry point: open the ELF file, convert its CFI
 * (usf-eh-convert.c) and mark its entry code (usf-eh-entry.c), sort and
 * check the table, time it; reason names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usf-eh-local.h"

static const char *const usf_eh_reasons[USF_EH_NR_REASONS] = {
	[USF_EH_CFA_EXPR]	= "cfa-expression",
	[USF_EH_CFA_REG]	= "cfa-register",
	[USF_EH_CFA_UNDEF]	= "cfa-undefined",
	[USF_EH_RA]		= "ra-not-at-cfa-8",
	[USF_EH_FP]		= "fp-rule",
	[USF_EH_PLT_ALIGN]	= "plt-unaligned",
	[USF_EH_NO_LOAD]	= "outside-pt-load",
	[USF_EH_LIBDW]		= "libdw-error",
	[USF_EH_TOO_BIG]	= "too-big",
	[USF_EH_OVERLAP]	= "overlapping-fde",
};

/**
 * usf_eh_reason_name - the short name of a USF_EH_* reason
 * @reason: the reason
 *
 * Return: a name such as "cfa-expression", "?" when unknown.
 */
const char *usf_eh_reason_name(unsigned int reason)
{
	return reason < USF_EH_NR_REASONS ? usf_eh_reasons[reason] : "?";
}

static uint64_t usf_eh_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/**
 * usf_eh_convert - build an SFrame table of an ELF file from its CFI
 * @path: the file (named in messages; opened when @fd is negative, and
 *	  refused when it is not a regular file, see usf_file_open())
 * @fd: the file open for reading (a regular file), or -1
 * @flags: USF_EH_GAPS, USF_EH_DEBUG_FRAME
 * @sec: the table: AMD64 functions at FILE OFFSETS, sorted and checked;
 *	initialised here, usf_section_release() frees it
 * @stats: what was converted and what was left out, or NULL; initialised
 *	here, usf_eh_stats_release() frees its gaps
 *
 * The CFI is .eh_frame, or .debug_frame when there is no .eh_frame (or
 * with USF_EH_DEBUG_FRAME). Rows SFrame cannot hold are left out (see
 * usf-eh.h for the reasons), and so are the parts of functions outside the
 * file bytes of every PT_LOAD.
 *
 * Return: 0, or -1 with errno and usf_last_error() when the file cannot
 * be read (not x86-64 ELF, no CFI, corrupt CFI entries).
 */
int usf_eh_convert(const char *path, int fd, unsigned int flags, struct usf_section *sec,
		   struct usf_eh_stats *stats)
{
	struct usf_eh_stats local, *st = stats ? stats : &local;
	uint64_t t0 = usf_eh_now();
	struct usf_eh_elf ee;
	bool own_fd = fd < 0;
	struct stat sb;
	Elf *elf;
	int ret;

	memset(st, 0, sizeof(*st));
	usf_section_init(sec, USF_ABI_AMD64_LE);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return usf_error(EINVAL, "libelf: %s", elf_errmsg(-1));
	if (own_fd) {
		fd = usf_file_open(path, O_RDONLY, NULL);
		if (fd < 0)
			return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = usf_error(EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	if (!fstat(fd, &sb))
		st->file_size = sb.st_size;
	ret = usf_eh_elf_open(elf, flags, &ee, st);
	if (!ret)
		ret = usf_eh_walk(&ee, flags, sec, st);
	if (!ret)
		ret = usf_eh_entry(&ee, sec, st);
	usf_eh_elf_close(&ee);
	if (!ret) {
		usf_section_sort(sec);
		ret = usf_section_check(sec);
	}
	if (ret) {
		char msg[256];
		int err = errno;

		snprintf(msg, sizeof(msg), "%s", usf_last_error());
		usf_error(err, "%s: %s", path, msg);
	}
out:
	if (elf)
		elf_end(elf);
	if (own_fd)
		close(fd);
	if (ret) {
		usf_section_release(sec);
		usf_eh_stats_release(st);
	}
	if (!stats)
		usf_eh_stats_release(&local);
	st->ns = usf_eh_now() - t0;
	return ret;
}

/**
 * usf_eh_stats_release - free the gaps of a conversion's statistics
 * @stats: the statistics (the counts stay)
 */
void usf_eh_stats_release(struct usf_eh_stats *stats)
{
	if (!stats)
		return;
	free(stats->gaps);
	stats->gaps = NULL;
	stats->nr_gaps = 0;
}
