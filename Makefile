# SPDX-License-Identifier: GPL-2.0
# affbench: one non-recursive Makefile. `make help` lists the targets.
# Libraries come from pkg-config (fuse3, liburing, cmocka, libbpf). The pkg-config calls
# are deferred (recursive variables) so 'make check' can install them first.
# Benchmarks are the folders named in harness/registry.def, one line each.

.DEFAULT_GOAL := all

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
BIN     ?= bin
CC      ?= gcc
PKG_CONFIG ?= pkg-config

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
# What the code needs whatever CFLAGS the user sets.
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -Ilib $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)
FUSE_CFLAGS = $(shell $(PKG_CONFIG) --cflags fuse3)
FUSE_LIBS   = $(shell $(PKG_CONFIG) --libs fuse3)
URING_CFLAGS = $(shell $(PKG_CONFIG) --cflags liburing)
URING_LIBS   = $(shell $(PKG_CONFIG) --libs liburing)
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)
LIBS = $(FUSE_LIBS) $(URING_LIBS) -lpthread -lm

REGISTRY := harness/registry.def
BENCHES  := $(shell sed -n 's/^AB_BENCH(\([a-z][a-z0-9_]*\)).*/\1/p' $(REGISTRY))
PROGRAMS := $(BENCHES) harness
BINS     := $(addprefix $(BIN)/,$(PROGRAMS))

# lib/ has six parts, lowest first: sys (CPUs, pinning, processes, options), knob
# (the journal), fuse (mounts and servers), record (records, statistics), kstats
# (BPF), render (tables and plots). A part includes only itself and parts before it.
LIB_SRC := $(filter-out %.bpf.c,$(wildcard lib/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/published.o
LIB_A   := $(BUILD)/libaffbench.a
# Each benchmark's descriptor (<bench>/report*.c) also goes into the harness.
DESC_OBJ := $(foreach b,$(BENCHES),$(patsubst %.c,$(BUILD)/%.o,$(wildcard $(b)/report*.c)))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Small programs the integration tests drive (e.g. a FUSE filesystem another user mounts).
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/tools/%)

# Kernel statistics (lib/kstats) need clang, bpftool, libbpf and kernel BTF;
# without them kstats builds as a stub that says why it is unavailable.
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),$(wildcard /usr/sbin/bpftool))
# The probes read struct fuse_req from vmlinux's BTF: FUSE must be built in.
HAVE_BPF := $(shell command -v clang >/dev/null 2>&1 && test -n "$(BPFTOOL)" && \
	$(PKG_CONFIG) --exists libbpf 2>/dev/null && test -r /sys/kernel/btf/vmlinux && \
	test ! -e /sys/kernel/btf/fuse && echo 1)
ifneq ($(HAVE_BPF),1)
ifneq ($(wildcard /sys/kernel/btf/fuse),)
override CFLAGS += -DAB_KSTATS_WHY='"FUSE is a module on this kernel; kstats needs it built in \
	(CONFIG_FUSE_FS=y)"'
else ifeq ($(wildcard /sys/kernel/btf/vmlinux),)
override CFLAGS += -DAB_KSTATS_WHY='"the kernel has no BTF (/sys/kernel/btf/vmlinux, \
	CONFIG_DEBUG_INFO_BTF)"'
endif
endif

.PHONY: all help check check-loaded unit-check sanitize check-valgrind install clean deps \
	check-topology check-topology-selftest check-lkp check-mutants lkp-lists
.PHONY: man

all: $(BINS)
all: man

help:
	@echo "make                 build every program into $(BIN)/ ($(PROGRAMS))"
	@echo "make check           install what is missing, build, run unit + integration tests"
	@echo "make check-loaded    make check with a busy loop on every CPU (the tests must hold there)"
	@echo "make sanitize        unit tests and the raw.csv and levers fuzz tests under ASan + UBSan,"
	@echo "                     then check-valgrind"
	@echo "make check-valgrind  valgrind over harness run --dry-run of the default plan \
	and a 20-block plan"
	@echo "make check-topology  run the suite in emulated many-CPU guests and the machine matrix"
	@echo "                     (QEMU TCG; 13-19 min; SHAPES=\"A B C matrix\", SAVE=results/emulated)"
	@echo "make check-topology-selftest  the topology checker's self-test alone (no guest)"
	@echo "make check-mutants   one-line mutations of the code (tests/mutants.list), each"
	@echo "                     built and tested in build-mutants/: all must be killed"
	@echo "make check-lkp       affbench as an LKP test case in LKP_SRC=<lkp-tests checkout>, copied"
	@echo "                     (split-job, run, ncompare; root; skipped without LKP_SRC)"
	@echo "make lkp-lists       contrib/lkp's lists of the benchmarks, from the registry"
	@echo "make man             the man pages into $(BUILD)/man/ (part of make)"
	@echo 'make install         PREFIX='$(call shq,$(PREFIX))\
	' DESTDIR=: programs built without test hooks, plans,'
	@echo "                     man pages"
	@echo "make clean           remove build trees and $(BIN)/"
	@echo "make deps            install missing Debian packages (as root)"

