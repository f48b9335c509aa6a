#!/bin/bash
# demo.sh - build examples/demo.c with vigil, run it, and show the profile.
#
# `make demo` runs this after building the runtime and the `vigil` command.
# It compiles the demo the way you would compile your own program (with
# -finstrument-functions and build/libvigil.a: the inline mode, which
# counts inlined copies too; after `make install`, `pkg-config --cflags
# --libs vigil-inline` gives the same flags), runs it with
# VIGIL_FILE pointing into build/demo/ (or $DEMO_OUT), then prints `vigil show` (what the
# file is: program, pid, state, validity) and `vigil report` (the flat
# profile and each function's callers and callees).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$root/build/demo}
mkdir -p "$out"
rm -f "$out"/*.vgl

cc=${CC:-gcc}
echo "== building examples/demo.c with -finstrument-functions and libvigil.a"
"$cc" -g -O1 -finstrument-functions -I"$root/include" \
	"$root/examples/demo.c" -o "$out/demo" \
	-u__cyg_profile_func_enter -u__cyg_profile_func_exit \
	"$root/build/libvigil.a" -pthread \
	-Xlinker --export-dynamic-symbol=__cyg_profile_func_enter \
	-Xlinker --export-dynamic-symbol=__cyg_profile_func_exit \
	-Xlinker --wrap=__cyg_profile_func_enter

echo
rel=${out#"$root"/}
echo "== running: VIGIL_FILE=$rel/demo.vgl $rel/demo"
VIGIL_FILE=$out/demo.vgl "$out/demo"

echo
echo "== vigil show $rel/demo.vgl"
"$root/build/vigil" show "$out/demo.vgl"

echo
echo "== vigil report $rel/demo.vgl"
"$root/build/vigil" report "$out/demo.vgl"

echo
echo "The profile is $rel/demo.vgl; try also:"
echo "  build/vigil report --json $rel/demo.vgl"
