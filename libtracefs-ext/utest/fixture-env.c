// SPDX-License-Identifier: GPL-2.0
/*
 * Setting up the fixtures of the symbolizer tests; see fixture-env.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture-env.h"

/* filled in by the setup: the size of a blob is no constant expression in C */
struct utest_blob utest_blob_so, utest_blob_debug, utest_blob_stripped, utest_blob_other;
struct utest_blob utest_blob_mini, utest_blob_cxx;
struct utest_blob utest_blob32_so, utest_blob32_debug, utest_blob32_stripped, utest_blob32_expect;

#define UTEST_BLOB(name)	((struct utest_blob){ name, (size_t)(name##_end - name) })

struct utest_fixture fx;

static const char * const utest_func_names[F_NR] = {
	[F_ALPHA]	= "utest_alpha",
	[F_BETA]	= "utest_beta",
	[F_GAMMA]	= "utest_gamma",
	[F_INLINED]	= "utest_inl_outer",
	[F_NOSIZE]	= "utest_nosize",
	[F_PADDED]	= "utest_padded",
	[F_RODATA]	= "utest_rodata_label",
	[F_NORETURN]	= "utest_noreturn",
	[F_AFTER_NORETURN] = "utest_after_noreturn",
	[F_NORETURN_PAD] = "utest_noreturn_pad",
};

bool utest_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

bool utest_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return !fclose(f) && ok;
}

bool utest_write_blob(const char *path, const struct utest_blob *blob)
{
	return utest_write_file(path, blob->data, blob->size);
}

/* mkdir -p */
bool utest_make_dirs(const char *dir)
{
	char path[PATH_MAX];
	char *p;

	if (!utest_pathf(path, sizeof(path), "%s", dir))
		return false;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return false;
		*p = '/';
	}
	return !mkdir(path, 0755) || errno == EEXIST;
}

const char *utest_dir(const char *name, char *buf, size_t size)
{
	if (!utest_pathf(buf, size, "%s/%s", fx.tmp_dir, name))
		return NULL;
	return utest_make_dirs(buf) ? buf : NULL;
}

void utest_build_id_path(const char *root, char *buf, size_t size)
{
	utest_pathf(buf, size, "%s/.build-id/%.2s/%s.debug", root, fx.build_id_hex,
		    fx.build_id_hex + 2);
}

bool utest_put_build_id_file(const char *root, const struct utest_blob *blob)
{
	char path[PATH_MAX], dir[PATH_MAX];

	utest_pathf(dir, sizeof(dir), "%s/.build-id/%.2s", root, fx.build_id_hex);
	utest_build_id_path(root, path, sizeof(path));
	return utest_make_dirs(dir) && utest_write_blob(path, blob);
}

struct ustack_symbolizer *utest_symbolizer(const char *debug_dir)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();

	if (!UT_CHECK(sym, "ustack_symbolizer_alloc: %s", strerror(errno)))
		return NULL;
	/* this directory alone: what the tests find is theirs, not the host's */
	if (!UT_CHECK(!ustack_symbolizer_set_debug_path(sym, debug_dir),
		      "set_debug_path(%s): %s", debug_dir, strerror(errno))) {
		ustack_symbolizer_free(sym);
		return NULL;
	}
	return sym;
}

struct ustack_symbolizer *utest_build_id_symbolizer(const char *name,
						    const struct utest_blob *blob,
						    char *path, size_t size)
{
	char root[PATH_MAX];

	if (!UT_CHECK(utest_dir(name, root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(utest_put_build_id_file(root, blob), "write"))
		return NULL;
	if (path)
		utest_build_id_path(root, path, size);
	return utest_symbolizer(root);
}

bool utest_lookup(struct ustack_symbolizer *sym, const char *path, const unsigned char *id,
		  size_t id_size, unsigned long long offset, struct ustack_symbol *s)
{
	/* garbage in, so a field the lookup forgets to set shows */
	memset(s, 0xa5, sizeof(*s));
	return UT_CHECK(!ustack_symbolizer_lookup(sym, path, id, id_size, offset, 0, s),
			"ustack_symbolizer_lookup(%s, %#llx): %s", path, offset, strerror(errno));
}

/* The offset of addr in the file mapped there, from /proc/self/maps. */
bool utest_map_offset(const void *addr, const char *path, unsigned long long *offset)
{
	unsigned long long start, end, pgoff, a = (unsigned long)addr;
	char line[PATH_MAX + 128], file[PATH_MAX];
	bool found = false;
	FILE *maps;

	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &pgoff,
			   file) < 3)
			continue;
		if (a < start || a >= end || strcmp(file, path))
			continue;
		*offset = a - start + pgoff;
		found = true;
	}
	fclose(maps);
	return found;
}

/* dl_iterate_phdr() callback: copy the GNU build-id note of the loaded fixture. */
static int utest_find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *p, *end;
	bool *found = data;
	int i;

	(void)size;
	if (!info->dlpi_name || strcmp(info->dlpi_name, fx.so))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		end = p + info->dlpi_phdr[i].p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3U);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= USTACK_BUILD_ID_MAX) {
				memcpy(fx.build_id, desc, n->n_descsz);
				fx.build_id_size = n->n_descsz;
				*found = true;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3U);
		}
	}
	return 0;
}

