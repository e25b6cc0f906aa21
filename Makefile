# SPDX-License-Identifier: GPL-2.0
#
# ustack: deferred user-space stack traces for Linux 6.12 LTS.
#
#   make check     install deps, build everything, run host and guest tests
#   make check-stress   make check with every core kept busy (STRESS_LOAD
#                  busy loops, one per CPU by default): timing-dependent tests
#   make demo      build everything and trace the sample program in a guest
#   make install   the library, both plugins, the tools, man pages and bash
#                  completion (DESTDIR, prefix=/usr/local; docs/packages.md)
#   make deb       Debian packages of all that, into build/deb (docs/packages.md)
#   make deb-kernel   the kernel's Debian package, into build/deb/kernel
#   make kernel    build the patched guest kernel (DEBUG=1: the debug kernel)
#   make perf      build tools/perf of the patched tree (build/perf/perf)
#   make fuzz      run the libFuzzer targets, FUZZ_SECONDS (60) each
#   make kernel-patches   export build/linux base..HEAD to kernel/patches/
#   make kernel-series-build   every patch of build/linux builds alone: the
#                         directories of the C files it touches, in a
#                         worktree (scripts/kernel-series-build.sh; ~12 min)
#   make sframe-mutate    usf_mutate() 100,000 times into the SFrame decoder
#                         under ASan and UBSan (sframe/)
#   make sframe-fuzz-kernel   SFRAME_FUZZ_N (100,000) corrupted SFrame sections
#                         registered through /dev/sframe in the debug guest
#                         (tests/guest/sframe-fuzz.sh)
#
# V=1 shows the commands.

TOP     := $(CURDIR)
BUILD   := $(TOP)/build
PROGS   := $(BUILD)/progs
LIBEXT  := $(MAKE) --no-print-directory -C libtracefs-ext O=$(BUILD)/libtracefs-ext
# The library and its tests again under ASan and UBSan (tests/run.sh runs both).
LIBEXT_ASAN := $(MAKE) --no-print-directory -C libtracefs-ext O=$(BUILD)/libtracefs-ext-asan \
	   SANITIZE=address,undefined
# libusf and ustack-sframe (SFrame V1/V2/V3), and again under ASan and UBSan.
SFRAME  := $(MAKE) --no-print-directory -C sframe O=$(BUILD)/sframe
SFRAME_ASAN := $(MAKE) --no-print-directory -C sframe O=$(BUILD)/sframe-asan \
	   SANITIZE=address,undefined
PLUGIN  := $(MAKE) --no-print-directory -C trace-cmd-plugin O=$(BUILD)/trace-cmd-plugin \
	   LIBEXT_O=$(BUILD)/libtracefs-ext
# The KernelShark 2.2.1 plugin shares the library's build too.
KSPLUGIN := $(MAKE) --no-print-directory -C kernelshark-plugin O=$(BUILD)/kernelshark-plugin \
	   LIBEXT_O=$(BUILD)/libtracefs-ext
# ustack-flame, flame graphs of trace.dat files; the library linked in statically.
FLAME   := $(MAKE) --no-print-directory -C flamegraph O=$(BUILD)/flamegraph \
	   LIBEXT_O=$(BUILD)/libtracefs-ext
CC      ?= gcc

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Test programs: frame pointers everywhere, PIE, a shared library frame.
PROG_CFLAGS := -O2 -g -Wall -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
PROG_SRC    := tests/progs

.PHONY: sframe-fuzz-kernel
.PHONY: all deps kernel-tree kernel-tree-reset kernel kernel-debug kernel-patches perf \
	progs libtracefs-ext trace-cmd-plugin kernelshark-plugin flamegraph sframe sframe-mutate \
	check check-stress demo bench install clean distclean

all: kernel perf progs libtracefs-ext trace-cmd-plugin kernelshark-plugin flamegraph sframe

libtracefs-ext:
	+$(Q)$(LIBEXT)

sframe:
	+$(Q)$(SFRAME) -s

sframe-mutate:
	+$(Q)$(SFRAME) mutate-long

# The trace-cmd plugin links libtracefs-ext statically (it builds it first).
trace-cmd-plugin: libtracefs-ext
	+$(Q)$(PLUGIN)

