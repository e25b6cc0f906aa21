// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbol names as their programmers wrote them: C++ (Itanium ABI, "_Z...")
 * and Rust ("_R..." v0, and the legacy "_ZN...17h<hash>E", whose hash is
 * dropped) through libiberty's demangler, the one binutils and GDB use.
 * libiberty-dev ships it as a static library built for shared objects.
 */
#include <errno.h>
#include <libiberty/demangle.h>

#include "ustack-local.h"

/**
 * ustack_demangle - the demangled form of a symbol name
 * @name: the name as in the symbol table
 *
 * Return: the demangled name (malloc()ed), with the parameter types of a
 * C++ function; NULL when @name is not mangled (errno 0) or memory ran out
 * (errno ENOMEM).
 */
char *ustack_demangle(const char *name)
{
	char *nice;

	errno = 0;
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	nice = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	/* the demangler says NULL for a name it cannot read, too */
	if (!nice)
		errno = 0;
	return nice;
}
