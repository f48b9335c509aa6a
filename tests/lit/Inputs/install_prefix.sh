#!/bin/bash
# install_prefix.sh DIR - `make install PREFIX=DIR` of the suite's build,
# from a copy of the tree's install inputs (so it never races the suite),
# for tests that build with the installed pkg-config files.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${VIGIL_BUILD:-$root/build}
src=$(mktemp -d "${TMPDIR:-/tmp}/vinst.XXXXXX")
trap 'rm -rf "$src"' EXIT
cp -r "$root/Makefile" "$root"/vigil*.in "$root/include" "$src/"
mkdir -p "$src/build"
cp "$build/libvigil.a" "$build/libvigil.so" "$build/vigil" "$src/build/"
make -s -C "$src" -o all install PREFIX="$1"
