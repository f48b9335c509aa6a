#!/usr/bin/env python3
"""doc_links.py ROOT COMMANDS - every relative link of README.md and of
docs/*.md leads to a file that exists, and every #anchor of one to a
heading of that page (as GitHub makes anchors of headings).

COMMANDS is a file naming the commands `vigil help` lists, one a line.
A link to docs/vigil-NAME.md where NAME is no command of this vigil and
the page does not exist is let through with a note: a command's row may
be in README before its command and page are merged.  A missing page of
a command that exists fails (docs-help.test also checks each command's
page).

Prints one line per broken link, "FILE: LINK: why", and exits 1 if any.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def unfenced(path):
    """The lines of the page at path outside its fenced blocks."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
            elif not in_fence:
                yield line


def anchors(path):
    """The anchors GitHub gives the headings of the page at path."""
    seen = {}
    out = set()
    for line in unfenced(path):
        if not line.startswith("#"):
            continue
        text = line.lstrip("#").strip()
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out


def links(path):
    """The links of the page at path, outside fenced blocks."""
    for line in unfenced(path):
        yield from LINK.findall(line)


def main():
    root, commands_file = sys.argv[1], sys.argv[2]
    with open(commands_file) as f:
        commands = {l.strip() for l in f if l.strip()}
    docs = os.path.join(root, "docs")
    pages = [os.path.join(root, "README.md")] + sorted(
        os.path.join(docs, p) for p in os.listdir(docs) if p.endswith(".md"))
    bad = 0
    for page in pages:
        rel_page = os.path.relpath(page, root)
        for link in links(page):
            if re.match(r"^[a-z]+:", link):
                continue  # https:, mailto:
            target, _, anchor = link.partition("#")
            path = (os.path.normpath(os.path.join(os.path.dirname(page), target))
                    if target else page)
            if not os.path.exists(path):
                m = re.match(r"vigil-([a-z0-9-]+)\.md$", os.path.basename(path))
                if m and m.group(1) not in commands:
                    print("%s: %s: note: no such page, and no command '%s' "
                          "in this vigil" % (rel_page, link, m.group(1)))
                    continue
                print("%s: %s: no such file" % (rel_page, link))
                bad += 1
                continue
            if anchor and path.endswith(".md") and anchor not in anchors(path):
                print("%s: %s: no heading with anchor #%s in %s"
                      % (rel_page, link, anchor, os.path.relpath(path, root)))
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
