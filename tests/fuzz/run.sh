#!/bin/sh
# tests/fuzz/run.sh SECONDS - build the .vgl reader's libFuzzer target with
# ASan and UBSan into build/fuzz/ and run it for SECONDS (default 60),
# seeded with the committed corpus.  The fuzzer works on a copy of the corpus
# under build/, so new inputs never land in the tree.  Exits non-zero when
# the fuzzer finds a crash; the input is left in build/fuzz/.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
out=build/fuzz
mkdir -p "$out"
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -Ilib \
	tests/fuzz/fuzz_reader.c lib/vgl_reader.c lib/crc32.c lib/sortsum.c lib/procid.c \
	-o "$out/fuzz_reader"
rm -rf "$out/corpus"
mkdir -p "$out/corpus/new"
cp -r tests/corpus/good tests/corpus/bad "$out/corpus/"
cd "$out"
# New inputs go to the first directory; the seeds stay as they were.
exec ./fuzz_reader -max_total_time="$secs" -max_len=8192 \
	-artifact_prefix=./ corpus/new corpus/good corpus/bad
