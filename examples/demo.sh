#!/bin/bash
# demo.sh - build examples/demo.c with vigil as a user would, run it under
# `vigil run`, and show exact calls beside sampled time.
#
# `make demo` runs this after building the runtime and the `vigil` command.
# It installs them into a prefix of its own under the demo's directory
# (build/demo/, or $DEMO_OUT), so that the demo compiles with the very
# line a user types after `make install`:
#     gcc -g -O1 $(pkg-config --cflags --libs vigil) demo.c -o demo
# (the default, entry mode: -pg -mfentry, real calls only), then runs
#     vigil run --scan stacks --frequency 999 -o prof -- ./demo ROUNDS
# which leaves the exact counts (demo.vgl) and the stack samples
# (demo.sampled.vgl) in prof/, and prints `vigil report prof`: each
# function's calls beside its share of the samples and its time per call.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$root/build/demo}
# Enough rounds for a few hundred stack samples at 999 Hz (about half a
# second on a 2-core machine); the counts stay exact whatever the load.
rounds=${DEMO_ROUNDS:-400000}
mkdir -p "$out"
rm -rf "$out/prefix" "$out/prof" "$out/demo"

make -s --no-print-directory -C "$root" install PREFIX="$out/prefix" \
	>/dev/null
export PKG_CONFIG_PATH=$out/prefix/lib/pkgconfig
vigil=$out/prefix/bin/vigil
rel=${out#"$root"/}

cc=${CC:-gcc}
echo "== $cc -g -O1 \$(pkg-config --cflags --libs vigil) examples/demo.c -o $rel/demo"
# shellcheck disable=SC2046  # pkg-config's words are meant to split
"$cc" -g -O1 $(pkg-config --cflags --libs vigil) "$root/examples/demo.c" \
	-o "$out/demo"

echo
echo "== vigil run --scan stacks --frequency 999 -o $rel/prof -- $rel/demo $rounds"
(cd "$out" && "$vigil" run --scan stacks --frequency 999 -o prof -- \
	./demo "$rounds")

echo
echo "== vigil report $rel/prof"
(cd "$out" && "$vigil" report prof)

echo
echo "The profiles are in $rel/prof; try also:"
echo "  vigil report --json $rel/prof"
echo "  vigil flame $rel/prof/demo.vgl -o demo.svg"
echo "  vigil show $rel/prof"
echo "(vigil is $rel/prefix/bin/vigil; pkg-config finds vigil with"
echo " PKG_CONFIG_PATH=$rel/prefix/lib/pkgconfig)"
