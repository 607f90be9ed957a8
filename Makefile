# affbench: one non-recursive Makefile.
#   make              build every program into bin/
#   make check        install missing dependencies, build, run unit + integration tests
#   make sanitize     unit tests under ASan + UBSan (separate build tree)
#   make install      PREFIX=/usr/local DESTDIR=
#   make clean
#   make check-topology   emulated-topology check: QEMU TCG guests with 16 and 72 CPUs
#                         (root, 9-13 minutes; SHAPES="A B C", SAVE=results/emulated)
#   make check-topology-selftest   its checker's self-test alone (no guest, seconds)
# Libraries come from pkg-config (fuse3, cmocka). The pkg-config calls are
# deferred (recursive variables) so 'make check' can install them first.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= gcc
PKG_CONFIG ?= pkg-config

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
# What the code needs whatever CFLAGS the user sets.
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -Ilib $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)
FUSE_CFLAGS = $(shell $(PKG_CONFIG) --cflags fuse3)
FUSE_LIBS   = $(shell $(PKG_CONFIG) --libs fuse3)
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)
LIBS = $(FUSE_LIBS) -lpthread -lm

# Every directory with C sources becomes one program in bin/ named after it.
PROGRAMS := $(foreach d,cputestfs ddpar sqrtio fdget harness,$(if $(wildcard $(d)/*.c),$(d)))
BINS     := $(addprefix bin/,$(PROGRAMS))

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB_A   := $(BUILD)/libaffbench.a

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Small helper programs the integration tests drive (e.g. a crashing knob writer).
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
override CFLAGS += -DAB_KSTATS_WHY='"FUSE is a module on this kernel; kstats needs it built in (CONFIG_FUSE_FS=y)"'
else ifeq ($(wildcard /sys/kernel/btf/vmlinux),)
override CFLAGS += -DAB_KSTATS_WHY='"the kernel has no BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)"'
endif
endif
ifeq ($(HAVE_BPF),1)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
override CFLAGS += -DAB_HAVE_BPF -I$(BUILD)
LIBS += $(shell $(PKG_CONFIG) --libs libbpf)
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
$(BUILD)/kstats.bpf.o: lib/bpf/kstats.bpf.c lib/bpf/kstats_shared.h $(BUILD)/vmlinux.h
	clang -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD) -Ilib/bpf -c $< -o $@
$(BUILD)/kstats.skel.h: $(BUILD)/kstats.bpf.o
	$(BPFTOOL) gen skeleton $< name kstats_bpf > $@.tmp && mv $@.tmp $@
$(BUILD)/lib/kstats.o: $(BUILD)/kstats.skel.h
endif

.PHONY: all check unit-check integration-check sanitize install clean deps check-topology check-topology-selftest
all: $(BINS)

deps:
	@scripts/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# bin/<dir> from <dir>/*.c
define program_rule
$(1)_OBJ := $$(patsubst %.c,$$(BUILD)/%.o,$$(wildcard $(1)/*.c))
bin/$(1): $$($(1)_OBJ) $$(LIB_A)
	@mkdir -p bin
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$($(1)_OBJ) $$(LIB_A) $$(LIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program_rule,$(p))))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(CMOCKA_CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(LIB_A) $(CMOCKA_LIBS) $(LIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LIBS)

# 'check' installs what is missing first, then builds and tests in a second
# pass of this same Makefile (so pkg-config sees the fresh packages).
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN) $(TOOL_BIN)
	@BUILD=$(BUILD) tests/run-tests.sh

# The emulated-topology check (scripts/check-topology.sh): installs what is missing,
# builds, boots each shape under QEMU TCG and checks the run directories it brings back.
SHAPES ?= A B C
check-topology: deps
	@$(MAKE) --no-print-directory all
	@SHAPES="$(SHAPES)" scripts/check-topology.sh $(if $(SAVE),--save $(SAVE))

check-topology-selftest:
	@sh scripts/topology/selftest.sh

unit-check: $(UNIT_BIN)
	@BUILD=$(BUILD) tests/run-tests.sh --unit-only

sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build-san \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" unit-check

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/affbench
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(wildcard harness/plans/*.plan),install -d $(DESTDIR)$(PREFIX)/share/affbench/plans && \
		install -m 0644 harness/plans/*.plan $(DESTDIR)$(PREFIX)/share/affbench/plans/)

clean:
	rm -rf build build-san bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
