# vigil - plain GNU make.
#
#   make            build the runtime (libvigil.a, libvigil.so) and `vigil`
#                   (first installing the Debian packages that needs, if
#                   missing, or stopping with one line naming them)
#   make demo       install the missing packages the build needs, build,
#                   profile examples/demo: its calls beside its time
#   make check      install missing packages, build, run the whole suite
#   make check-unit, make check-lit   one layer of it
#   make bench      install missing packages, build, time vigil and its peers
#   make bench-bolt-cpython   bench/bolt.py (BOLT fed by vigil) on SQLite
#                   and on CPython, whose builds take much longer
#   make install    PREFIX=/usr/local DESTDIR= : library, header, command,
#                   pkg-config file, GCC specs file
#   make docs       rewrite the "Synopsis and options" block of each
#                   docs/vigil-CMD.md from the built `vigil CMD --help`
#
# Where code runs shows in the tree: runtime/ is linked into profiled
# programs (only what a static binary has: libc, no libdw), lib/ is shared
# by the runtime and the tools (only the files named in RT_LIB below go into
# the runtime), sampler/ is the live sampler, views/ shows and exports the
# profile models, record/ is the live recording that attach and run share,
# src/ is the `vigil` command and its subcommands, tests/, bench/, examples/.

CC      ?= gcc
OPT     ?= -O2 -g
WARN    := -Wall -Wextra
CFLAGS  ?= $(OPT)
PREFIX  ?= /usr/local
# The release: `vigil --version` and the pkg-config files' Version.
VERSION := 0.1.0
DESTDIR ?=
B       := build

