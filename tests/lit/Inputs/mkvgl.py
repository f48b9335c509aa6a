#!/usr/bin/env python3
"""mkvgl.py OUT [MODULE_PATH] - write the corpus's good basic profile
(tests/corpus/mkcorpus.py), with its first module's path replaced by
MODULE_PATH if given: a profile that points the symbolizer at a file of the
test's choosing."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "corpus"))
import mkcorpus  # noqa: E402

spec = mkcorpus.default_spec()
if len(sys.argv) > 2:
    m = list(spec["modules"][0])
    m[5] = sys.argv[2]
    spec["modules"][0] = tuple(m)
with open(sys.argv[1], "wb") as f:
    f.write(bytes(mkcorpus.build(spec)[0]))
