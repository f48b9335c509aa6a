#!/bin/sh
# tests/fuzz/run.sh SECONDS - build the libFuzzer targets with ASan and
# UBSan into build/fuzz/ and run them: the .vgl reader (fuzz_reader) for
# SECONDS (default 60), seeded with the committed corpus, then the text
# writer of every JSON, XML and callgrind output (fuzz_text) for a quarter
# of that (at least 2 s), from nothing but a dictionary of the edge
# sequences (text.dict), and the DWARF line-program reader (fuzz_dwline)
# as long, from real line tables.  The fuzzers work under build/, so
# new inputs never land in the tree.  Exits non-zero when a fuzzer finds a
# crash; the input is left in build/fuzz/.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
text_secs=$((secs / 4))
[ "$text_secs" -ge 2 ] || text_secs=2
out=build/fuzz
mkdir -p "$out"
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -Ilib \
	tests/fuzz/fuzz_reader.c lib/vgl_reader.c lib/crc32.c lib/sortsum.c lib/procid.c lib/maps.c \
	-o "$out/fuzz_reader"
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -Ilib \
	tests/fuzz/fuzz_text.c lib/text.c -o "$out/fuzz_text"
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -Ilib \
	tests/fuzz/fuzz_dwline.c lib/dwline.c -o "$out/fuzz_dwline"
rm -rf "$out/corpus" "$out/text-corpus" "$out/dwline-corpus"
mkdir -p "$out/corpus/new" "$out/text-corpus" "$out/dwline-corpus"
cp -r tests/corpus/good tests/corpus/bad "$out/corpus/"
cd "$out"
# New inputs go to the first directory; the seeds stay as they were.
./fuzz_reader -max_total_time="$secs" -max_len=8192 \
	-artifact_prefix=./ corpus/new corpus/good corpus/bad
# The DWARF line reader, from the line tables of small GCC and Clang
# modules (DWARF 5 and 4: tests/corpus/dwline, each a 2-byte length,
# .debug_line, then .debug_line_str).
cp ../../tests/corpus/dwline/* dwline-corpus/
./fuzz_dwline -max_total_time="$text_secs" -max_len=4096 \
	-artifact_prefix=./dwline- dwline-corpus
exec ./fuzz_text -max_total_time="$text_secs" -max_len=256 \
	-dict=../../tests/fuzz/text.dict \
	-artifact_prefix=./text- text-corpus
