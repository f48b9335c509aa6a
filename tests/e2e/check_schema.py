#!/usr/bin/env python3
"""check_schema.py FILE.json - check one `vigil report --json` document
against docs/report-json.md: every object has exactly the documented keys,
each of the documented type.  Prints one line per problem; exits 1 if any.
"""
import json
import sys

INT, STR, NULL, LIST, BOOL = int, str, type(None), list, bool

SCHEMA = {
    "top": {
        "schema_version": (INT,), "file": (STR,), "state": (STR,),
        "exit_status": (INT, NULL), "pid": (INT,), "command": (LIST,),
        "start_time_ns": (INT,), "end_time_ns": (INT,),
        "total_calls": (INT,), "lost_calls": (INT,), "mode": (STR, NULL),
        "merged": (dict, NULL),
        "modules": (LIST,),
        "threads": (LIST,), "functions": (LIST,), "edges": (LIST,),
        "cycles": (LIST,),
    },
    "merged": {"processes": (INT,), "exit_statuses": (LIST,),
               "cut_short": (INT,), "running": (INT,)},
    "merged.exit_statuses": {"exit_status": (INT,), "processes": (INT,)},
    "modules": {"id": (INT,), "path": (STR,), "build_id": (STR,),
                "load_bias": (STR,)},
    "threads": {"tid": (INT,), "calls": (INT,)},
    "functions": {
        "id": (INT,), "name": (STR,), "label": (STR,),
        "module_id": (INT, NULL), "module": (STR, NULL), "address": (STR,),
        "size_bytes": (INT,), "file": (STR, NULL), "line": (INT, NULL),
        "calls": (INT,), "inlined_only": (BOOL,), "inlined_calls": (INT,),
        "inlined_hosts": (INT,),
    },
    "cycles": {"id": (INT,), "label": (STR,), "calls": (INT,),
               "calls_from_outside": (INT,), "members": (LIST,)},
    "cycles.members": {"function_id": (INT,), "calls": (INT,)},
    "sampled": {"samples": (INT, NULL), "duration_ns": (INT, NULL), "threads": (LIST, NULL),
                "ended_threads": (dict, NULL), "memory": (dict, NULL), "stack_samples": (INT,),
                "stack_lost": (INT,), "frequency_hz": (INT,),
                "functions": (LIST,)},
    "sampled.threads": {"tid": (INT,), "name": (STR,), "cpu_run_ns": (INT,),
                        "cpu_user_us": (INT,), "cpu_sys_us": (INT,)},
    "sampled.ended_threads": {"cpu_user_us": (INT,), "cpu_sys_us": (INT,)},
    "sampled.memory": {"samples": (INT,), "rss_bytes": (dict,),
                       "anon_bytes": (dict,), "file_bytes": (dict,),
                       "swap_bytes": (dict,)},
    "sampled.range": {"min": (INT,), "max": (INT,), "last": (INT,)},
    "sampled.functions": {"name": (STR,), "module": (STR, NULL),
                          "address": (STR,), "self_samples": (INT,),
                          "total_samples": (INT,)},
    "edges": {"caller": (STR,), "callee": (STR,), "caller_id": (INT,),
              "callee_id": (INT,), "site": (STR, NULL),
              "inlined_in": (STR, NULL), "inlined_in_id": (INT, NULL),
              "calls": (INT,)},
}

problems = []


def check(obj, kind, where):
    want = SCHEMA[kind]
    if not isinstance(obj, dict):
        problems.append("%s: not an object" % where)
        return
    if set(obj) != set(want):
        problems.append("%s: keys %s, want %s"
                        % (where, sorted(obj), sorted(want)))
    for k, types in want.items():
        v = obj.get(k)
        # bool is an int in Python; JSON true/false only where BOOL is.
        if k in obj and (not isinstance(v, types) or
                         (isinstance(v, bool) and BOOL not in types)):
            problems.append("%s.%s: %r is not %s"
                            % (where, k, v, "/".join(t.__name__ for t in types)))


def main():
    doc = json.load(open(sys.argv[1]))
    sampled = doc.pop("sampled", None) if isinstance(doc, dict) else None
    check(doc, "top", "$")
    if sampled is not None:
        check(sampled, "sampled", "$.sampled")
        for kind in ("threads", "functions"):
            for i, o in enumerate(sampled.get(kind) or []):
                check(o, "sampled." + kind, "$.sampled.%s[%d]" % (kind, i))
        if sampled.get("ended_threads") is not None:
            check(sampled["ended_threads"], "sampled.ended_threads",
                  "$.sampled.ended_threads")
        mem = sampled.get("memory")
        if mem is not None:
            check(mem, "sampled.memory", "$.sampled.memory")
            for k in ("rss_bytes", "anon_bytes", "file_bytes", "swap_bytes"):
                check(mem.get(k), "sampled.range", "$.sampled.memory." + k)
    merged = doc.get("merged")
    if merged is not None:
        check(merged, "merged", "$.merged")
        for i, o in enumerate(merged.get("exit_statuses") or []):
            check(o, "merged.exit_statuses", "$.merged.exit_statuses[%d]" % i)
    if doc.get("schema_version") != 4:
        problems.append("$.schema_version: %r, want 4"
                        % doc.get("schema_version"))
    for kind in ("modules", "threads", "functions", "edges", "cycles"):
        for i, o in enumerate(doc.get(kind) or []):
            check(o, kind, "$.%s[%d]" % (kind, i))
    n = len(doc.get("functions") or [])
    for i, c in enumerate(doc.get("cycles") or []):
        if c.get("id") != i + 1:
            problems.append("$.cycles[%d].id: %r" % (i, c.get("id")))
        for k, m in enumerate(c.get("members") or []):
            check(m, "cycles.members", "$.cycles[%d].members[%d]" % (i, k))
            if not 0 <= m.get("function_id", -1) < n:
                problems.append("$.cycles[%d].members[%d].function_id out "
                                "of range" % (i, k))
    for i, f in enumerate(doc.get("functions") or []):
        if f.get("id") != i:
            problems.append("$.functions[%d].id: %r" % (i, f.get("id")))
    n = len(doc.get("functions") or [])
    for i, e in enumerate(doc.get("edges") or []):
        for k in ("caller_id", "callee_id", "inlined_in_id"):
            if k == "inlined_in_id" and e.get(k) is None:
                continue
            if not 0 <= e.get(k, -1) < n:
                problems.append("$.edges[%d].%s out of range" % (i, k))
    for p in problems:
        print("check_schema: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