# plugin-ustack.so for KernelShark (and its test programs); links libtracefs-ext statically.
kernelshark-plugin: libtracefs-ext
	+$(Q)$(KSPLUGIN)

# ustack-flame: trace.dat to folded, speedscope, perf text, SVG or HTML.
flamegraph: libtracefs-ext
	+$(Q)$(FLAME)

# ---- install ----
# Everything but the kernel: the library into the multiarch directory (its .pc
# file names it), the trace-cmd plugin into libtraceevent's plugin directory
# under that libdir and the KernelShark plugin into KernelShark's (with
# prefix=/usr: where Debian's stock programs look), the tools, the man pages
# and the bash completion. prefix=/usr/local, DESTDIR.
prefix		?= /usr/local
MULTIARCH	?= $(or $(DEB_HOST_MULTIARCH),$(shell dpkg-architecture -qDEB_HOST_MULTIARCH \
			2>/dev/null || gcc -print-multiarch))
libdir		?= $(prefix)/lib/$(MULTIARCH)
bindir		?= $(prefix)/bin
mandir		?= $(prefix)/share/man
TRACEEVENT_PLUGINDIR ?= $(libdir)/traceevent/plugins
KSHARK_PLUGINDIR ?= $(libdir)/kernelshark/plugins
INSTALL_VARS	= DESTDIR=$(DESTDIR) prefix=$(prefix) libdir=$(libdir) bindir=$(bindir) \
		  mandir=$(mandir)

install: libtracefs-ext trace-cmd-plugin kernelshark-plugin flamegraph sframe
	+$(Q)$(LIBEXT) $(INSTALL_VARS) install
	+$(Q)$(PLUGIN) $(INSTALL_VARS) plugindir=$(TRACEEVENT_PLUGINDIR) install
	+$(Q)$(KSPLUGIN) $(INSTALL_VARS) plugindir=$(KSHARK_PLUGINDIR) install
	+$(Q)$(FLAME) $(INSTALL_VARS) install
	+$(Q)$(SFRAME) $(INSTALL_VARS) install

deps:
	$(Q)scripts/deps.sh

# ---- Debian packages (docs/packages.md) ----
# The user-space ones (debian/), built from a copy of the tree into build/deb
# and checked by lintian (scripts/deb-build.sh).
.PHONY: deb deb-kernel
deb: deps
	$(Q)scripts/deb-build.sh

# make deb, then the tests of the packages it built (tests/host/deb-*.sh,
# which make check runs too, after its own make deb: ~45 s on 2 busy cores).
.PHONY: check-deb
check-deb: deb
	$(Q)tests/run.sh -k host/deb-

# make deb, then dpkg -i of the packages into a fresh root on the host
# (overlays of /usr, /etc and /var, in a mount namespace): needs root, so
# not among make check's host tests (the guest's deb-install does it there)
.PHONY: check-deb-root
check-deb-root: deb
	$(Q)USTACK_DEB_REQUIRED=1 bash scripts/deb-install-root.sh

# The kernel's, by its bindeb-pkg, in build/deb/kernel (scripts/kernel-deb.sh):
# the config make check boots, or KCONFIG=debian: Debian's config with
# kernel/config/debian.config (docs/kernel.md).
KCONFIG ?= guest
deb-kernel: $(if $(filter debian,$(KCONFIG)),kernel-tree,kernel)
	$(Q)KCONFIG=$(KCONFIG) scripts/kernel-deb.sh

kernel-tree: deps
	$(Q)scripts/kernel-tree.sh

kernel-tree-reset: deps
	$(Q)scripts/kernel-tree.sh --reset

kernel: kernel-tree
	$(Q)DEBUG=$(DEBUG) scripts/kernel-build.sh

kernel-debug: kernel-tree
	$(Q)DEBUG=1 scripts/kernel-build.sh

kernel-patches:
	$(Q)scripts/kernel-patches.sh

.PHONY: kernel-series-build
kernel-series-build: kernel
	$(Q)scripts/kernel-series-build.sh

perf: kernel-tree
	$(Q)scripts/perf-build.sh

