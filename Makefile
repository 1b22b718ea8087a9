# SPDX-License-Identifier: GPL-2.0
# ipsecperf: `make` builds build/ipsecperf; `make test`; `make demo`.
#
# Options (make VAR=value):
#   CC=cc             compiler for the collector and tests
#   CLANG=clang       compiler for the BPF programs
#   BPFTOOL=bpftool   skeleton and vmlinux.h generator
#   VMLINUX_BTF=/sys/kernel/btf/vmlinux   BTF to generate vmlinux.h from
#   SANITIZE=1        build with ASan and UBSan (into build/ all the same)
#   V=1               show the full commands
#   DEMO_ARGS=...     options for `make demo` (default: 10 s, 3 repeats)
#   TEST_FILTER=...   run only integration tests whose name matches

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
SANITIZE ?=
DEMO_ARGS ?= --duration 10 --repeat 3
TEST_FILTER ?=

BUILD := build
OBJDIR := $(BUILD)/obj
VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)


CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror=implicit-function-declaration \
	  -I$(BUILD) -Icollector -Ianalyze -Iprobes -I$(BUILD)/probes -I/usr/include/traceevent
LDLIBS += -ljansson -linih -lmnl -lbpf -lelf -lz -lcrypto -lm -ltraceevent
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

LIB_SRCS := $(filter-out collector/main.c,$(wildcard collector/*.c analyze/*.c probes/*.c))
LIB_SRCS := $(filter-out %.bpf.c,$(LIB_SRCS))
LIB_OBJS := $(patsubst %.c,$(OBJDIR)/%.o,$(LIB_SRCS))
BPF_SRCS := $(wildcard probes/*.bpf.c)
BPF_OBJS := $(patsubst probes/%.bpf.c,$(BUILD)/probes/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst probes/%.bpf.c,$(BUILD)/probes/%.skel.h,$(BPF_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.DELETE_ON_ERROR:
.PHONY: all deps test unit integration demo clean asan fuzz

all: $(BUILD)/ipsecperf

$(BUILD)/version.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define IPSECPERF_VERSION "%s"\n' "$(VERSION)" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(BUILD)/vmlinux.h:
	$(call msg,GEN,$@)
	@mkdir -p $(BUILD)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BUILD)/probes/%.bpf.o: probes/%.bpf.c $(BUILD)/vmlinux.h $(wildcard probes/*.h)
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD) -Iprobes -c $< -o $@

$(BUILD)/probes/%.skel.h: $(BUILD)/probes/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Only the files that print the version depend on it: a new commit then
# rebuilds those, not everything.
VERSION_USERS := $(patsubst %.c,$(OBJDIR)/%.o,$(shell grep -l '"version.h"' collector/*.c analyze/*.c probes/*.c 2>/dev/null))
$(VERSION_USERS): $(BUILD)/version.h

$(OBJDIR)/%.o: %.c $(SKELS) $(wildcard collector/*.h analyze/*.h probes/*.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libipsecperf.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/ipsecperf: $(OBJDIR)/collector/main.o $(BUILD)/libipsecperf.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libipsecperf.a
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libipsecperf.a $(LDLIBS) -lcmocka

# The Debian packages ipsecperf needs to build, run and test. `make deps`
# installs the missing ones (apt-get update once, then apt-get install).
DEB_PKGS := gcc make pkg-config iperf3 ethtool iproute2 kmod procps \
	libjansson-dev libinih-dev libmnl-dev libbpf-dev libelf-dev zlib1g-dev \
	libssl-dev libcmocka-dev clang llvm bpftool linux-perf libtraceevent-dev \
	gnuplot-nox qemu-system-x86 busybox-static cpio openssh-server libclang-rt-14-dev
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

unit: $(UNIT_BINS)
	@fail=0; for t in $(UNIT_BINS); do echo "  UNIT     $$t"; $$t || fail=1; done; exit $$fail

integration: $(BUILD)/ipsecperf
	@TEST_FILTER='$(TEST_FILTER)' bash tests/integration/run-all.sh

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) integration

demo: deps
	$(MAKE) all
	$(BUILD)/ipsecperf run $(DEMO_ARGS) clear no-tso no-gso

# `make fuzz`: the libFuzzer targets of tests/fuzz/ (results reader, scenario
# reader), built with clang, ASan and UBSan, each run for FUZZ_SECONDS in one
# process; corpora and crash inputs stay in build/fuzz/. Not part of `make test`.
FUZZ_SECONDS ?= 600
FUZZ_CC := $(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE \
	-Icollector -Ianalyze -I$(BUILD)
$(BUILD)/fuzz/fuzz_results: tests/fuzz/fuzz_results.c analyze/results.c analyze/stats.c \
		analyze/summary.c collector/log.c $(wildcard analyze/*.h)
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson -lm
$(BUILD)/fuzz/fuzz_scenario: tests/fuzz/fuzz_scenario.c collector/scenario.c collector/log.c \
		collector/scenario.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -linih
fuzz: $(BUILD)/fuzz/fuzz_results $(BUILD)/fuzz/fuzz_scenario
	@for t in results scenario; do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t $(BUILD)/fuzz/crash-$$t; \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-dict=tests/fuzz/$$t.dict -artifact_prefix=$(BUILD)/fuzz/crash-$$t/ $(BUILD)/fuzz/corpus-$$t \
			tests/fuzz/seeds/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD)

# The guest channel's libFuzzer target: the tar a VM guest sends back and
# what it holds, as the host reads and checks them (guest_tar.c,
# guest_check.c); run by `make fuzz` with the others.
.PHONY: fuzz-run-guest
$(BUILD)/fuzz/fuzz_guest: tests/fuzz/fuzz_guest.c collector/guest_tar.c collector/guest_check.c \
		analyze/results.c collector/log.c collector/guest_tar.h collector/guest_check.h analyze/results.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -o $@ $(filter %.c,$^) -ljansson -lm
fuzz: fuzz-run-guest
fuzz-run-guest: $(BUILD)/fuzz/fuzz_guest
	@mkdir -p $(BUILD)/fuzz/corpus-guest $(BUILD)/fuzz/crash-guest
	@echo "  FUZZ     guest for $(FUZZ_SECONDS) s"
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -dict=tests/fuzz/guest.dict \
		-artifact_prefix=$(BUILD)/fuzz/crash-guest/ $(BUILD)/fuzz/corpus-guest tests/fuzz/seeds/guest
