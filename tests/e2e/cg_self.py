"""cg_self.py CALLGRIND_OUT FUNCTION - prints FUNCTION's own instructions
(Ir, its callees' not included) in a callgrind output file, as
callgrind_annotate's flat profile does, in a fraction of its time (it
annotates every function of the file: 5 s for 20,000 of them)."""
import re
import sys

path, want = sys.argv[1], sys.argv[2]
names = {}
cur = None
after_calls = False
total = 0
with open(path) as f:
    for line in f:
        # A name is given once, where its id first appears: in a fn= or
        # a cfn= line.
        if line.startswith("cfn="):
            m = re.match(r"cfn=\((\d+)\) (.*)$", line.rstrip("\n"))
            if m:
                names[m.group(1)] = m.group(2)
            continue
        if line.startswith("fn="):
            m = re.match(r"fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
                cur = names.get(m.group(1))
            else:
                cur = line[3:].rstrip("\n")
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if after_calls:
                after_calls = False   # the call's inclusive cost
                continue
            if cur == want:
                total += int(line.split()[-1])
print(total)