# ---- test programs ----
progs: $(PROGS)/ustack-sample $(PROGS)/sframe/ustack-sample $(PROGS)/sframe/ustack-bench \
	$(PROGS)/sframe/ustack-sframe-sysend \
	$(PROGS)/sframe-mix/ustack-sample \
	$(PROGS)/ustack-sample32 $(PROGS)/ustack-bench \
	$(PROGS)/ustack-perf-attr $(PROGS)/libustack-old-kernel.so $(PROGS)/ustack-badfp \
	$(PROGS)/ustack-remap $(PROGS)/ustack-uffd $(PROGS)/ustack-perf-record \
	$(PROGS)/ustack-mmaplock $(PROGS)/ustack-resetter $(PROGS)/ustack-sigret \
	$(PROGS)/ustack-sigdeliver $(PROGS)/sframe/ustack-sigdeliver \
	$(PROGS)/ustack-marker $(PROGS)/ident/a/libustack-sample.so \
	$(PROGS)/ident/b/libustack-sample.so \
	$(PROGS)/sframe/ustack-sframe-reg $(PROGS)/sframe/libustack-sframe-dl-a.so \
	$(PROGS)/sframe/libustack-sframe-dl-b.so $(PROGS)/ustack-flame-names \
	$(PROGS)/ustack-cputime $(PROGS)/ustack-jit $(PROGS)/eh/ustack-sample \
	$(PROGS)/eh/ustack-eh-cases \
	$(PROGS)/eh/ustack-bench \
	$(PROGS)/eh-o1/libustack-sample.so \
	$(PROGS)/sframe/ustack-sframe-fres $(PROGS)/ustack-mremap \
	$(PROGS)/sframe/libustack-mremap.so

# The same code at the same address, from two files in turn.
$(PROGS)/ustack-remap: $(PROG_SRC)/remap.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -fPIE -pie -fno-omit-frame-pointer -o $@ $<

# A deferred walk held in a userfaultfd page fault while a consumer goes.
$(PROGS)/ustack-uffd: $(PROG_SRC)/uffd.c $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -pthread -o $@ $<

# Holds its own mmap_lock through a FUSE daemon that never answers.
$(PROGS)/ustack-mmaplock: $(PROG_SRC)/mmaplock.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -pthread -o $@ $<

# Empties a trace buffer while a deferred stack callback is preempted.
$(PROGS)/ustack-resetter: $(PROG_SRC)/resetter.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -pthread -o $@ $<

# Signals sent and returned from by raw system calls of its own.
$(PROGS)/ustack-sigret: $(PROG_SRC)/sigret.c $(PROG_SRC)/raw-signal.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# trace_marker writes and system calls from frames of its own.
$(PROGS)/ustack-marker: $(PROG_SRC)/marker.c $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# Signals delivered in a wait of its own, and a system call in the handler.
$(PROGS)/ustack-sigdeliver: $(PROG_SRC)/sigdeliver.c $(PROG_SRC)/raw-signal.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# Frame pointers the unwinder must not trust (x86-64 assembly).
$(PROGS)/ustack-badfp: $(PROG_SRC)/badfp.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -fPIE -pie -o $@ $<

# LD_PRELOADed into perf: this kernel seen as one without deferred callchains.
$(PROGS)/libustack-old-kernel.so: $(PROG_SRC)/old-kernel.c $(PROG_SRC)/perf-defer.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -fPIC -shared -o $@ $< -ldl

# perf_event_open() with the deferred callchain bits, for the perf tests.
$(PROGS)/ustack-perf-attr: $(PROG_SRC)/perf-attr.c $(PROG_SRC)/perf-defer.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -o $@ $<

