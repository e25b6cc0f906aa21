// SPDX-License-Identifier: GPL-2.0
/*
 * A shared object built with g++, for the demangling tests: its functions
 * have C++ (Itanium ABI) names. The tests dlopen() it and find the functions
 * by their mangled names.
 */
#define NOINLINE __attribute__((noinline, used))

static volatile int utest_cxx_sink;

namespace ustack {
namespace demo {

struct widget {
	int	value;

	NOINLINE int poke(int by);
};

NOINLINE int widget::poke(int by)
{
	utest_cxx_sink += by;
	return value + utest_cxx_sink;
}

template <typename T> NOINLINE T twice(T x)
{
	utest_cxx_sink += 2;
	return x + x;
}

NOINLINE int inner(int x)
{
	widget w = { x };

	return w.poke(x) + twice<long>(x);
}

} // namespace demo
} // namespace ustack

/* keeps twice<long>() and inner() in the file, and gives the tests an entry */
extern "C" int utest_cxx_entry(int x)
{
	return ustack::demo::inner(x);
}
