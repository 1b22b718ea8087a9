# SPDX-License-Identifier: GPL-2.0
# ipsecperf: `make` builds build/ipsecperf; `make test`; `make demo`.
#
# Options (make VAR=value):
#   CC=cc             compiler for the collector and tests
#   CFLAGS=-O2 -g     your compiler flags (the build's own are added to them)
#   LDFLAGS=, LDLIBS= your linker flags and extra libraries
#   CLANG=clang       compiler for the BPF programs
#   BPF_ARCH=x86      the BPF programs' target architecture (default: from uname -m)
#   BPFTOOL=bpftool   skeleton and vmlinux.h generator
#   VMLINUX_BTF=/sys/kernel/btf/vmlinux   BTF to generate vmlinux.h from
#   SANITIZE=1        build with ASan and UBSan (into build/; changed flags remake every object)
#   V=1               show the full commands
#   DEMO_ARGS=...     options for `make demo` (default: 5 s; run's default repeats and scenarios)
#   TEST_FILTER=...   run only integration tests whose name matches this extended regex ('a|b': either; $$ for $)
#   TEST_JOBS=3       integration tests run at once (default: CPUs + 1, at most 4; 1 runs them in turn)
#   PREFIX=/usr/local where `make install` puts the program (DESTDIR=... stages it)

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
SANITIZE ?=
DEMO_ARGS ?= --duration 5
TEST_FILTER ?=
TEST_JOBS ?=

BUILD := build
OBJDIR := $(BUILD)/obj
# The semantic version lives in one place, debian/changelog's top entry
# (`dch -v X.Y.Z` makes a release). GITDESC is `git describe` of this tree;
# a tree without git (a release tarball, the tree `make deb` builds in)
# has it in .gitdesc, which `make dist` and `git archive` fill in.
VERSION := $(shell awk 'NR == 1 { gsub(/[()]/, ""); print $$2; exit }' debian/changelog)
GITDESC := $(shell if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
	git describe --always --dirty --tags; else sed -n '/^\$$Format/d; /./{p;q;}' .gitdesc 2>/dev/null; fi)
GITDESC := $(or $(GITDESC),unknown)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)


# CFLAGS and LDFLAGS are the user's (make CFLAGS=-O0 keeps working); what
# the build cannot do without is in IPP_CFLAGS and IPP_LDFLAGS, added first.
CFLAGS ?= -O2 -g
# The layers, bottom up: lib (log, files, options, exec), analyze (results
# and statistics, on lib only), host (journal, netlink, namespaces),
# probes, testbed (netns, peer), run (the matrix), kbuild (kernels from
# source), vm (a run in a guest), bisect, cmd (one file per subcommand).
# The collector's layers are under collector/; analyze/ and probes/ sit at
# the top beside it (docs/architecture.md). tools/layers.sh checks that no
# file includes from above.
SRC_DIRS := collector/lib analyze collector/host probes collector/run collector/testbed \
	collector/kbuild collector/vm collector/bisect collector/cmd
IPP_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror=implicit-function-declaration \
	  -I$(BUILD) $(addprefix -I,$(SRC_DIRS)) -I$(BUILD)/probes -I/usr/include/traceevent
IPP_LDFLAGS :=
# libdw (elfutils): a kernel's DWARF, for probes on inlined functions (probes/kdwarf.c)
LIBDW_LIBS := $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw -lelf)
IPP_LDLIBS := -ljansson -linih -lmnl -lbpf $(LIBDW_LIBS) -lelf -lz -lcrypto -lm -ltraceevent
ifeq ($(SANITIZE),1)
IPP_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
IPP_LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

