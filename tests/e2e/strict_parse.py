#!/usr/bin/env python3
"""strict_parse.py KIND FILE - parse FILE as a consumer would, strictly.

KIND is json (one document), jsonl (one document per line) or xml.  The
bytes must be UTF-8 (decoded with errors="strict", not the locale's
surrogate escapes) and parse with Python's json module or with expat
(xml.etree), which rejects what XML 1.0 forbids.  On success prints
"valid KIND: N documents" and then, sorted and once each, every string
(JSON string, XML text or attribute value) that holds U+FFFD, the
replacement character, written with ascii() so the check file stays ASCII.
On failure prints "invalid KIND: ERROR" and exits 1.
"""
import json
import sys
import xml.etree.ElementTree as ET


def strings(v, out):
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, dict):
        for k, x in v.items():
            strings(k, out)
            strings(x, out)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    found = set()
    try:
        text = data.decode("utf-8", errors="strict")
        if kind == "json":
            docs = [json.loads(text)]
        elif kind == "jsonl":
            docs = [json.loads(l) for l in text.splitlines() if l.strip()]
        elif kind == "xml":
            root = ET.fromstring(data)
            docs = [root]
        else:
            sys.exit("strict_parse.py: unknown kind " + kind)
    except (UnicodeDecodeError, ValueError, ET.ParseError) as e:
        print("invalid %s: %s" % (kind, e))
        sys.exit(1)
    if kind == "xml":
        for el in root.iter():
            for s in [el.text, el.tail] + list(el.attrib.values()):
                if s:
                    found.add(s)
    else:
        for d in docs:
            strings(d, found)
    print("valid %s: %d documents" % (kind, len(docs)))
    for s in sorted(x for x in found if "\ufffd" in x):
        print(ascii(s))


if __name__ == "__main__":
    main()
