/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * A copy of the kernel's PROVISIONAL SFrame registration interface (issue
 * 17), uapi style, for the test programs until the kernel tree exports a
 * header of its own.
 *
 * /dev/sframe (a misc character device, open to any user) acts on the mm
 * of the calling process:
 *
 *   ioctl(fd, SFRAME_IOC_REGISTER, &setup)
 *	add the SFrame section at [sframe_start, +sframe_size) for the code at
 *	[text_start, +text_size). Errors: EINVAL (a section the kernel cannot
 *	read, or ranges not mapped readable / executable), EEXIST (a section
 *	already covers part of the text), EFAULT, ENOMEM.
 *   ioctl(fd, SFRAME_IOC_UNREGISTER, &setup)
 *	remove the section registered at sframe_start; the other fields are
 *	0. Error: ENOENT.
 *
 * A registration replaces what the kernel found by itself only where it
 * found no section (a file without .sframe, anonymous code). A file's own
 * PT_GNU_SFRAME section is found the first time a stack is walked through
 * it, so a program that registers before anything is traced for it wins.
 */
#ifndef _UAPI_LINUX_SFRAME_DEV_H
#define _UAPI_LINUX_SFRAME_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SFRAME_DEV_PATH		"/dev/sframe"

/**
 * struct sframe_setup - a section and the code it describes
 * @sframe_start: user address of the section
 * @sframe_size: its size in bytes
 * @text_start: first address of the code
 * @text_size: size of the code in bytes
 */
struct sframe_setup {
	__u64	sframe_start;
	__u64	sframe_size;
	__u64	text_start;
	__u64	text_size;
};

#define SFRAME_IOC_REGISTER	_IOW('S', 0x01, struct sframe_setup)
#define SFRAME_IOC_UNREGISTER	_IOW('S', 0x02, struct sframe_setup)

#endif /* _UAPI_LINUX_SFRAME_DEV_H */