LIB_SRCS := $(filter-out collector/cmd/main.c,$(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
LIB_SRCS := $(filter-out %.bpf.c,$(LIB_SRCS))
LIB_OBJS := $(patsubst %.c,$(OBJDIR)/%.o,$(LIB_SRCS))
BPF_SRCS := $(wildcard probes/*.bpf.c)
BPF_OBJS := $(patsubst probes/%.bpf.c,$(BUILD)/probes/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst probes/%.bpf.c,$(BUILD)/probes/%.skel.h,$(BPF_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.DELETE_ON_ERROR:
# The BPF object and skeleton are intermediates of the build; keep them, or
# every `make` would make them again and rebuild every object after them.
.SECONDARY: $(SKELS) $(BPF_OBJS)
.PHONY: all deps test unit integration kernel-tree demo clean asan fuzz

all: $(BUILD)/ipsecperf

# The BPF programs' target architecture, from the machine (uname -m) as
# libbpf's bpf_tracing.h names it; make BPF_ARCH=arm64 overrides it.
ifeq ($(origin BPF_ARCH),undefined)
BPF_ARCH := $(shell case "$$(uname -m)" in (x86_64|i?86) echo x86;; (aarch64) echo arm64;; \
	(armv7*) echo arm;; (ppc64le) echo powerpc;; (s390x) echo s390;; (riscv64) echo riscv;; \
	(loongarch64) echo loongarch;; esac)
endif
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD) -Iprobes
# Checked only where a BPF program is built, so that `make clean` works anywhere.
bpf_arch_known = $(if $(BPF_ARCH),,$(error unknown machine "$(shell uname -m)": \
	give its BPF target architecture as make BPF_ARCH=x86|arm64|arm|powerpc|s390|riscv|loongarch))

# Generated files: a header or a flags stamp is rewritten only when the text
# it should hold differs from the text it holds, which is decided here at
# parse time, so a second `make` with nothing changed does nothing and
# `make -q` exits 0. $(call gen_file,FILE,VAR): FILE holds VAR's text.
define gen_file
ifneq ($$(file <$(1)),$$($(2)))
$(1): FORCE
endif
$(1): export GEN_TEXT = $$($(2))
$(1):
	@mkdir -p $$(@D)
	$(Q)printf '%s\n' "$$$$GEN_TEXT" > $$@
endef
FORCE:

# build/version.h follows debian/changelog and git describe.
define VERSION_H
#define IPSECPERF_VERSION "$(VERSION)"
#define IPSECPERF_GITDESC "$(GITDESC)"
#define IPSECPERF_VERSION_FULL IPSECPERF_VERSION " (" IPSECPERF_GITDESC ")"
#define IPSECPERF_DEB "ipsecperf_$(VERSION)_$(DEB_ARCH).deb"
endef
$(eval $(call gen_file,$(BUILD)/version.h,VERSION_H))

# Flags stamps: what compiles and links is part of what an object or a
# program is made from, so `make SANITIZE=1` or `make CFLAGS=-O0` after
# `make` remakes every object, and going back remakes them again.
CC_FLAGS_TEXT = $(CC) $(IPP_CFLAGS) $(CFLAGS)
LD_FLAGS_TEXT = $(CC) $(IPP_LDFLAGS) $(LDFLAGS) $(IPP_LDLIBS) $(LDLIBS)
BPF_FLAGS_TEXT = $(CLANG) $(BPF_CFLAGS)
$(eval $(call gen_file,$(BUILD)/flags.cc,CC_FLAGS_TEXT))
$(eval $(call gen_file,$(BUILD)/flags.ld,LD_FLAGS_TEXT))
$(eval $(call gen_file,$(BUILD)/flags.bpf,BPF_FLAGS_TEXT))

$(BUILD)/vmlinux.h:
	$(call msg,GEN,$@)
	@mkdir -p $(BUILD)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BUILD)/probes/%.bpf.o: probes/%.bpf.c $(BUILD)/vmlinux.h $(BUILD)/flags.bpf
	$(bpf_arch_known)$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/probes/%.skel.h: $(BUILD)/probes/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Objects depend on the headers they include through the compiler's
# dependency files (-MMD -MP: build/obj/DIR/FILE.d), so a new commit
# remakes only the files that print the version. The generated headers
# must exist before the first compile, when there are no .d files yet:
# every object waits for version.h and datadir.h (order-only, cheap), but
# only the .c files that include a BPF skeleton (grep) wait for it, as
# it needs clang and bpftool; a changed BPF program remakes those alone.
$(LIB_OBJS) $(OBJDIR)/collector/cmd/main.o: | $(BUILD)/version.h $(BUILD)/datadir.h
skel_users = $(patsubst %.c,$(OBJDIR)/%.o,$(shell grep -l '^\#include "$(notdir $(1))"' \
	$(addsuffix /*.c,$(SRC_DIRS)) 2>/dev/null))
$(foreach h,$(SKELS),$(foreach o,$(call skel_users,$(h)),$(eval $(o): $(h))))

$(OBJDIR)/%.o: %.c $(BUILD)/flags.cc
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(IPP_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

DEP_FILES := $(patsubst %.o,%.d,$(LIB_OBJS) $(OBJDIR)/collector/cmd/main.o $(BPF_OBJS)) $(addsuffix .d,$(UNIT_BINS))
include $(wildcard $(DEP_FILES))

$(BUILD)/libipsecperf.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/ipsecperf: $(OBJDIR)/collector/cmd/main.o $(BUILD)/libipsecperf.a $(BUILD)/flags.ld
	$(call msg,LD,$@)
	$(Q)$(CC) $(IPP_LDFLAGS) $(LDFLAGS) -o $@ $(filter-out %/flags.ld,$^) $(IPP_LDLIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libipsecperf.a $(BUILD)/flags.cc $(BUILD)/flags.ld
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(IPP_CFLAGS) $(CFLAGS) -MMD -MP -MF $@.d -MT $@ $(IPP_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(BUILD)/libipsecperf.a $(IPP_LDLIBS) $(LDLIBS) -lcmocka

# test_probes reads the DWARF of a small program with a function inlined
# twice (probes/kdwarf.c): built as the kernel is, -O2 -g, without the
# sanitizers, whose calls would move the code.
$(BUILD)/tests/test_probes: $(BUILD)/tests/fixture_inline
$(BUILD)/tests/fixture_inline: tests/unit/fixture_inline.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-pie -no-pie -Wall -Wextra -o $@ $<

# The Debian packages ipsecperf needs to build, run and test. `make deps`
# installs the missing ones (apt-get update once, then apt-get install).
DEB_PKGS := gcc make pkg-config iperf3 ethtool iproute2 kmod procps \
	libjansson-dev libinih-dev libmnl-dev libbpf-dev libelf-dev libdw-dev zlib1g-dev \
	libssl-dev libcmocka-dev clang llvm bpftool linux-perf libtraceevent-dev \
	gnuplot-nox qemu-system-x86 busybox-static cpio lz4 zstd xz-utils openssh-server libclang-rt-14-dev \
	chromium strace
# Building a kernel from source (kernel config, kernel build) and the
# tests' own: Debian's 6.12 source, the kernel's build tools, pahole for BTF.
DEB_PKGS += linux-source-6.12 flex bison bc dwarves git
# One dpkg-query for the whole list (a package it does not know is missing);
# apt-get only when something is missing. A dpkg that was stopped half-way
# (its journal in /var/lib/dpkg/updates: apt-get then refuses to install)
# finishes its work first, as apt-get's own message asks.
define apt_install
	@installed=" $$(dpkg-query -W -f='$${Package} $${Status}\n' $(1) 2>/dev/null | \
		awk '$$2 == "install" && $$4 == "installed" { printf "%s ", $$1 }')"; \
	missing=; for p in $(1); do case "$$installed" in *" $$p "*) ;; *) missing="$$missing $$p";; esac; done; \
	if [ -n "$$missing" ]; then \
		if [ -n "$$(ls -A /var/lib/dpkg/updates 2>/dev/null)" ]; then \
			echo "  DEPS     dpkg was interrupted: dpkg --configure -a first"; \
			DEBIAN_FRONTEND=noninteractive dpkg --configure -a || exit $$?; \
		fi; \
		echo "  DEPS     installing:$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef
deps:
	$(call apt_install,$(DEB_PKGS))

# Each program's cases; the ones it skipped (cmocka's skip(): root-only
# cases run without root) named on a SKIP line of their own.
unit: $(UNIT_BINS)
	@fail=0 skipped=0; out=$$(mktemp); for t in $(UNIT_BINS); do echo "  UNIT     $$t"; \
		$$t > $$out 2>&1 || fail=$$((fail + 1)); cat $$out; \
		s=$$(sed -n 's/^\[  SKIPPED \] \([A-Za-z0-9_]*\)$$/\1/p' $$out | sort -u); \
		[ -z "$$s" ] || { echo "  SKIP     $$t:" $$s; skipped=$$((skipped + $$(echo "$$s" | wc -l))); }; \
	done; rm -f $$out; echo "unit: $(words $(UNIT_BINS)) programs, $$fail failed, $$skipped cases skipped"; \
	[ $$fail = 0 ]

# IPSECPERF_TEST_DEPS=1 (make test, after make deps): a test that would
# skip for want of what make deps installs, or of a kernel the tests fetch
# themselves, fails instead (tests/integration/lib.sh, skip_ours).
integration: $(BUILD)/ipsecperf
	@TEST_FILTER='$(TEST_FILTER)' TEST_JOBS='$(TEST_JOBS)' IPSECPERF_TEST_DEPS='$(IPSECPERF_TEST_DEPS)' \
		bash tests/integration/run-all.sh

# The build and the unit tests' binaries on every CPU (half the time on 2)
NPROC := $(shell nproc 2>/dev/null || echo 1)
test: deps
	$(MAKE) -j$(NPROC) all
	$(MAKE) -j$(NPROC) $(UNIT_BINS)
	$(MAKE) unit
	$(MAKE) kernel-tree
	$(MAKE) integration IPSECPERF_TEST_DEPS=1

# `make check`: the tier to run after every change, meant to take 5 minutes on 2
# CPUs: the build, the unit tests, and the integration tests that need no
# guest, kernel tree or peer (those that source vm_lib.sh, kernel_lib.sh
# or peer_lib.sh) and are not in CHECK_SLOW: the Debian package, the fresh
# Debian image and the package lists (test_deb, test_fresh_debian,
# test_deps_cover), the build system's test that builds a second tree
# (test_build), every option on all four testbeds (test_option_testbeds),
# bisect's cache (test_bisect_cache), the HTML pages in a browser
# (test_report_html, test_flamegraph_html) and the tests' own assertions
# (test_asserts). A new
# test joins it unless it is one of those. `make test` runs everything.
CHECK_SLOW := test_deb test_fresh_debian test_deps_cover test_build test_option_testbeds test_bisect_cache \
	test_report_html test_flamegraph_html test_asserts test_fuzz_targets
CHECK_TESTS = $(filter-out $(CHECK_SLOW),$(basename $(notdir $(shell \
	grep -L -E '^\. .*/(vm|kernel|peer)_lib\.sh' tests/integration/test_*.sh))))
.PHONY: check
check:
	$(MAKE) -j$(NPROC) all $(UNIT_BINS)
	$(MAKE) unit
	@TEST_FILTER='^($(shell echo $(CHECK_TESTS) | tr ' ' '|'))$$' TEST_JOBS='$(TEST_JOBS)' bash tests/integration/run-all.sh

# The tests' kernel from source (tests/integration/kernel_lib.sh): built
# once per machine, then only checked.
kernel-tree: $(BUILD)/ipsecperf
	@bash tests/integration/kernel_tree.sh

demo: demo-deps
	$(MAKE) -j$(NPROC) all
	$(BUILD)/ipsecperf run $(DEMO_ARGS)

# `make fuzz`: the libFuzzer targets of tests/fuzz/ (results reader, scenario
# reader, the peer agent's requests and run answers, the guest channel, the
# profiles and flame graph), built with clang, ASan and UBSan, each run for FUZZ_SECONDS in one
# process; corpora and crash inputs stay in build/fuzz/. Not part of `make test`.
FUZZ_SECONDS ?= 600
FUZZ_CC := $(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE \
	$(addprefix -I,$(SRC_DIRS)) -I$(BUILD)
# The results reader is analyze/results*.c (results.h says which does what) and its name lists.
RESULTS_SRCS := $(wildcard analyze/results*.c) analyze/name_list.c
$(BUILD)/fuzz/fuzz_results: tests/fuzz/fuzz_results.c $(RESULTS_SRCS) analyze/stats.c \
		analyze/summary.c collector/lib/log.c collector/lib/files.c collector/lib/histogram.c \
		$(BUILD)/datadir.h $(wildcard analyze/*.h)
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson -lm
$(BUILD)/fuzz/fuzz_scenario: tests/fuzz/fuzz_scenario.c collector/run/scenario.c collector/run/loads_find.c collector/host/enclink_find.c collector/lib/log.c \
		collector/lib/files.c collector/lib/options.c collector/lib/suggest.c collector/run/scenario.h collector/run/loads.h collector/host/enclink.h \
		collector/lib/files.h $(BUILD)/datadir.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -linih -ljansson
$(BUILD)/fuzz/fuzz_peer_request: tests/fuzz/fuzz_peer_request.c collector/testbed/testbed_peer_parse.c collector/host/cpu.c collector/lib/clock.c collector/lib/log.c collector/lib/files.c collector/lib/hex.c \
		collector/testbed/testbed_peer.h collector/host/cpu.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
# The peer agent's run answers: made as the agent makes them, read as the run reads them.
$(BUILD)/fuzz/fuzz_peer_answer: tests/fuzz/fuzz_peer_answer.c collector/host/peer_run.c collector/host/peer_files.c \
		collector/host/kmod_names.c collector/host/cpu.c collector/lib/clock.c \
		collector/host/peer_run.h collector/host/peer_files.h collector/host/remote.h $(BUILD)/version.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson
# The peer agent's request handlers, what acts on the host stood in for by
# the target itself (tests/fuzz/fuzz_peer_agent.c); execvp wrapped, never run.
FUZZ_AGENT_SRCS := collector/testbed/peer_agent.c collector/testbed/peer_agent_answer.c collector/testbed/peer_agent_host.c \
	collector/testbed/peer_agent_ssh.c collector/host/peer_run.c collector/host/peer_files.c \
	collector/testbed/testbed_peer_parse.c collector/host/shell_words.c collector/host/xfrm_msg.c collector/host/xfrm_pcpu.c collector/host/nlsock.c \
	collector/host/kmod_names.c collector/host/cpu.c collector/lib/clock.c collector/lib/log.c \
	collector/lib/files.c collector/lib/secret.c collector/lib/wait.c collector/run/load_util.c \
	collector/lib/hex.c collector/host/enclink_agent.c collector/host/enclink_find.c collector/host/netns_call.c
$(BUILD)/fuzz/fuzz_peer_agent: tests/fuzz/fuzz_peer_agent.c $(FUZZ_AGENT_SRCS) $(BUILD)/version.h $(BUILD)/datadir.h \
		$(wildcard collector/testbed/peer_agent*.h collector/host/peer_*.h)
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -Wl,--wrap=execvp -ljansson -lmnl
# The guest channel: the tar a VM guest sends back and what it holds, as the
# host reads and checks them (guest_tar.c, guest_check.c).
$(BUILD)/fuzz/fuzz_guest: tests/fuzz/fuzz_guest.c collector/testbed/guest_tar.c collector/vm/guest_check.c \
		$(RESULTS_SRCS) collector/lib/log.c collector/lib/files.c $(BUILD)/datadir.h \
		collector/testbed/guest_tar.h collector/vm/guest_check.h analyze/results.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson -lm

# The profiles' readers and the flame graph: folded stacks (or perf script's
# text) through everything report --profile does with them.
$(BUILD)/fuzz/fuzz_profile: tests/fuzz/fuzz_profile.c analyze/profile.c analyze/flamegraph.c analyze/html.c \
		analyze/strmap.c $(RESULTS_SRCS) collector/lib/log.c collector/lib/files.c $(BUILD)/datadir.h \
		analyze/profile.h analyze/flamegraph.h analyze/strmap.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson -lm
# Each input of fuzz_profile expands to at most 256 KiB, handled in linear
# time (under 0.3 s of CPU): the target aborts past 2 s of CPU for one
# input, so a quadratic path is a finding; a unit slower than 2 s of wall
# time is reported, one stuck for 30 s stops the run.
FUZZ_OPTS_profile := -report_slow_units=2 -timeout=30

# One target per line, so that adding one is a line of its own.
FUZZ_TARGETS := results scenario
FUZZ_TARGETS += peer_request
FUZZ_TARGETS += guest
FUZZ_TARGETS += peer_answer
FUZZ_TARGETS += profile
FUZZ_TARGETS += peer_agent
# Each input of fuzz_peer_agent is at most 64 requests, none of which
# waits or runs a program: one past -timeout (wall time: 30 s leaves room
# for a loaded machine) is a slow path. The agent's
# warnings are not the fuzzer's (-close_fd_mask).
FUZZ_OPTS_peer_agent := -max_len=65536 -timeout=30 -report_slow_units=2 -close_fd_mask=3
fuzz: $(patsubst %,fuzz-run-%,$(FUZZ_TARGETS))
# Every target built, none run (tests/integration/test_fuzz_targets.sh)
.PHONY: fuzz-build
fuzz-build: $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
fuzz-run-%: $(BUILD)/fuzz/fuzz_%
	@mkdir -p $(BUILD)/fuzz/corpus-$* $(BUILD)/fuzz/crash-$*
	@echo "  FUZZ     $* for $(FUZZ_SECONDS) s"
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -dict=tests/fuzz/$*.dict $(FUZZ_OPTS_$*) \
		-artifact_prefix=$(BUILD)/fuzz/crash-$*/ $(BUILD)/fuzz/corpus-$* tests/fuzz/seeds/$*

# ---- install, man pages, completion, release tarball, Debian package ----
# `make install` and `make uninstall` honour PREFIX and DESTDIR. The
# program finds its data relative to itself (../share/ipsecperf/ when
# installed, the source folders from build/), so one build works from the
# tree and from any PREFIX; PKGDATADIR is compiled in for a copy of the
# program moved elsewhere.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/ipsecperf
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PKGDATADIR := $(DATADIR)/ipsecperf
INSTALL ?= install
.PHONY: man install uninstall src-tree dist deb demo-deps

# build/datadir.h follows PREFIX and DATADIR.
DATADIR_H = \#define IPSECPERF_DATADIR "$(PKGDATADIR)"
$(eval $(call gen_file,$(BUILD)/datadir.h,DATADIR_H))

# Man pages: made from the program's own help pages by tools/mkman.sh,
# dated by the release's debian/changelog entry.
MAN_DATE := $(shell date -u -d "$$(awk '/^ -- / { sub(/.*>  /, ""); print; exit }' debian/changelog)" +%F)
all: man
man: $(BUILD)/man/ipsecperf.1
$(BUILD)/man/ipsecperf.1: $(BUILD)/ipsecperf tools/mkman.sh tools/help2roff.awk debian/changelog
	$(call msg,MAN,$(BUILD)/man/)
	$(Q)rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	$(Q)sh tools/mkman.sh $(BUILD)/ipsecperf $(BUILD)/man '$(VERSION)' '$(MAN_DATE)' '$(DOCDIR)'

SCENARIO_FILES := $(wildcard scenarios/*.ini)
TEMPLATE_FILES := $(wildcard analyze/templates/*)
DOC_FILES := $(wildcard docs/*.md)
install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGDATADIR)/scenarios $(DESTDIR)$(PKGDATADIR)/templates \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)/docs
	$(Q)$(INSTALL) -m 0755 $(BUILD)/ipsecperf $(DESTDIR)$(BINDIR)/ipsecperf
	$(Q)$(INSTALL) -m 0644 $(SCENARIO_FILES) $(DESTDIR)$(PKGDATADIR)/scenarios/
	$(Q)$(INSTALL) -m 0644 $(TEMPLATE_FILES) $(DESTDIR)$(PKGDATADIR)/templates/
	$(Q)$(INSTALL) -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)$(INSTALL) -m 0644 tools/ipsecperf.bash-completion $(DESTDIR)$(BASHCOMPDIR)/ipsecperf
	$(Q)$(INSTALL) -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	$(Q)$(INSTALL) -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/docs/

# What install made, and the folders of its own (shared ones such as man1 stay).
uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/ipsecperf $(DESTDIR)$(BASHCOMPDIR)/ipsecperf \
		$(DESTDIR)$(MANDIR)/man1/ipsecperf.1 $(DESTDIR)$(MANDIR)/man1/ipsecperf-*.1 \
		$(addprefix $(DESTDIR)$(PKGDATADIR)/scenarios/,$(notdir $(SCENARIO_FILES))) \
		$(addprefix $(DESTDIR)$(PKGDATADIR)/templates/,$(notdir $(TEMPLATE_FILES))) \
		$(DESTDIR)$(DOCDIR)/README.md $(addprefix $(DESTDIR)$(DOCDIR)/docs/,$(notdir $(DOC_FILES)))
	$(Q)for d in $(PKGDATADIR)/scenarios $(PKGDATADIR)/templates $(PKGDATADIR) $(DOCDIR)/docs $(DOCDIR); do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done

# The source tree of a release, without git: the files git knows (tracked,
# or new and not ignored), or all but build/ where there is no git, and
# .gitdesc holding this tree's git describe.
SRC_TREE := $(BUILD)/src/ipsecperf-$(VERSION)
src-tree:
	$(call msg,TREE,$(SRC_TREE))
	$(Q)rm -rf $(BUILD)/src && mkdir -p $(SRC_TREE)
	$(Q)if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -; \
	else tar --exclude=./build -cf - .; fi | tar -xf - -C $(SRC_TREE)
	$(Q)printf '%s\n' '$(GITDESC)' > $(SRC_TREE)/.gitdesc

# `make dist`: build/ipsecperf-X.Y.Z.tar.gz, which builds without git.
dist: src-tree
	$(call msg,TAR,$(BUILD)/ipsecperf-$(VERSION).tar.gz)
	$(Q)tar -C $(BUILD)/src -czf $(BUILD)/ipsecperf-$(VERSION).tar.gz ipsecperf-$(VERSION)

# `make deb`: build/ipsecperf_X.Y.Z_ARCH.deb with dpkg-buildpackage, in a
# copy of the tree (it writes into the tree and beside it). No tests run
# inside (debian/rules); `make test` is where they run.
DEB_FILE := ipsecperf_$(VERSION)_$(DEB_ARCH).deb
deb: src-tree
	$(call msg,DEB,$(BUILD)/$(DEB_FILE))
	$(Q)cd $(SRC_TREE) && DEB_BUILD_OPTIONS="nocheck parallel=$$(nproc) $${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -us -uc $(if $(V),,> ../dpkg-buildpackage.log 2>&1) || \
		{ tail -40 ../dpkg-buildpackage.log 2>/dev/null; exit 1; }
	$(Q)cp $(BUILD)/src/$(DEB_FILE) $(BUILD)/

# `make demo` needs only what builds the program and runs the netns
# testbed: no qemu, no sshd, no test or packaging tools (`make deps` has all).
# Every header `make all` includes and every program it and the demo run
# come from these on a minimal Debian (tests/integration/test_deps_cover.sh
# checks, test_fresh_debian.sh runs the demo there): libdw-dev for
# probes/kdwarf.c, pkg-config for libdw's flags.
DEMO_PKGS := gcc make pkg-config clang bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev libssl-dev \
	libjansson-dev libinih-dev libmnl-dev libtraceevent-dev iperf3 ethtool iproute2 kmod procps
demo-deps:
	$(call apt_install,$(DEMO_PKGS))

# What the tests of the above need besides: packaging, man, completion.
DEB_PKGS += git python3 build-essential debhelper dpkg-dev fakeroot lintian man-db bash-completion
# test_fresh_debian: a minimal Debian image; test_compare: xmllint.
DEB_PKGS += mmdebstrap libxml2-utils

# `make -s print-DEB_PKGS`: a variable's value, for the tests and scripts.
print-%:
	@printf '%s\n' '$($*)'

clean:
	rm -rf $(BUILD)