# PERF_RECORD_CALLCHAIN_DEFERRED read word by word from a known chain.
$(PROGS)/ustack-perf-record: $(PROG_SRC)/perf-record.c $(PROG_SRC)/perf-defer.h \
		$(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# Hostile names for the flame graph fixture (tests/fixtures/make-flame-fixture.sh).
$(PROGS)/ustack-flame-names: $(PROG_SRC)/flame-names.c $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# Code in no file, named by a perf map (the plugin's JIT frames).
$(PROGS)/ustack-jit: $(PROG_SRC)/jit.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

# The CPU time of a command, without the machine's idle time (make bench).
$(PROGS)/ustack-cputime: $(PROG_SRC)/cputime.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -o $@ $<

$(PROGS)/ustack-bench: $(PROG_SRC)/bench.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<

$(PROGS)/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $<

$(PROGS)/ustack-sample: $(PROG_SRC)/sample.c $(PROGS)/libustack-sample.so
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -pthread -o $@ $< -L$(PROGS) -lustack-sample \
		-Wl,-rpath,'$$ORIGIN'

# The same program without frame pointers, with .sframe (gas 2.40: V1).
SFRAME_CFLAGS := -O2 -g -Wall -fomit-frame-pointer -Wa,--gsframe

# The library twice, with two build-ids: one file written over by the other.
$(PROGS)/ident/%/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIC -shared \
		-Wl,--build-id=0x$(if $(filter a,$*),aaaa,bbbb)000000000000000000000000000000000000 -o $@ $<

$(PROGS)/sframe/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIC -shared -o $@ $<

$(PROGS)/sframe/ustack-sample: $(PROG_SRC)/sample.c $(PROGS)/sframe/libustack-sample.so
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -pthread -o $@ $< -L$(@D) -lustack-sample \
		-Wl,-rpath,'$$ORIGIN'

$(PROGS)/sframe/ustack-bench: $(PROG_SRC)/bench.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -o $@ $<

$(PROGS)/sframe/ustack-sigdeliver: $(PROG_SRC)/sigdeliver.c $(PROG_SRC)/raw-signal.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -o $@ $<

$(PROGS)/sframe/ustack-sframe-sysend: $(PROG_SRC)/sframe-sysend.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -o $@ $<

# SFrame tables and sections whose FDEs share one run of FREs, the same
# over disjoint runs, and its own .sframe as ld wrote it (sframe-validate.sh).
$(PROGS)/sframe/ustack-sframe-fres: $(PROG_SRC)/sframe-fres.c $(PROG_SRC)/sframe-dev.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -o $@ $<

# A frame-pointer program that moves its SFrame library with mremap()
# (sframe-mremap.sh); the library's chain makes no PLT or GOT access.
$(PROGS)/sframe/libustack-mremap.so: $(PROG_SRC)/mremap-lib.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fno-optimize-sibling-calls -fPIC -shared -o $@ $<

$(PROGS)/ustack-mremap: $(PROG_SRC)/mremap.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $< -ldl

# The SFrame sample with sections it registers itself through /dev/sframe
# (tests/progs/sframe-reg.c): libusf (static) re-encodes its own .sframe;
# JIT copies, dlopen, fuzzing, signals, DRAP. Over the SFrame library.
SFRAME_REG_SRC := $(addprefix $(PROG_SRC)/,sframe-reg.c sframe-reg-sec.c sframe-reg-jit.c \
		  sframe-reg-fuzz.c sframe-reg-dl.c sframe-reg-flood.c sframe-reg-wide.c \
		  sframe-reg-uffd.c sframe-reg-race.c sframe-reg-asm.S)
SFRAME_REG_HDR := $(addprefix $(PROG_SRC)/,sframe-reg.h sframe-dev.h sample.h) sframe/include/usf.h

# libusf.a is sframe/'s: its own make decides whether it is up to date.
$(BUILD)/sframe/libusf.a: FORCE
	+$(Q)$(SFRAME) -s

$(PROGS)/sframe/ustack-sframe-reg: $(SFRAME_REG_SRC) $(SFRAME_REG_HDR) \
		$(PROGS)/sframe/libustack-sample.so $(BUILD)/sframe/libusf.a
	$(Q)$(CC) $(SFRAME_CFLAGS) -D_GNU_SOURCE -Isframe/include -fPIE -pie -pthread -o $@ \
		$(SFRAME_REG_SRC) $(BUILD)/sframe/libusf.a -L$(@D) -lustack-sample -ldl \
		-Wl,-rpath,'$$ORIGIN'

# dlopen()ed by it: the same code, frames of other sizes.
$(PROGS)/sframe/libustack-sframe-dl-%.so: $(PROG_SRC)/sframe-dl-lib.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIC -shared -DSR_DL_PAD=$(if $(filter a,$*),16,200) \
		-o $@ $<

.PHONY: FORCE
FORCE:

# Both in one stack: the SFrame executable over the frame-pointer library.
$(PROGS)/sframe-mix/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $<

$(PROGS)/sframe-mix/ustack-sample: $(PROG_SRC)/sample.c $(PROGS)/sframe-mix/libustack-sample.so
	$(Q)$(CC) $(SFRAME_CFLAGS) -fPIE -pie -pthread -o $@ $< -L$(@D) -lustack-sample \
		-Wl,-rpath,'$$ORIGIN'

# Built as Debian builds: no frame pointers, no .sframe, only .eh_frame
# (the unwind tables root loads, issue 18). eh-o1/ is the same library
# built otherwise: another build-id, other code offsets.
EH_CFLAGS := -O2 -g -Wall -fomit-frame-pointer

$(PROGS)/eh/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(EH_CFLAGS) -fPIC -shared -o $@ $<

$(PROGS)/eh-o1/libustack-sample.so: $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(EH_CFLAGS) -O1 -fPIC -shared -o $@ $<

$(PROGS)/eh/ustack-sample: $(PROG_SRC)/sample.c $(PROGS)/eh/libustack-sample.so
	$(Q)$(CC) $(EH_CFLAGS) -fPIE -pie -pthread -o $@ $< -L$(@D) -lustack-sample \
		-Wl,-rpath,'$$ORIGIN'

$(PROGS)/eh/ustack-bench: $(PROG_SRC)/bench.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(EH_CFLAGS) -fPIE -pie -o $@ $<

$(PROGS)/eh/ustack-eh-cases: $(PROG_SRC)/eh-cases.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(EH_CFLAGS) -fPIE -pie -pthread -o $@ $<

# 32-bit build when the toolchain can make one (gcc-multilib); the tests
# say SKIP with the reason when this file is missing.
$(PROGS)/ustack-sample32: $(PROG_SRC)/sample.c $(PROG_SRC)/sample-lib.c $(PROG_SRC)/sample.h $(PROG_SRC)/raw-syscall.h
	$(Q)mkdir -p $(@D)/lib32
	$(Q)if $(CC) -m32 $(PROG_CFLAGS) -fPIC -shared -o $(@D)/lib32/libustack-sample.so \
		$(PROG_SRC)/sample-lib.c 2>$(@D)/lib32/build.log && \
	   $(CC) -m32 $(PROG_CFLAGS) -fPIE -pie -pthread -o $@ $(PROG_SRC)/sample.c \
		-L$(@D)/lib32 -lustack-sample -Wl,-rpath,'$$ORIGIN/lib32' 2>>$(@D)/lib32/build.log; \
	then :; else echo "progs: no 32-bit toolchain (see $(@D)/lib32/build.log)"; fi

# ---- tests ----
# DEBUG=1: also build the debug kernel and run the guest tests marked
# "kernels: normal debug" on it.
check: deps
	$(Q)$(MAKE) --no-print-directory kernel perf progs libtracefs-ext trace-cmd-plugin kernelshark-plugin \
		flamegraph sframe DEBUG=
	$(Q)if [ "$(DEBUG)" = 1 ]; then $(MAKE) --no-print-directory kernel DEBUG=1; fi
	+$(Q)$(LIBEXT) utest
	+$(Q)$(LIBEXT_ASAN) utest
	+$(Q)$(SFRAME) utest
	+$(Q)$(SFRAME_ASAN) utest
	+$(Q)$(FUZZ)
	$(Q)scripts/deb-build.sh >$(BUILD)/deb-build.log 2>&1 || \
		echo "check: make deb failed (build/deb-build.log): the deb tests fail"
	$(Q)scripts/kernel-deb.sh >$(BUILD)/deb-kernel.log 2>&1 || \
		echo "check: make deb-kernel failed (build/deb-kernel.log): the deb tests fail"
	$(Q)USTACK_DEB_REQUIRED=1 USTACK_DEBUG=$(DEBUG) tests/run.sh

# make check under load (scripts/check-stress.sh): the build and every test
# with STRESS_LOAD busy loops (default: one per CPU) on the same cores.
check-stress:
	$(Q)scripts/check-stress.sh $(MAKE) --no-print-directory check DEBUG=$(DEBUG)

# Fuzzing (tests/fuzz): libFuzzer targets of libtracefs-ext under clang with
# ASan and UBSan, each run FUZZ_SECONDS in turn. make check builds them, and
# tests/host/fuzz.sh runs each briefly.
FUZZ         := $(MAKE) --no-print-directory -C tests/fuzz O=$(BUILD)/fuzz
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	+$(Q)$(FUZZ)
	+$(Q)$(FUZZ) run FUZZ_SECONDS=$(FUZZ_SECONDS)

# All of them at once for FUZZ_LONG_SECONDS, at the lowest CPU priority; a
# finding goes into tests/fuzz/corpus and fails it (scripts/fuzz-long.sh).
FUZZ_LONG_SECONDS ?= 3600
.PHONY: fuzz-long
fuzz-long: deps
	+$(Q)$(FUZZ)
	$(Q)scripts/fuzz-long.sh $(FUZZ_LONG_SECONDS)

# The kernel's SFrame reader under corrupted sections, on the debug kernel
# (KASAN, lockdep, kmemleak: any report fails the run), in runs of
# SFRAME_FUZZ_CHUNK rounds.
SFRAME_FUZZ_N       ?= 100000
SFRAME_FUZZ_CHUNK   ?= 2000
SFRAME_FUZZ_SEED    ?= 1
SFRAME_FUZZ_TIMEOUT ?= 14400
sframe-fuzz-kernel: progs
	$(Q)scripts/guest-run.sh --debug --timeout $(SFRAME_FUZZ_TIMEOUT) -- \
		SFRAME_FUZZ_N=$(SFRAME_FUZZ_N) SFRAME_FUZZ_CHUNK=$(SFRAME_FUZZ_CHUNK) \
		SFRAME_FUZZ_SEED=$(SFRAME_FUZZ_SEED) bash tests/guest/sframe-fuzz.sh

# ustack-flame --stream against an OTLP receiver on loopback, killed and
# restarted, and one that holds the sender, with the default tries and
# timeouts of --otlp-endpoint (tests/long/flame-stream.sh): about a minute
# of the guest under TCG, 26.5 s of it a held export's 5 tries of 5 s.
# make check runs the short one, tests/guest/flame-stream.sh.
.PHONY: check-stream
check-stream: kernel progs flamegraph
	$(Q)scripts/guest-run.sh --timeout 600 -- bash tests/long/flame-stream.sh

# eh-stock's stock programs with the tables service and no table loaded by
# hand, against perf --call-graph dwarf (tests/long/eh-stock-serve.sh):
# about 400 s of the guest, not in make check; DEBUG=1: the debug kernel,
# about 25 minutes.
.PHONY: check-serve
check-serve: kernel perf progs sframe
	$(Q)scripts/guest-run.sh $(if $(filter 1,$(DEBUG)),--debug) \
		--timeout $(if $(filter 1,$(DEBUG)),4500,1500) -- \
		bash tests/long/eh-stock-serve.sh

# Benchmarks: ring-buffer bytes and time per call with and without user
# stacks, measured side by side in one guest (scripts/bench.sh).
bench: deps
	$(Q)$(MAKE) --no-print-directory kernel progs trace-cmd-plugin kernelshark-plugin \
		$(BUILD)/tools/insn-profile.so DEBUG=
	$(Q)scripts/bench.sh

# make bench's QEMU plugin: guest instructions per translation block.
# How soon the proc connector and fanotify hear of an exec (run by hand as
# root on a kernel that has them: docs/tables-service.md).
.PHONY: notify-latency
notify-latency: $(BUILD)/tools/ustack-notify-latency
$(BUILD)/tools/ustack-notify-latency: tests/bench/notify-latency.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -pthread -o $@ $<

$(BUILD)/tools/insn-profile.so: tests/bench/insn-profile.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -shared -fPIC -fvisibility=hidden \
		-o $@ $<

demo: deps
	$(Q)$(MAKE) --no-print-directory kernel progs libtracefs-ext trace-cmd-plugin \
		kernelshark-plugin flamegraph DEBUG=
	$(Q)scripts/demo.sh

clean:
	+$(Q)$(LIBEXT) clean
	+$(Q)$(SFRAME) clean
	+$(Q)$(PLUGIN) clean
	+$(Q)$(KSPLUGIN) clean
	+$(Q)$(FLAME) clean
	$(Q)rm -rf $(PROGS) $(BUILD)/guest $(BUILD)/tests $(BUILD)/perf $(BUILD)/demo

distclean:
	+$(Q)$(LIBEXT) clean
	+$(Q)$(SFRAME) clean
	+$(Q)$(PLUGIN) clean
	+$(Q)$(KSPLUGIN) clean
	+$(Q)$(FLAME) clean
	$(Q)rm -rf $(BUILD)
