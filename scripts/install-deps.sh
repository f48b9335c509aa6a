#!/bin/bash
# install-deps.sh GROUP - install the Debian packages vigil needs.
#
# GROUP is `build` (what `make` and `make install` need to compile the
# runtime and the `vigil` command), `demo` (build, and pkg-config, which
# `make demo` compiles its example with), `check` (build the runtime and
# tools, run the whole suite: the test tools, and two npm packages into
# build/npm) or `bench` (check plus the profilers that `make bench`
# compares against).  Only check and bench run npm: the demo needs no test
# tool, and npm can wait minutes for a registry that does not answer.
# For a fresh Debian 12 machine: each package is looked up with dpkg-query,
# and only if some are missing does this run `apt-get update` once and then
# install exactly those.  Quiet when everything is present, so `make check`
# on a set-up machine prints nothing from here.  Runs apt-get as root, or
# through sudo when not root and sudo exists.
set -euo pipefail

group=${1:-check}

build_pkgs=(
	make gcc libc6-dev
	libdw-dev libelf-dev          # symbolization in the vigil tool
	liblzma-dev                   # MiniDebugInfo (.gnu_debugdata) in the vigil tool
	libcapstone-dev               # call-site analysis in the vigil tool (dlopen)
	libstdc++-12-dev              # C++ demangling (libstdc++.so.6, dlopen)
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev  # convert --to pprof
)
check_pkgs=(
	make gcc libc6-dev
	clang libclang-rt-14-dev      # libFuzzer for tests/fuzz
	llvm-14-tools                 # lit and FileCheck
	python3 python3-psutil        # lit, and lit --timeout
	libdw-dev libelf-dev          # symbolization in the vigil tool
	liblzma-dev                   # MiniDebugInfo (.gnu_debugdata) in the vigil tool
	libcapstone-dev               # call-site analysis in the vigil tool (dlopen)
	libstdc++-12-dev              # C++ demangling (libstdc++.so.6, dlopen)
	binutils pkg-config util-linux diffutils  # readelf; unshare and mount
	strace                        # tests/lit/guest.test
	autoconf automake libtool     # tests/lit/autotools.test
	cmake meson ninja-build       # tests/lit/ondemand/cmake-meson.test
	dpkg-dev debian-archive-keyring xz-utils  # scripts/debian-source.sh
	                              # (tests/lit/run/xz.test, bench)
	valgrind                      # callgrind_annotate reads convert --to callgrind
	bolt-19                       # llvm-bolt reads convert --to fdata
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev  # convert --to pprof
	nodejs                        # (with npm) pprof-format decodes convert --to pprof
	chromium                      # renders vigil flame's SVG
)
bench_pkgs=(
	valgrind                      # instruction counts
	uftrace
	bolt-19 libbolt-19-dev        # llvm-bolt and its instrumentation runtime
	linux-perf                    # perf record, beside vigil attach --scan stacks
	bpftrace                      # uprobes, beside the live switch (issue 29)
	dpkg-dev debian-archive-keyring  # scripts/debian-source.sh: SQLite, CPython
	tcl                           # tclsh: SQLite's amalgamation (bench/bolt.py)
)

case $group in
build) pkgs=("${build_pkgs[@]}") ;;
demo) pkgs=("${build_pkgs[@]}" pkg-config) ;;
check) pkgs=("${check_pkgs[@]}") ;;
bench) pkgs=("${check_pkgs[@]}" "${bench_pkgs[@]}") ;;
*)
	echo "usage: $0 build|demo|check|bench" >&2
	exit 2
	;;
esac

# npm packages for the tests (check and bench): pinned, into build/npm,
# only when missing.  pprof-format decodes `vigil convert --to pprof`;
# speedscope's page opens it (and folded stacks) in Chromium.
npm_pkgs=(pprof-format@2.3.2 speedscope@1.25.0)
install_npm() {
	local root dir p
	root=$(cd "$(dirname "$0")/.." && pwd)
	dir=$root/build/npm
	local want=()
	for p in "${npm_pkgs[@]}"; do
		[[ -f $dir/node_modules/${p%@*}/package.json ]] || want+=("$p")
	done
	[[ ${#want[@]} -eq 0 ]] && return 0
	command -v npm >/dev/null 2>&1 || return 0   # apt installs it below
	echo "install-deps: npm install ${want[*]} into build/npm" >&2
	mkdir -p "$dir"
	# A registry that stops answering must not hold the suite (or CI)
	# for ever: npm once hung here for minutes on end.  Three tries of at
	# most 3 minutes each (an install takes seconds).
	local try
	for try in 1 2 3; do
		timeout 180 npm install --silent --no-audit --no-fund --save-exact \
			--prefix "$dir" "${want[@]}" >&2 && return 0
		echo "install-deps: npm install failed or timed out (try $try of 3)" >&2
		sleep 5
	done
	return 1
}

needs_npm() { [[ $group == check || $group == bench ]]; }

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [[ $status != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
	needs_npm && install_npm
	exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1; then
	as_root=(sudo)
else
	echo "install-deps: missing packages: ${missing[*]}; run as root to install them" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
"${as_root[@]}" apt-get update -q >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
if needs_npm; then install_npm; fi
