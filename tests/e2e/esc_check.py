#!/usr/bin/env python3
"""esc_check.py raw|json|jsonl FILE... - control bytes in vigil's output.

raw: for each FILE, the control bytes a terminal would act on (every byte
below 0x20 but newline, DEL, and the UTF-8 of the C1 controls U+0080 to
U+009F), as "NAME: N control bytes" with NAME the file's base name, then
one line per byte found ("  0x1b at offset 12").
json, jsonl: FILE parsed strictly (UTF-8, Python's json module; jsonl:
one document per line), then, sorted and once each, every string holding
a character below U+0020, U+007F or a C1 control, written with ascii()
so the check file stays ASCII: what a name holding them became once
parsed, which must be the name itself.
"""
import json
import os
import sys

from strict_parse import strings  # every string of a parsed document


def controls(data):
    text = data.decode("utf-8", errors="surrogateescape")
    off = 0
    for ch in text:
        n = len(ch.encode("utf-8", errors="surrogateescape"))
        c = ord(ch)
        if (c < 0x20 and ch != "\n") or 0x7f <= c <= 0x9f:
            yield off, c
        off += n


def main():
    kind = sys.argv[1]
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        if kind == "raw":
            found = list(controls(data))
            print("%s: %d control bytes" % (os.path.basename(path), len(found)))
            for off, c in found:
                print("  0x%02x at offset %d" % (c, off))
            continue
        text = data.decode("utf-8", errors="strict")
        docs = ([json.loads(line) for line in text.splitlines() if line]
                if kind == "jsonl" else [json.loads(text)])
        out = set()
        for d in docs:
            strings(d, out)
        for s in sorted(out):
            if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in s):
                print(ascii(s))


if __name__ == "__main__":
    main()