deps:
	@scripts/deps.sh

ifeq ($(HAVE_BPF),1)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
override CFLAGS += -DAB_HAVE_BPF -I$(BUILD)
LIBS += $(shell $(PKG_CONFIG) --libs libbpf)
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
$(BUILD)/kstats.bpf.o: lib/kstats/kstats.bpf.c lib/kstats/kstats_bpf_i.h $(BUILD)/vmlinux.h
	clang -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD) -Ilib -c $< -o $@
$(BUILD)/kstats.skel.h: $(BUILD)/kstats.bpf.o
	$(BPFTOOL) gen skeleton $< name kstats_bpf > $@.tmp && mv $@.tmp $@
$(BUILD)/lib/kstats/kstats.o: $(BUILD)/kstats.skel.h
$(BUILD)/breakdown.bpf.o: lib/kstats/breakdown.bpf.c lib/kstats/breakdown_bpf_i.h $(BUILD)/vmlinux.h
	clang -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD) -Ilib -c $< -o $@
$(BUILD)/breakdown.skel.h: $(BUILD)/breakdown.bpf.o
	$(BPFTOOL) gen skeleton $< name breakdown_bpf > $@.tmp && mv $@.tmp $@
$(BUILD)/lib/kstats/breakdown.o: $(BUILD)/breakdown.skel.h
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(URING_CFLAGS) -MMD -MP -c $< -o $@

