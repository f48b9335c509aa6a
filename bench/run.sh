#!/bin/bash
# bench/run.sh - time vigil and its peers side by side (`make bench`).
#
# In order, each printing ratios against baselines measured in the same run:
#   bench/attach/attach.py  the live sampler (vigil attach): stop latency,
#                           scan cost, attach time, stack sampling beside
#                           perf record
#   bench/attach/unwind.py  stacks of code without frame pointers (a -O2
#                           tree, Debian's python3 and xz) beside perf
#                           record --call-graph dwarf: reach, junk, depth,
#                           CPU, top 10 inclusive functions; sampler CPU
#                           on 16 threads; target slow-down at 999 Hz
#   bench/runtime.py        the runtime's one-time and structural costs: 1M
#                           distinct edges, fork + exec, instructions per
#                           known call
#   bench/bench.py          vigil and its peers on call-heavy workloads:
#                           wall-time, CPU-time and instruction ratios to
#                           the uninstrumented build (BENCH_* settings)
#   bench/readers.py        vigil report on generated programs of 20k, 200k
#                           and 1M call edges, beside a baseline built from
#                           the commit before the readers' rewrite
#                           (see its docstring for BENCH_BASE, ...)
#   bench/run_merge.py      vigil run around a shell loop of 1000 short
#                           instrumented programs vs. the loop alone,
#                           vigil merge of 1000 profiles of 10k edges, and
#                           xz-utils' make check under vigil run vs. alone
#                           (Debian's source, scripts/debian-source.sh)
#   bench/bolt.py           llvm-bolt fed by vigil's call profile vs. by
#                           its own instrumentation, on SQLite's speedtest1
#                           (Debian's source package): training-run cost,
#                           then the optimized binaries timed against the
#                           original (CPython too: make bench-bolt-cpython)
#   bench/entry_builds.py   (BENCH_ENTRY_ONLY=cost) Lua 5.4 from Debian's
#                           source, plain, inline and entry builds and the
#                           entry mode's floor (a __fentry__ that only
#                           returns): callgrind instructions of
#                           tests/lit/Inputs/bench.lua, CPU of `bench.lua
#                           300`, and fib's instructions per call (issue 17);
#                           (ondemand) the same beside vigil-ondemand's
#                           builds, idle and on (issue 29)
# BENCH_READERS_ONLY=1 runs only the last.  Expects `make all` to have built
# build/libvigil.a (make bench does).
#
# Debian packages it uses: gcc clang libclang-rt-14-dev (clang's profile
# runtime) bolt-19 libbolt-19-dev (BOLT's instrumentation runtime) uftrace
# valgrind linux-perf python3, and for bench/bolt.py dpkg-dev
# debian-archive-keyring tcl.  hyperfine is not needed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/libvigil.a ]; then
	echo "bench: build/libvigil.a is not built; run make first" >&2
	exit 1
fi
status=0
if [ "${BENCH_READERS_ONLY:-}" != 1 ]; then
	missing=()
	for tool in gcc clang uftrace valgrind /usr/lib/llvm-19/bin/llvm-bolt tclsh \
		dpkg-source objdump readelf; do
		command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
	done
	[ -f /usr/lib/llvm-19/lib/libbolt_rt_instr.a ] || missing+=(libbolt_rt_instr.a)
	if [ ${#missing[@]} -gt 0 ]; then
		echo "bench: missing: ${missing[*]} (scripts/install-deps.sh bench installs them)" >&2
		exit 1
	fi
	/usr/bin/python3 bench/attach/attach.py || status=1
	/usr/bin/python3 bench/attach/unwind.py || status=1
	/usr/bin/python3 bench/runtime.py || status=1
	/usr/bin/python3 bench/bench.py "$@" || status=1
	/usr/bin/python3 bench/run_merge.py || status=1
	/usr/bin/python3 bench/bolt.py || status=1
	BENCH_ENTRY_ONLY=cost,ondemand /usr/bin/python3 bench/entry_builds.py || status=1
fi
/usr/bin/python3 bench/readers.py || status=1
/usr/bin/python3 bench/outputs.py || status=1
exit $status
