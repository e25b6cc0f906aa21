// SPDX-License-Identifier: LGPL-2.1
/*
 * The tracefs option user_stacktrace_deferred of an instance: is it there,
 * is it set, set it, clear it.
 *
 * libtracefs knows the options of its time by a fixed enum, which this one
 * is not in, so the option file is used directly, through the instance's
 * files as libtracefs finds them (tracefs_instance_alloc() may point at
 * another tracing directory). Writes go through a file descriptor of our
 * own, so that the kernel's error (EBUSY when too many instances have the
 * option set) reaches the caller as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>

#include "ustack.h"

#define USTACK_OPTION_FILE	"options/user_stacktrace_deferred"

/* stat() a file of the instance; -1 with errno ENODEV when there is no tracefs. */
static int ustack_instance_stat(struct tracefs_instance *instance, const char *name,
				struct stat *st)
{
	char *path;
	int ret, err;

	errno = 0;
	path = tracefs_instance_get_file(instance, name);
	if (!path) {
		if (!errno || errno == ENOENT)
			errno = ENODEV;
		return -1;
	}
	ret = stat(path, st);
	err = errno;
	tracefs_put_tracing_file(path);
	errno = err;
	return ret;
}

/**
 * ustack_option_is_supported - does the kernel have user_stacktrace_deferred
 * @instance: the instance; NULL for the top level
 *
 * The option is there when the file options/user_stacktrace_deferred of the
 * instance is.
 *
 * Return: 1 when it is there; 0 when the instance's options directory is,
 * but not the option; -1 with errno when neither can be seen: ENODEV (no
 * tracefs found), ENOENT (the instance, or its tracing directory, is
 * gone), EACCES (tracefs is not readable, usually for want of root), ...
 */
int ustack_option_is_supported(struct tracefs_instance *instance)
{
	struct stat st;

	if (!ustack_instance_stat(instance, USTACK_OPTION_FILE, &st))
		return 1;
	if (errno != ENOENT)
		return -1;
	if (ustack_instance_stat(instance, "options", &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Open the option file; -1 with errno ENOTSUP when the kernel has no such option. */
static int ustack_option_open(struct tracefs_instance *instance, int flags)
{
	int fd, err;

	errno = 0;
	fd = tracefs_instance_file_open(instance, USTACK_OPTION_FILE, flags);
	if (fd >= 0)
		return fd;
	err = errno ? errno : ENODEV;
	if (err == ENOENT && ustack_option_is_supported(instance) == 0)
		err = ENOTSUP;
	errno = err;
	return -1;
}

static int ustack_option_write(struct tracefs_instance *instance, const char *val)
{
	ssize_t n;
	int fd, err;

	fd = ustack_option_open(instance, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	if ((size_t)n != strlen(val)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/**
 * ustack_option_enable - set user_stacktrace_deferred in an instance
 * @instance: the instance; NULL for the top level
 *
 * From then on, every event recorded in the instance while a user task is in
 * the kernel carries a cookie, and the task's user stack is written once per
 * kernel entry (see Documentation/trace/ftrace.rst). Setting it again is
 * not an error.
 *
 * Return: 0; -1 with errno ENOTSUP (the kernel has no such option), EBUSY
 * (the kernel's: too many instances have it set already), EACCES, ENOENT,
 * ENODEV (see ustack_option_is_supported()) or another error of the write.
 */
int ustack_option_enable(struct tracefs_instance *instance)
{
	return ustack_option_write(instance, "1");
}

/**
 * ustack_option_disable - clear user_stacktrace_deferred in an instance
 * @instance: the instance; NULL for the top level
 *
 * Clearing it when it is not set is not an error.
 *
 * Return: 0; -1 with errno as for ustack_option_enable().
 */
int ustack_option_disable(struct tracefs_instance *instance)
{
	return ustack_option_write(instance, "0");
}

/**
 * ustack_option_is_enabled - is user_stacktrace_deferred set in an instance
 * @instance: the instance; NULL for the top level
 *
 * Return: 1 when set, 0 when not; -1 with errno ENOTSUP (the kernel has no
 * such option), EIO (the file says neither "0" nor "1"), or as for
 * ustack_option_is_supported().
 */
int ustack_option_is_enabled(struct tracefs_instance *instance)
{
	char buf[16];
	ssize_t n;
	int fd, err;

	fd = ustack_option_open(instance, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	buf[n] = '\0';
	if (!strcmp(buf, "0\n") || !strcmp(buf, "0"))
		return 0;
	if (!strcmp(buf, "1\n") || !strcmp(buf, "1"))
		return 1;
	errno = EIO;
	return -1;
}
