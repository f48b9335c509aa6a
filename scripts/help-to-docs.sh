#!/bin/bash
# help-to-docs.sh [--check] [VIGIL [DOCS]] - keep each command's page and
# its --help text one text.
#
# For every command that `VIGIL help` lists (VIGIL: the tree's build/vigil
# by default), the page DOCS/vigil-CMD.md (DOCS: the tree's docs/) holds a
# heading "## Synopsis and options" followed by a fenced block (a line
# starting with three backquotes, up to the next line of exactly three
# backquotes).  This script rewrites that block with the output of
# `VIGIL CMD --help`, and leaves every other line of the page as it is.
# The page's prose (examples, output formats) goes around the block.
#
# With --check it writes nothing: it fails, naming each page whose block
# differs from the binary's --help (with a diff), each command without a
# page, each page without the block and each vigil-*.md page of a command
# the binary does not have.  tests/lit/docs-help.test runs it so.
#
# `make docs` runs it on the built vigil (after a change to a usage string
# in src/cmd-*.c, or after a merge).
set -euo pipefail

check=0
if [ "${1-}" = --check ]; then
	check=1
	shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
vigil=${1:-$root/build/vigil}
docs=${2:-$root/docs}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$vigil" help > "$tmp/list"; then
	echo "help-to-docs: '$vigil help' failed" >&2
	exit 1
fi
cmds=$(sed -n '/^Commands:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$tmp/list")
if [ -z "$cmds" ]; then
	echo "help-to-docs: '$vigil help' lists no command" >&2
	exit 1
fi

status=0
for c in $cmds; do
	page=$docs/vigil-$c.md
	if [ ! -f "$page" ]; then
		echo "help-to-docs: $page: missing (the page of 'vigil $c')" >&2
		status=1
		continue
	fi
	if ! "$vigil" "$c" --help > "$tmp/help"; then
		echo "help-to-docs: '$vigil $c --help' failed" >&2
		status=1
		continue
	fi
	if grep -q '^```' "$tmp/help"; then
		echo "help-to-docs: 'vigil $c --help' has a line starting with \`\`\`, which would end the block" >&2
		status=1
		continue
	fi
	# state 0: before the heading; 1: between the heading and the block's
	# opening fence; 2: in the block (its old lines dropped); 3: after it.
	if ! awk -v help="$tmp/help" '
		state == 0 { print; if ($0 == "## Synopsis and options") state = 1; next }
		state == 1 {
			if ($0 ~ /^## /) exit 2
			print
			if ($0 ~ /^```/) {
				while ((getline line < help) > 0) print line
				state = 2
			}
			next
		}
		state == 2 { if ($0 == "```") { print; state = 3 }; next }
		{ if ($0 == "## Synopsis and options") exit 3; print }
		END { if (state != 3) exit 2 }
	' "$page" > "$tmp/new"; then
		echo "help-to-docs: $page: no single fenced block under '## Synopsis and options'" >&2
		status=1
		continue
	fi
	if cmp -s "$page" "$tmp/new"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "help-to-docs: $page: its 'Synopsis and options' is not 'vigil $c --help' (scripts/help-to-docs.sh, or make docs, rewrites it):" >&2
		diff -u "$page" "$tmp/new" >&2 || true
		status=1
	else
		cp "$tmp/new" "$page"
		echo "help-to-docs: rewrote $page"
	fi
done

for page in "$docs"/vigil-*.md; do
	[ -e "$page" ] || continue
	c=${page##*/vigil-}
	c=${c%.md}
	if ! printf '%s\n' $cmds | grep -qx -- "$c"; then
		echo "help-to-docs: $page: '$vigil help' lists no command '$c'" >&2
		[ $check = 1 ] && status=1
	fi
done
exit $status
