#!/bin/bash
# bench/run.sh - time vigil and its peers side by side (`make bench`).
#
# Builds bench/*.c in every variant into build/bench/ and prints wall-time,
# CPU-time and instruction ratios to the uninstrumented build; see
# bench/bench.py for what is measured and the BENCH_* settings.  Expects
# `make all` to have built build/libvigil.a (make bench does).
#
# Then bench/readers.py: vigil report on generated programs of 20k, 200k
# and 1M call edges, beside a baseline built in the same run from the commit before the
# readers' rewrite (BENCH_BASE)
# (see its docstring for BENCH_BASE, BENCH_EDGES, ...).  BENCH_READERS_ONLY=1
# runs only that part.
#
# Debian packages it uses: gcc clang libclang-rt-14-dev (clang's profile
# runtime) bolt-19 libbolt-19-dev (BOLT's instrumentation runtime) uftrace
# valgrind python3.  hyperfine is not needed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/libvigil.a ]; then
	echo "bench: build/libvigil.a is not built; run make first" >&2
	exit 1
fi
status=0
if [ "${BENCH_READERS_ONLY:-}" != 1 ]; then
missing=()
for tool in gcc clang uftrace valgrind /usr/lib/llvm-19/bin/llvm-bolt; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -f /usr/lib/llvm-19/lib/libbolt_rt_instr.a ] || missing+=(libbolt_rt_instr.a)
if [ ${#missing[@]} -gt 0 ]; then
	echo "bench: missing: ${missing[*]} (scripts/install-deps.sh bench installs them)" >&2
	exit 1
fi
/usr/bin/python3 bench/bench.py "$@" || status=1
fi
/usr/bin/python3 bench/readers.py || status=1
exit $status
