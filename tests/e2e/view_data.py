#!/usr/bin/python3
"""view_data.py PAGE.html - the data of a `vigil view` page as the
browser's parser finds it: the text of the element with id vigil-data
runs to the first "</script" after its start tag (HTML's rule for a
script element's end, whatever JSON string it falls in), and that text
must be the whole JSON object.  Prints how many <script elements the
page has, whether the data holds a raw '<', '&', U+2028 or U+2029, then
every function name (ascii()), one a line; exits 1 if the data does not
parse."""
import json
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
start = page.index('<script type="application/json" id="vigil-data">')
body = page[start:].split(">", 1)[1]
text = body[:re.search(r"</script", body, re.I).start()]
print("scripts: %d" % len(re.findall(r"<script", page, re.I)))
print("raw in data: %s" % (" ".join(c for c in ("<", "&", "\u2028", "\u2029")
                                    if c in text).encode("unicode_escape").decode() or "none"))
try:
    d = json.loads(text)
except ValueError as e:
    print("data does not parse: %s" % e)
    sys.exit(1)
for n in d["names"]:
    print(ascii(n))
