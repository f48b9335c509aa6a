#!/bin/bash
# debian-source.sh PACKAGE DEST - unpack Debian 12's source package PACKAGE
# into DEST (a directory that must not exist yet) and print DEST.
#
# Benchmarks and tests that build a real project (SQLite, CPython,
# xz-utils) take its source from Debian's own archive, the one registry
# this project downloads from.  The machine's apt configuration is left
# alone: a private deb-src list and a private package index live under
# build/debsrc/, and the downloaded .dsc and tarballs are kept there, so
# a second call makes no network request.  `apt-get source` verifies the
# files against the archive's signed index before dpkg-source unpacks
# them.
set -euo pipefail

if [[ $# -ne 2 ]]; then
	echo "usage: $0 PACKAGE DEST" >&2
	exit 2
fi
pkg=$1
dest=$2
if [[ -e $dest ]]; then
	echo "debian-source: $dest already exists" >&2
	exit 1
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cache=$root/build/debsrc
mkdir -p "$cache/lists/partial" "$cache/files"
# Tests and benchmarks run side by side (lit runs tests in parallel): one
# fetch at a time, so a second caller finds the first one's files instead
# of racing it for apt's lock and failing.
exec 9>"$cache/lock"
flock 9

apt_opts=(
	-o "Dir::Etc::SourceList=$cache/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$cache/lists"
	-o "APT::Sandbox::User=root"
)
if [[ ! -f $cache/sources.list ]]; then
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
		>"$cache/sources.list"
fi
if ! compgen -G "$cache/lists/*Sources*" >/dev/null; then
	echo "debian-source: fetching Debian's source index" >&2
	apt-get -q "${apt_opts[@]}" update >&2
fi

# The downloaded files are kept; only a package not fetched before
# reaches the network.
if ! compgen -G "$cache/files/${pkg}_*.dsc" >/dev/null; then
	echo "debian-source: fetching the source of $pkg" >&2
	(cd "$cache/files" && apt-get -q "${apt_opts[@]}" source --download-only "$pkg" >&2)
fi
dsc=$(ls "$cache/files/${pkg}"_*.dsc | sort -V | tail -n 1)
exec 9>&-
# dpkg-source puts a copy of the tarballs beside DEST.
mkdir -p "$(dirname "$dest")"
dpkg-source --no-check -x "$dsc" "$dest" >/dev/null
echo "$dest"