# ---- runtime -------------------------------------------------------------
# Never instrumented itself; hidden symbols but for the public API.  Built
# twice: for libvigil.a, which is linked into executables (PIE, non-PIE or
# static), with local-exec TLS, so the hook reads its thread's index with
# one %fs-relative operand; for libvigil.so with initial-exec TLS.
RT_SRC  := $(wildcard runtime/*.c)
# __fentry__ (-pg -mfentry), in assembly: its fast path may touch only
# what the ABI leaves free before a function's prologue.
RT_ASM  := $(wildcard runtime/*.S)
RT_LIB  := lib/crc32.c lib/duration.c lib/pattern.c lib/procid.c
RT_OBJ  := $(patsubst %.c,$(B)/rt/%.o,$(RT_SRC) $(RT_LIB)) \
	$(patsubst %.S,$(B)/rt/%.o,$(RT_ASM))
RT_PIC_OBJ := $(patsubst %.c,$(B)/rt-pic/%.o,$(RT_SRC) $(RT_LIB)) \
	$(patsubst %.S,$(B)/rt-pic/%.o,$(RT_ASM))
RT_CFLAGS := $(CFLAGS) $(WARN) -fvisibility=hidden \
	-fno-instrument-functions -pthread \
	-fno-stack-protector -Iinclude -Ilib -D_GNU_SOURCE

# ---- tools ---------------------------------------------------------------
LIB_SRC  := $(wildcard lib/*.c)
TOOL_SRC := $(wildcard src/*.c views/*.c record/*.c)
TOOL_CFLAGS := $(CFLAGS) $(WARN) -Iinclude -Ilib -Isrc -Iviews -Irecord -D_GNU_SOURCE \
	-DVIGIL_VERSION='"$(VERSION)"'
TOOL_LIBS := -ldw -lelf -llzma

TOOL_OBJ := $(patsubst %.c,$(B)/tool/%.o,$(LIB_SRC) $(TOOL_SRC))
# The live sampler (sampler/): a library of the tool, with its own header.
SAMPLER_SRC := $(wildcard sampler/*.c)
SAMPLER_H := $(wildcard sampler/*.h)
TOOL_OBJ += $(patsubst %.c,$(B)/tool/%.o,$(SAMPLER_SRC))
TOOL_CFLAGS += -Isampler -pthread
TOOL_LIBS += -pthread

# The sanitizer build of the tools and unit tests (ASan + UBSan).
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
ASAN_OBJ := $(patsubst %.c,$(B)/asan/%.o,$(LIB_SRC) $(TOOL_SRC))
ASAN_OBJ += $(patsubst %.c,$(B)/asan/%.o,$(SAMPLER_SRC))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNIT_SRC))

all: $(B)/libvigil.a $(B)/libvigil.so $(B)/vigil

# Before anything is compiled (so `make` and `make install` on a fresh
# machine do not stop at a compiler error about a missing header): install
# the missing packages the build needs, as demo and check do, or stop with
# one line naming them.  Only on Debian, where install-deps.sh can look.
build-deps:
	@if command -v dpkg-query >/dev/null 2>&1; then \
		scripts/install-deps.sh build; fi

$(RT_OBJ) $(RT_PIC_OBJ) $(TOOL_OBJ) $(ASAN_OBJ) $(UNIT_BIN): | build-deps

$(B)/rt/%.o: %.c $(wildcard lib/*.h runtime/*.h include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fPIE -ftls-model=local-exec -c $< -o $@

$(B)/rt-pic/%.o: %.c $(wildcard lib/*.h runtime/*.h include/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fPIC -ftls-model=initial-exec -DVGL_RT_SHARED -c $< -o $@

$(B)/rt/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(B)/rt-pic/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -DVGL_RT_SHARED -c $< -o $@

$(B)/libvigil.a: $(RT_OBJ) Makefile
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(B)/libvigil.so: $(RT_PIC_OBJ) Makefile
	$(CC) -shared -pthread -Wl,-soname,libvigil.so -Wl,-z,nodelete -o $@ $(filter %.o,$^)

$(B)/tool/%.o: %.c $(wildcard lib/*.h src/*.h views/*.h record/*.h include/*.h) $(SAMPLER_H)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -c $< -o $@

$(B)/tool/sampler/%.o: sampler/%.c $(SAMPLER_H) $(wildcard lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -c $< -o $@

$(B)/asan/sampler/%.o: sampler/%.c $(SAMPLER_H) $(wildcard lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(SAN) -c $< -o $@

# The names of the runtime's functions, and of its source files, for
# `vigil check`: the functions a program linked with the runtime has that
# are not the program's own (src/cmd-check.c, partly instrumented).  Read
# from the runtime's objects, so that the list never falls behind them.
# vigil-mcount-rw.o, which every ondemand link has (vigil-mcount-rw.c.in),
# is the runtime's too.
$(B)/gen/rt-names.h: $(RT_OBJ) $(B)/gen/vigil-mcount-rw.o
	@mkdir -p $(B)/gen
	{ echo '/* generated from the runtime objects by the Makefile */'; \
	  echo 'static const char *const rt_function_names[] = {'; \
	  nm --defined-only $(RT_OBJ) $(B)/gen/vigil-mcount-rw.o | \
	    awk 'NF == 3 && $$2 ~ /^[tTiIwW]$$/ { print "\t\"" $$3 "\"," }' | \
	    LC_ALL=C sort -u; \
	  echo '};'; \
	  echo 'static const char *const rt_file_names[] = {'; \
	  for f in $(notdir $(RT_SRC) $(RT_LIB) $(RT_ASM) $(RT_ASM:.S=.o)) vigil-mcount-rw.c.in; do \
	    echo "\t\"$$f\","; done | LC_ALL=C sort -u; \
	  echo '};'; } > $@.tmp && mv $@.tmp $@
$(B)/tool/src/cmd-check.o $(B)/asan/src/cmd-check.o: $(B)/gen/rt-names.h
$(B)/gen/vigil-mcount-rw.o: vigil-mcount-rw.c.in
	@mkdir -p $(B)/gen
	$(MCOUNT_RW_CC) -o $@

$(B)/vigil: $(TOOL_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(TOOL_LIBS)

$(B)/asan/%.o: %.c $(wildcard lib/*.h src/*.h views/*.h record/*.h include/*.h) $(SAMPLER_H)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(SAN) -c $< -o $@

$(B)/asan/vigil: $(ASAN_OBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(TOOL_LIBS)

# Unit tests link the sanitized library objects (not src/vigil.c).
ASAN_LIB_OBJ := $(patsubst %.c,$(B)/asan/%.o,$(LIB_SRC))
$(B)/unit/%: tests/unit/%.c tests/unit/check.h $(ASAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(SAN) -Itests/unit -o $@ $< $(ASAN_LIB_OBJ) $(TOOL_LIBS)

deps:
	@scripts/install-deps.sh check

# demo and check build with one job per CPU (a fresh clone's build, the
# ASan build and the unit tests: 65 s of CPU, about half of it waited for
# on 2 cores when built one file at a time), unless the make that runs
# them already has jobs of its own (-j: its jobserver is in MAKEFLAGS).
BUILD_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS))$(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

demo:
	@scripts/install-deps.sh demo
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@examples/demo.sh

check:
	@scripts/install-deps.sh check
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(B)/asan/vigil $(UNIT_BIN)
	@tests/run.sh

# The quick tier: the suite without whole-project builds, headless Chromium
# and the entry-mode rerun (tests/quick-leaves-out.txt); make check is the
# whole suite, and what CI runs.
check-quick:
	@scripts/install-deps.sh check
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(B)/asan/vigil $(UNIT_BIN)
	@tests/run.sh --quick

# One layer of the suite; tests/run.sh FILTER runs any part of it.
check-unit:
	@scripts/install-deps.sh check
	@$(MAKE) --no-print-directory $(BUILD_JOBS) $(UNIT_BIN)
	@tests/run.sh --layer unit

check-lit:
	@scripts/install-deps.sh check
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@tests/run.sh --layer lit

# The tools' link flags, for the bench scripts that link parts of the
# tools themselves (bench/attach/attach.py, bench/readers.py): one list.
print-tool-libs:
	@echo $(TOOL_LIBS)

bench:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@bench/run.sh

# bench/bolt.py on CPython too (two builds of the interpreter: ~15-25
# minutes on 2 cores the first time), after SQLite's speedtest1.
bench-bolt-cpython:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@BENCH_BOLT_CPYTHON=1 /usr/bin/python3 bench/bolt.py

# vigil-ondemand.pc (vigil-ondemand.specs, vigil-ondemand-cc.specs and
# vigil-mcount-rw.o) is the entry mode with its sites idle until counting
# is asked for (docs/ondemand.md).
# Two pkg-config files, one per counting mode (docs/entry-mode.md):
# vigil-inline.pc (vigil.pc.in: -finstrument-functions) and vigil-entry.pc
# (-pg -mfentry given to the compiler proper only, through GCC's specs
# file vigil-entry-cc.specs); vigil.pc is a copy of DEFAULT_MODE's.
# vigil.specs and vigil-entry.specs (GCC's -specs=, in Libs) link the
# runtime into executables only, never into a shared library (-shared)
# nor a partial link (-r): see vigil.pc.in.  A specs file has no comments (GCC
# would read a "# text: more" line as a compiler for the suffix "# text").
# The default is entry (issue 17): real calls only, at 0.65 of the inline
# mode's cost per call, with every guarantee the inline mode has (G-reload
# through the runtime's dlclose: docs/entry-mode.md).
DEFAULT_MODE := entry
# vigil-mcount-rw.o, linked into every link of the ondemand mode: its
# __mcount_loc writable (no DT_TEXTREL), and its constructor hands the
# section to the runtime (vigil-mcount-rw.c.in says why).  Compiled at
# install time: copies of the tree that install only the build's files
# carry vigil*.in, not runtime/.
MCOUNT_RW_CC = $(CC) -O2 -fPIC -fno-instrument-functions -x c -c vigil-mcount-rw.c.in
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(B)/libvigil.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libvigil.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/vigil.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(B)/vigil $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' vigil.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vigil-inline.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' vigil-entry.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vigil-entry.pc
	cp $(DESTDIR)$(PREFIX)/lib/pkgconfig/vigil-$(DEFAULT_MODE).pc \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/vigil.pc
	sed -e 's|@LIBDIR@|$(PREFIX)/lib|g' vigil.specs.in \
		> $(DESTDIR)$(PREFIX)/lib/vigil.specs
	sed -e 's|@LIBDIR@|$(PREFIX)/lib|g' vigil-entry.specs.in \
		> $(DESTDIR)$(PREFIX)/lib/vigil-entry.specs
	install -m 644 vigil-entry-cc.specs.in \
		$(DESTDIR)$(PREFIX)/lib/vigil-entry-cc.specs
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' vigil-ondemand.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/vigil-ondemand.pc
	sed -e 's|@LIBDIR@|$(PREFIX)/lib|g' vigil-ondemand.specs.in \
		> $(DESTDIR)$(PREFIX)/lib/vigil-ondemand.specs
	install -m 644 vigil-ondemand-cc.specs.in \
		$(DESTDIR)$(PREFIX)/lib/vigil-ondemand-cc.specs
	$(MCOUNT_RW_CC) -o $(DESTDIR)$(PREFIX)/lib/vigil-mcount-rw.o

# Each command's page holds its --help text verbatim (issue 30.5);
# tests/lit/docs-help.test fails when the two differ.
docs: all
	@scripts/help-to-docs.sh $(B)/vigil docs

clean:
	rm -rf $(B)

.PHONY: all build-deps deps demo check check-quick check-unit check-lit bench bench-bolt-cpython print-tool-libs \
	install docs clean

# ---- pprof (vigil convert --to pprof) --------------------------------------
# The pprof schema (proto/profile.proto) compiled by protoc-c into
# build/gen, linked into the tool with libprotobuf-c and zlib.
PROTO_GEN := $(B)/gen/profile.pb-c.c $(B)/gen/profile.pb-c.h
$(PROTO_GEN) &: proto/profile.proto | build-deps
	@mkdir -p $(B)/gen
	protoc-c --proto_path=proto --c_out=$(B)/gen proto/profile.proto
TOOL_CFLAGS += -I$(B)/gen
TOOL_LIBS += -lprotobuf-c -lz -lm
TOOL_OBJ += $(B)/tool/gen/profile.pb-c.o
ASAN_OBJ += $(B)/asan/gen/profile.pb-c.o
$(B)/tool/views/out-pprof.o $(B)/asan/views/out-pprof.o: $(B)/gen/profile.pb-c.h
$(B)/tool/gen/%.o: $(B)/gen/%.c $(B)/gen/profile.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) -w -c $< -o $@
$(B)/asan/gen/%.o: $(B)/gen/%.c $(B)/gen/profile.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_CFLAGS) $(SAN) -w -c $< -o $@
$(B)/vigil: $(B)/tool/gen/profile.pb-c.o
$(B)/asan/vigil: $(B)/asan/gen/profile.pb-c.o

# ---- vigil view ------------------------------------------------------------
# The page's template, views/view.html, as a C string (build/gen/
# view-html.h), so that the command needs no file at run time.
$(B)/gen/view-html.h: views/view.html
	@mkdir -p $(B)/gen
	{ echo '/* made from views/view.html by the Makefile */'; \
	  echo 'static const char view_html[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@
$(B)/tool/views/out-view.o $(B)/asan/views/out-view.o: $(B)/gen/view-html.h