/* Where each fixture function is, in the file and at link time. */
static int utest_find_funcs(void)
{
	struct link_map *lm;
	void *(*gamma)(void);
	void *addr;
	size_t i;

	if (dlinfo(fx.handle, RTLD_DI_LINKMAP, &lm))
		return -1;
	for (i = 0; i < F_NR; i++) {
		fx.funcs[i].name = utest_func_names[i];
		if (i == F_GAMMA) {
			/* a static function: the fixture hands out its address */
			gamma = (void *(*)(void))dlsym(fx.handle, "utest_gamma_addr");
			addr = gamma ? gamma() : NULL;
		} else {
			addr = dlsym(fx.handle, fx.funcs[i].name);
		}
		if (!addr)
			continue;
		if (!utest_map_offset(addr, fx.so, &fx.funcs[i].offset))
			return -1;
		/* l_addr is the load bias: run-time address minus link-time address */
		fx.funcs[i].vaddr = (unsigned long)addr - lm->l_addr;
		fx.funcs[i].found = true;
	}
	return fx.funcs[F_ALPHA].found && fx.funcs[F_BETA].found &&
	       fx.funcs[F_GAMMA].found ? 0 : -1;
}

static int utest_fixture_make(void)
{
	const char *tmp = getenv("TMPDIR");
	bool found = false;
	size_t i;

	memset(&fx, 0, sizeof(fx));
	utest_blob_so = UTEST_BLOB(utest_fixture_so);
	utest_blob_debug = UTEST_BLOB(utest_fixture_debug);
	utest_blob_stripped = UTEST_BLOB(utest_fixture_stripped_so);
	utest_blob_mini = UTEST_BLOB(utest_fixture_mini_so);
	utest_blob_cxx = UTEST_BLOB(utest_fixture_cxx_so);
	utest_blob_other = UTEST_BLOB(utest_fixture_other_so);
	utest_blob32_so = UTEST_BLOB(utest_fixture32_so);
	utest_blob32_debug = UTEST_BLOB(utest_fixture32_debug);
	utest_blob32_stripped = UTEST_BLOB(utest_fixture32_stripped_so);
	utest_blob32_expect = UTEST_BLOB(utest_fixture32_expect);
	/* short, so that every path the tests make in it fits */
	if (!utest_pathf(fx.tmp_dir, 256, "%s/ustack-utest.XXXXXX", tmp && *tmp ? tmp : "/tmp") ||
	    !mkdtemp(fx.tmp_dir)) {
		fx.tmp_dir[0] = '\0';
		return -1;
	}
	utest_pathf(fx.so, sizeof(fx.so), "%s/fixture.so", fx.tmp_dir);
	utest_pathf(fx.debug, sizeof(fx.debug), "%s/fixture.debug", fx.tmp_dir);
	utest_pathf(fx.other, sizeof(fx.other), "%s/fixture-other.so", fx.tmp_dir);
	if (!utest_dir("stripped", fx.stripped_dir, sizeof(fx.stripped_dir)) ||
	    !utest_dir("empty-debug", fx.empty_dir, sizeof(fx.empty_dir)))
		return -1;
	utest_pathf(fx.stripped, sizeof(fx.stripped), "%s/fixture-stripped.so", fx.stripped_dir);
	if (!utest_write_blob(fx.so, &utest_blob_so) ||
	    !utest_write_blob(fx.stripped, &utest_blob_stripped) ||
	    !utest_write_blob(fx.debug, &utest_blob_debug) ||
	    !utest_write_blob(fx.other, &utest_blob_other))
		return -1;

	fx.handle = dlopen(fx.so, RTLD_NOW | RTLD_LOCAL);
	if (!fx.handle || utest_find_funcs())
		return -1;

	dl_iterate_phdr(utest_find_build_id, &found);
	if (!found || fx.build_id_size < 2)
		return -1;
	for (i = 0; i < fx.build_id_size; i++)
		sprintf(fx.build_id_hex + 2 * i, "%02x", fx.build_id[i]);
	return 0;
}

int utest_fixture_setup(void)
{
	if (!utest_fixture_make())
		return 0;
	/* CUnit does not clean up a suite whose setup failed */
	utest_fixture_cleanup();
	return -1;
}

static int utest_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int utest_fixture_cleanup(void)
{
	if (fx.handle)
		dlclose(fx.handle);
	fx.handle = NULL;
	if (fx.tmp_dir[0])
		nftw(fx.tmp_dir, utest_remove, 16, FTW_DEPTH | FTW_PHYS);
	fx.tmp_dir[0] = '\0';
	return 0;
}

/**
 * utest_check_exports - the library exports its API and hides the rest
 * @api: names that must be exported
 * @n_api: how many
 * @hidden: internal names that must not be
 * @n_hidden: how many
 *
 * Every API name is also asked for at its version, LIBTRACEFS_EXT_1.0 (the
 * version script), and not at another: glibc takes an unversioned symbol for
 * any version, so only the second check fails for a library linked without
 * the script.
 */
void utest_check_exports(const char * const *api, size_t n_api,
			 const char * const *hidden, size_t n_hidden)
{
	void *lib = dlopen(UTEST_SO_PATH, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!UT_CHECK(lib, "dlopen %s: %s", UTEST_SO_PATH, dlerror()))
		return;
	for (i = 0; i < n_api; i++)
		UT_CHECK(dlsym(lib, api[i]), "%s not exported", api[i]);
	for (i = 0; i < n_api; i++)
		UT_CHECK(dlvsym(lib, api[i], "LIBTRACEFS_EXT_1.0") &&
			 !dlvsym(lib, api[i], "LIBTRACEFS_EXT_0.0"), "%s not at LIBTRACEFS_EXT_1.0",
			 api[i]);
	for (i = 0; i < n_hidden; i++)
		UT_CHECK(!dlsym(lib, hidden[i]), "%s exported", hidden[i]);
	dlclose(lib);
}
