// SPDX-License-Identifier: LGPL-2.1
/*
 * Debug files and executables from debuginfod servers, by build-id, when
 * DEBUGINFOD_URLS names some (the build-ids are in the trace, so a file of
 * another machine can be found too).
 *
 * libdebuginfod is opened with dlopen() on the first need, as libdw does: a
 * program that never asks pays nothing for it, nor for the HTTP stack it
 * brings, and a machine without it symbolizes from local files alone. The
 * client downloads into its cache ($DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client) and hands back a descriptor of the cached file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <elfutils/debuginfod.h>

#include "ustack-local.h"

#define USTACK_DBGD_LIB		"libdebuginfod.so.1"

struct ustack_dbgd {
	void			*lib;
	debuginfod_client	*client;
	__typeof__(debuginfod_find_debuginfo)	*find_debuginfo;
	__typeof__(debuginfod_find_executable)	*find_executable;
	__typeof__(debuginfod_end)		*end;
};

/* Open the library and a client once; NULL when there are no servers or no library. */
static struct ustack_dbgd *ustack_dbgd_get(struct ustack_conf *conf)
{
	__typeof__(debuginfod_begin) *begin;
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct ustack_dbgd *d;

	if (conf->dbgd_tried)
		return conf->dbgd;
	conf->dbgd_tried = true;
	if (!urls || !*urls)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->lib = dlopen(USTACK_DBGD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!d->lib)
		goto fail;
	begin = (__typeof__(begin))dlsym(d->lib, "debuginfod_begin");
	d->find_debuginfo = (__typeof__(d->find_debuginfo))dlsym(d->lib,
								 "debuginfod_find_debuginfo");
	d->find_executable = (__typeof__(d->find_executable))dlsym(d->lib,
								   "debuginfod_find_executable");
	d->end = (__typeof__(d->end))dlsym(d->lib, "debuginfod_end");
	if (!begin || !d->find_debuginfo || !d->find_executable || !d->end)
		goto fail;
	d->client = begin();
	if (!d->client)
		goto fail;
	conf->dbgd = d;
	return d;
fail:
	if (d->lib)
		dlclose(d->lib);
	free(d);
	return NULL;
}

/**
 * ustack_dbgd_find - a file of a build-id from the debuginfod servers
 * @conf: the symbolizer's settings, which keep the client
 * @build_id: the build-id
 * @size: its size
 * @executable: the executable (or library) itself; else its debug file
 * @name: set to the path of the cached file (malloc()ed) on success
 *
 * Return: the file's descriptor; -1 when there is no server, no such file,
 * or no libdebuginfod.
 */
int ustack_dbgd_find(struct ustack_conf *conf, const unsigned char *build_id, size_t size,
		     bool executable, char **name)
{
	struct ustack_dbgd *d = ustack_dbgd_get(conf);
	int fd;

	*name = NULL;
	if (!d || !size)
		return -1;
	if (executable)
		fd = d->find_executable(d->client, build_id, size, name);
	else
		fd = d->find_debuginfo(d->client, build_id, size, name);
	if (fd >= 0)
		return fd;
	free(*name);
	*name = NULL;
	return -1;
}

/**
 * ustack_dbgd_free - end the debuginfod client of a symbolizer
 * @conf: the symbolizer's settings; the next need opens it again
 */
void ustack_dbgd_free(struct ustack_conf *conf)
{
	struct ustack_dbgd *d = conf->dbgd;

	conf->dbgd = NULL;
	conf->dbgd_tried = false;
	if (!d)
		return;
	d->end(d->client);
	dlclose(d->lib);
	free(d);
}