# The published numbers are data: lib/render/published.tsv, compiled in as one string.
$(BUILD)/published.c: lib/render/published.tsv
	@mkdir -p $(@D)
	{ echo '/* generated from lib/render/published.tsv by the Makefile: edit that file */'; \
	  echo 'const char ab_published_tsv[] ='; \
	  sed -e '/^#/d' -e '/^$$/d' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@
$(BUILD)/published.o: $(BUILD)/published.c
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# $(BIN)/<bench> from <bench>/*.c; the harness also links every descriptor.
# The harness's parts are folders below it (harness/run, report, compare).
define program_rule
$(1)_OBJ := $$(patsubst %.c,$$(BUILD)/%.o,$$(wildcard $(1)/*.c $(3))) $(2)
$$(BIN)/$(1): $$($(1)_OBJ) $$(LIB_A)
	@mkdir -p $$(BIN)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJ) $$(LIB_A) $$(LIBS)
endef
$(foreach p,$(BENCHES),$(eval $(call program_rule,$(p),)))
$(eval $(call program_rule,harness,$(DESC_OBJ),harness/*/*.c))

# A benchmark's unit tests (tests/unit/test_<bench>*.c) link its objects but main.o,
# so they test its functions through <bench>.h.
define unit_rule
$$(filter $$(BUILD)/tests/test_$(1)%,$$(UNIT_BIN)): \
	$$(filter-out $$(BUILD)/$(1)/main.o,$$($(1)_OBJ))
endef
$(foreach p,$(BENCHES),$(eval $(call unit_rule,$(p))))
# The harness's (tests/unit/test_plan*.c, test_compare*.c) likewise link the harness's
# objects but main.o.
$(filter $(BUILD)/tests/test_plan% $(BUILD)/tests/test_compare%,$(UNIT_BIN)): \
	$(filter-out $(BUILD)/harness/main.o,$(harness_OBJ))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(URING_CFLAGS) $(CMOCKA_CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(LIB_A) $(CMOCKA_LIBS) $(LIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.o,$^) $(LIB_A) $(LIBS)
# descs prints the registry's descriptors (contrib/lkp/lists.sh): it links them.
$(BUILD)/tests/tools/descs: $(BUILD)/harness/registry.o $(DESC_OBJ)

# 'check' installs what is missing first, then builds and tests in a second
# pass of this same Makefile (so pkg-config sees the fresh packages).
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(TOOL_BIN)
	@BUILD=$(BUILD) tests/run-tests.sh

# The same while a busy loop runs on every CPU; the loops always stop, the status is make check's.
check-loaded:
	@MAKE="$(MAKE)" tests/check-loaded.sh

unit-check: $(UNIT_BIN)
	@BUILD=$(BUILD) tests/run-tests.sh --unit-only

# The unit tests, then the raw.csv and levers fuzz tests against a sanitized harness.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build-san BIN=build-san/bin \
		EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="-fsanitize=address,undefined" \
		unit-check build-san/bin/harness build-san/tests/tools/mutate
	@AFFBENCH_BUILD=build-san AFFBENCH_HARNESS=$(CURDIR)/build-san/bin/harness tests/fuzz/raw_csv.sh
	@AFFBENCH_HARNESS=$(CURDIR)/build-san/bin/harness tests/fuzz/levers.sh
	@$(MAKE) --no-print-directory check-valgrind

# valgrind (memcheck) over the harness loading, expanding and checking plans: the
# default plan, and 20 blocks (more than the block array starts with). A few
# seconds. ASan builds cannot run under valgrind: this uses the plain build.
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
check-valgrind: deps
	@$(MAKE) --no-print-directory all
	$(VALGRIND) $(BIN)/harness run --dry-run >/dev/null
	$(VALGRIND) $(BIN)/harness run --plan tests/fixtures/plans/blocks20.plan --dry-run >/dev/null
	$(VALGRIND) $(BIN)/harness run --plan list >/dev/null
	@echo "check-valgrind: no error"

# One-line mutations of the code (tests/mutants.list), each built in a scratch copy of
# the tree (build-mutants/) and tested: every one must be killed (scripts/mutants.sh).
check-mutants: deps
	@scripts/mutants.sh

# The emulated-topology check (tests/topology/check-topology.sh, docs/emulated.md): installs
# what is missing, boots each shape under QEMU TCG and checks the run directories.
SHAPES ?= A B C matrix
check-topology: deps
	@$(MAKE) --no-print-directory all
	@SHAPES="$(SHAPES)" tests/topology/check-topology.sh $(if $(SAVE),--save $(SAVE))

check-topology-selftest:
	@sh tests/topology/selftest.sh

# contrib/lkp in a copy of the lkp-tests checkout LKP_SRC (tests/lkp/check-lkp.sh);
# without LKP_SRC it says so in one line and succeeds.
check-lkp:
	@if [ -n "$(LKP_SRC)" ]; then scripts/deps.sh && $(MAKE) --no-print-directory all; fi
	@LKP_SRC="$(LKP_SRC)" tests/lkp/check-lkp.sh

# contrib/lkp's lists of the benchmarks (meta.yaml, etc/index-perf*.yaml, a job for a new
# benchmark) from the registry and the descriptors (contrib/lkp/lists.sh); committed,
# and checked against what it makes by tests/integration/lkp_lists.sh.
lkp-lists: $(BINS) $(BUILD)/tests/tools/descs
	contrib/lkp/lists.sh $(BIN) $(BUILD)/tests/tools/descs contrib/lkp

# The man pages, one per program and affbench(7), from the programs' own --help
# (scripts/man.sh): the option tables stay their one source. A few ms each.
MAN_PAGES := $(addprefix $(BUILD)/man/,$(addsuffix .1,$(PROGRAMS)) affbench.7)
man: $(MAN_PAGES)
$(BUILD)/man/%.1: $(BIN)/% scripts/man.sh
	@mkdir -p $(@D)
	scripts/man.sh page $< > $@.tmp && mv $@.tmp $@
$(BUILD)/man/affbench.7: $(BINS) scripts/man.sh $(REGISTRY) results/README.md
	@mkdir -p $(@D)
	scripts/man.sh overview $(BIN) $(REGISTRY) results/README.md > $@.tmp && mv $@.tmp $@

# $(1) as one shell word: single-quoted, each ' in it as '\''. A DESTDIR or PREFIX may
# hold a space, a ';' or a quote: part of the path, never a second word or command.
shq = '$(subst ','\'',$(1))'
# Where make install puts things, quoted (a path below it: $(TO)/bin).
TO = $(call shq,$(DESTDIR)$(PREFIX))

# Installed programs are built apart, without the test-only environment hooks.
install:
	@$(MAKE) --no-print-directory BUILD=build/install BIN=build/install/bin \
		EXTRA_CFLAGS=-DAB_NO_TEST_HOOKS all
	install -d $(TO)/bin $(TO)/share/affbench/plans
	install -m 0755 $(addprefix build/install/bin/,$(PROGRAMS)) $(TO)/bin/
	install -m 0644 harness/plans/*.plan $(foreach b,$(BENCHES),$(wildcard $(b)/$(b).plan)) \
		$(TO)/share/affbench/plans/
	install -m 0644 harness/timings.tsv $(TO)/share/affbench/
	install -d $(TO)/share/man/man1 $(TO)/share/man/man7
	install -m 0644 $(addprefix build/install/man/,$(addsuffix .1,$(PROGRAMS))) \
		$(TO)/share/man/man1/
	install -m 0644 build/install/man/affbench.7 $(TO)/share/man/man7/

clean:
	rm -rf build build-san build-mutants bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
