#!/bin/bash
# tests/run.sh - vigil's whole test suite, as `make check` runs it.
#
# In order:
#   1. unit tests: every build/unit/test_* binary; each prints one line per
#      case, "PASS: name" or "FAIL: name: why".  A binary that exits non-zero
#      without a FAIL line, or dies of a signal, counts as one more failure.
#   2. corpus: every file in tests/corpus/bad/ given to `vigil show` and to
#      `vigil report` (the ASan+UBSan build) must exit 1 with exactly one
#      stderr line, starting "vigil: " and naming the file.  Each is a test.
#      So must `vigil convert --to FORMAT` (every format), `vigil flame`
#      and `vigil view`, leaving no output file behind.
#   3. lit: tests/lit with the real llvm-lit (each test is a test; anything
#      unexpected, including a timeout, is a failure), CPUs + 1 at a time,
#      the longest first (tests/lit/.lit_test_times.txt).
#   3b. the runtime's lit tests again in entry mode (VIGIL_MODE=entry),
#       and the guest's among them in ondemand mode (VIGIL_MODE=ondemand).
#   4. fuzz smoke: tests/fuzz/run.sh 20, one test.
#
# Ends with exactly one line "N passed, N failed"; exits non-zero if any
# test failed.  Expects `make all build/asan/vigil` and the unit binaries to
# be built already (make check does that).  Every failure is followed by a
# "rerun:" line with the command that runs that test alone.
#
# Part of the suite:
#   tests/run.sh --layer unit|corpus|lit|fuzz   one layer (make check-unit,
#                                               make check-lit)
#   tests/run.sh FILTER ...   only the tests whose path or name contains a
#                             FILTER: tests/lit/samename.test, symbolizer
#                             (build/unit/test_symbolizer), endings/, ...
#   tests/run.sh --quick      the quick tier (make check-quick): without the
#                             tests tests/quick-leaves-out.txt lists (whole-
#                             project builds, headless Chromium) and without
#                             the entry-mode rerun; it says how many it left
#                             out, and never counts them as passed
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
B=build

layers="unit corpus lit fuzz"
filters=()
quick=0
while (($#)); do
	case $1 in
	--layer)
		layers=${2:-}
		shift 2 || { echo "run.sh: --layer needs unit, corpus, lit or fuzz" >&2; exit 2; }
		;;
	--layer=*) layers=${1#--layer=}; shift ;;
	--quick) quick=1; shift ;;
	-h|--help) sed -n '2,35p' "$0"; exit 0 ;;
	*) filters+=("${1#./}"); shift ;;
	esac
done
for l in $layers; do
	case $l in
	unit|corpus|lit|fuzz) ;;
	*) echo "run.sh: unknown layer '$l' (unit, corpus, lit, fuzz)" >&2; exit 2 ;;
	esac
done
want_layer() { [[ " $layers " == *" $1 "* ]]; }
# Does path/name $1 match one of the filters (or are there none)?
selected() {
	local f
	((${#filters[@]} == 0)) && return 0
	for f in "${filters[@]}"; do
		[[ $1 == *"$f"* ]] && return 0
	done
	return 1
}

# lit: on PATH (lit, llvm-lit), else where Debian's llvm-14-tools puts it.
find_lit() {
	local c
	for c in lit llvm-lit; do
		if command -v "$c" >/dev/null 2>&1; then
			LIT=("$(command -v "$c")")
			return 0
		fi
	done
	for c in /usr/lib/llvm-*/build/utils/lit/lit.py; do
		[[ -f $c ]] && LIT=(/usr/bin/python3 "$c")
	done
	((${#LIT[@]}))
}
LIT=()
# Each run keeps its logs and the lit tests' files in a directory of its
# own, so two runs in one tree (two developers, or make check while lit
# runs by hand) never overwrite each other's files.  Kept when a test
# failed, removed otherwise.
mkdir -p "$B/test-output"
out=$(mktemp -d "$B/test-output/run.XXXXXX") || exit 2
export VIGIL_LIT_OUTPUT=${VIGIL_LIT_OUTPUT:-$root/$out/lit}

passed=0
failed=0
skipped=0   # lit's unsupported tests: neither passed nor failed
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}
section() { echo "== $* =="; }
start=$SECONDS

# ---- 1. unit tests ---------------------------------------------------------
shopt -s nullglob
if want_layer unit; then
section "unit tests"
for src in tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	selected "$src" || selected "$B/unit/$name" || continue
	if [[ ! -x $B/unit/$name ]]; then
		fail "$name: not built ($B/unit/$name missing)"
	fi
done
for bin in $B/unit/test_*; do
	[[ -x $bin ]] || continue
	name=$(basename "$bin")
	selected "$bin" || selected "tests/unit/$name.c" || continue
	log=$out/$name.log
	timeout 300 "$bin" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^PASS: ' "$log")
	f=$(grep -c '^FAIL: ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	grep '^FAIL: ' "$log"
	((f)) && echo "rerun: $bin"
	if ((rc >= 124)); then
		fail "$name: crashed or hung (status $rc); see $log"
		tail -n 5 "$log" | sed 's/^/    /'
	elif ((rc != 0 && f == 0)); then
		fail "$name: exit status $rc without a FAIL line; see $log"
	elif ((p + f == 0)); then
		fail "$name: ran no test cases"
	fi
	echo "$name: $p passed, $f failed"
done
fi

# ---- fuzz smoke, started early ----------------------------------------------
# The fuzzers run for a fixed time whatever else runs, so they go beside
# the corpus checks (which leave the machine half idle between processes)
# instead of after the lit suite; the result is read in layer 4.
fuzz_pid=
if want_layer fuzz && selected tests/fuzz/run.sh && [[ -x tests/fuzz/run.sh ]]; then
	# Its status goes to a file: the corpus layer waits for its own jobs
	# only, but whoever reaps this one, the result is not lost.
	{ tests/fuzz/run.sh 20 >"$out/fuzz.log" 2>&1; echo $? >"$out/fuzz.rc"; } &
	fuzz_pid=$!
fi

# ---- 2. corpus of bad files -----------------------------------------------
# One check: `vigil ARGS...` (the ASan build) on a bad file must exit 1 with
# one stderr line that starts "vigil: " and names the file, and leave no
# output file OUT behind (OUT empty: none expected); its stderr goes to
# ERR.  Prints "PASS" or the failure and its rerun line; run two at a time
# (each is one process of the ASan build, most of it start-up), the
# results then read in order.  Only bash builtins besides timeout and
# vigil: a process start costs milliseconds of system time on a VM, and
# there are 520 checks.
corpus_check() {
	local file=$1 conv=$2 err=$3 rc lines first l
	local -a text
	shift 3
	# LeakSanitizer's scan at exit is 60% of a run's CPU.  It runs for
	# show, report, flame and convert --to json; the other formats fail
	# in the same reader and the same convert command as json does, so
	# they run without it (260 runs, some 16 s of CPU).
	local lsan=1
	[[ $1 == convert && $* != *"--to json"* ]] && lsan=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$lsan \
		timeout 60 "$B/asan/vigil" "$@" >/dev/null 2>"$err"
	rc=$?
	mapfile text <"$err"
	# Lines as wc -l counts them: a last line without its newline is none.
	lines=${#text[@]}
	((lines)) && [[ ${text[lines - 1]} != *$'\n' ]] && lines=$((lines - 1))
	first=${text[0]-}
	first=${first%$'\n'}
	if ((rc != 1)); then
		echo "FAIL: vigil $*: exit status $rc, want 1"
		for l in "${text[@]:0:5}"; do printf '    %s\n' "${l%$'\n'}"; done
	elif ((lines != 1)); then
		echo "FAIL: vigil $*: $lines stderr lines, want 1"
		for l in "${text[@]:0:5}"; do printf '    %s\n' "${l%$'\n'}"; done
	elif [[ $first != "vigil: "* || $first != *"$file"* ]]; then
		echo "FAIL: vigil $*: stderr does not start 'vigil: ' and name the file: $first"
	elif [[ -n $conv ]] && compgen -G "$conv*" >/dev/null; then
		echo "FAIL: vigil $*: left an output file behind"
	else
		echo PASS
		return
	fi
	echo "rerun: $B/asan/vigil $*"
}
if want_layer corpus; then
section "corpus"
if [[ ! -x $B/asan/vigil ]]; then
	fail "corpus: $B/asan/vigil not built"
else
	# The checks, one per line of a job list: show and report of every
	# file, then every converter (vigil convert, json included, vigil
	# flame and vigil view) the same way.
	jobs_dir=$(mktemp -d "$out/corpus-jobs.XXXXXX")
	ncorpus=0
	nconv=0
	njobs=0
	for file in tests/corpus/bad/*; do
		[[ -f $file ]] || continue
		selected "$file" || continue
		for cmd in show report; do
			ncorpus=$((ncorpus + 1))
			njobs=$((njobs + 1))
			printf '%s\n' "$file" "" "$cmd" "$file" >"$jobs_dir/$njobs.args"
		done
	done
	for file in tests/corpus/bad/*; do
		[[ -f $file ]] || continue
		selected "$file" || continue
		for to in callgrind folded fdata pprof json flame view; do
			nconv=$((nconv + 1))
			njobs=$((njobs + 1))
			conv=$jobs_dir/$njobs.out
			if [[ $to == flame || $to == view ]]; then
				printf '%s\n' "$file" "$conv" "$to" "$file" -o "$conv"
			else
				printf '%s\n' "$file" "$conv" convert "$file" --to "$to" -o "$conv"
			fi >"$jobs_dir/$njobs.args"
		done
	done
	pids=()
	for ((i = 1; i <= njobs; i++)); do
		mapfile -t args <"$jobs_dir/$i.args"
		corpus_check "${args[0]}" "${args[1]}" "$jobs_dir/$i.err" "${args[@]:2}" >"$jobs_dir/$i.result" &
		pids+=($!)
		# Two at a time: wait for one of the corpus jobs (never the
		# fuzz smoke run beside them).
		if ((${#pids[@]} >= 2)); then
			wait -n -p done_pid "${pids[@]}"
			left=()
			for p in "${pids[@]}"; do
				[[ $p == "$done_pid" ]] || left+=("$p")
			done
			pids=("${left[@]}")
		fi
	done
	((${#pids[@]})) && wait "${pids[@]}"
	for ((i = 1; i <= njobs; i++)); do
		if [[ $(head -n 1 "$jobs_dir/$i.result") == PASS ]]; then
			pass
		else
			failed=$((failed + 1))
			cat "$jobs_dir/$i.result"
		fi
	done
	rm -rf "$jobs_dir"
	echo "corpus: $ncorpus checks"
	echo "corpus: $nconv converter checks"
fi
fi

# ---- 3. lit ----------------------------------------------------------------
lit_tests=()
left_out=0
# A path the list names that is no test would leave nothing out, silently.
if ((quick)); then
	while read -r t; do
		[[ -z $t || $t == \#* || -f $t ]] ||
			fail "quick tier: tests/quick-leaves-out.txt names $t, which is no test"
	done <tests/quick-leaves-out.txt
fi
for t in $(find tests/lit -name '*.test' -not -path '*/Inputs/*' -not -path '*/Output/*' | sort); do
	selected "$t" || continue
	if ((quick)) && grep -qxF "$t" tests/quick-leaves-out.txt; then
		left_out=$((left_out + 1))
		continue
	fi
	lit_tests+=("$t")
done
# ---- 3b. lit again, entry mode (issue 17) -----------------------------------
# The runtime's tests a second time with VIGIL_MODE=entry (tests/e2e/vcc
# builds with -pg -mfentry: __fentry__ counts), by a run of this script of
# their own; its failures are rerun with VIGIL_MODE=entry.  Those whose
# outcome the hook can change: the rest of harmless/ and interval/ (file
# errors, disk full, the window thread, harness timing: the same C code
# after the first call in both modes) pass in entry mode too, and cost
# about a third of the run's time, so they run in one mode only.  The run
# goes on beside the main lit run, one test at a time: it fills the CPU
# that the main run leaves idle while its tests wait on the programs
# they watch, and while the xz-utils build ends the run alone.  profiles/
# (fork, raw fork, fork and exec, threads at fork, the profile's name and
# its end), the API, Clang and the default name joined them later: about
# 22 s more of this run, which still ends well before the main one.
# trust/rt-* (issue 28: what the runtime creates, and where) too.
entry_tests=()
for t in "${lit_tests[@]}"; do
	case $t in
	tests/lit/endings/*|tests/lit/hostile/*|tests/lit/harmless/address-*.test|tests/lit/harmless/unchanged.test|tests/lit/interval/windows.test|tests/lit/fork.test|tests/lit/threads.test|tests/lit/short-threads.test|tests/lit/shlib.test|tests/lit/nopie.test|tests/lit/samename.test|tests/lit/limits.test|tests/lit/guest.test|tests/lit/inline.test|tests/lit/profiles/*|tests/lit/api/reset.test|tests/lit/api/set-file.test|tests/lit/clang.test|tests/lit/default-name.test|tests/lit/trust/rt-*) entry_tests+=("$t") ;;
	esac
done
# Then, in the same run, the guest's tests (fork, exec, every ending, the
# reloads, IFUNC resolvers) with VIGIL_MODE=ondemand (issue 29): built as
# vigil-ondemand.pc builds, started with VIGIL_FILE set, which must count
# as the entry mode does (about 40 s more, one test at a time).
ondemand_tests=()
for t in "${entry_tests[@]}"; do
	case $t in
	tests/lit/endings/*|tests/lit/fork.test|tests/lit/shlib.test|tests/lit/threads.test|tests/lit/profiles/fork-*.test|tests/lit/profiles/raw-fork.test|tests/lit/profiles/reload-same-address.test|tests/lit/hostile/fds.test|tests/lit/hostile/ifunc.test|tests/lit/hostile/longjmp.test|tests/lit/hostile/sigedges.test|tests/lit/hostile/static-tls.test) ondemand_tests+=("$t") ;;
	esac
done
entry_pid=
if want_layer lit && ((!quick)) && [[ -z ${VIGIL_MODE:-} || ${VIGIL_MODE:-} == enter ]] && ((${#entry_tests[@]})); then
	{
		VIGIL_LIT_JOBS=1 VIGIL_MODE=entry VIGIL_LIT_OUTPUT=$root/$out/lit-entry "$0" --layer lit "${entry_tests[@]}" >"$out/lit-entry.log" 2>&1
		if ((${#ondemand_tests[@]})); then
			VIGIL_LIT_JOBS=1 VIGIL_MODE=ondemand VIGIL_LIT_OUTPUT=$root/$out/lit-ondemand "$0" --layer lit "${ondemand_tests[@]}" >"$out/lit-ondemand.log" 2>&1
		fi
	} &
	entry_pid=$!
fi

if want_layer lit && ((${#lit_tests[@]})); then
section "lit"
json=$out/lit.json
rm -f "$json"
if ! find_lit; then
	fail "lit: not found on PATH (lit, llvm-lit) nor in /usr/lib/llvm-*/build/utils/lit (scripts/install-deps.sh installs llvm-14-tools)"
else
# All of tests/lit when nothing filters, so lit finds its config once.
if ((${#filters[@]} == 0 && !quick)); then
	lit_args=(tests/lit)
else
	lit_args=("${lit_tests[@]}")
fi
# One worker more than there are CPUs: with one per CPU, the CPUs were
# idle a fifth of the time (955 s of CPU in 611 s on 2 idle cores), the
# tests waiting on attach intervals and on the programs they watch;
# another test's work fills that.  Longest first (lit's default order
# reads tests/lit/.lit_test_times.txt): the xz-utils build starts at
# once instead of ending the run alone.
jobs=${VIGIL_LIT_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 1))}
"${LIT[@]}" -sv --time-tests --timeout 900 -j "$jobs" -o "$json" "${lit_args[@]}"
lit_rc=$?
if [[ ! -s $json ]]; then
	fail "lit: no results (exit status $lit_rc)"
else
	read -r lp lf lskipped < <(/usr/bin/python3 - "$json" "$root" <<-'EOF'
	import json, os, sys
	ok = {"PASS", "XFAIL"}
	tests = json.load(open(sys.argv[1]))["tests"]
	good = sum(1 for t in tests if t["code"] in ok)
	skipped = [t for t in tests if t["code"] == "UNSUPPORTED"]
	for t in tests:
	    if t["code"] not in ok and t["code"] != "UNSUPPORTED":
	        # "vigil :: endings/exit.test" -> tests/lit/endings/exit.test
	        path = os.path.join("tests/lit", t["name"].split(" :: ", 1)[-1])
	        print("FAIL: lit: %s: %s" % (t["name"], t["code"]), file=sys.stderr)
	        print("rerun: tests/run.sh %s" % path, file=sys.stderr)
	for t in skipped:
	    print("skipped: lit: %s (unsupported here)" % t["name"], file=sys.stderr)
	for t in tests:
	    if t["code"] == "XFAIL":
	        print("known bug: lit: %s (XFAIL)" % t["name"], file=sys.stderr)
	print(good, len(tests) - good - len(skipped), len(skipped))
	EOF
	)
	passed=$((passed + lp))
	failed=$((failed + lf))
	skipped=$((skipped + lskipped))
	if ((lf == 0 && lit_rc != 0)); then
		fail "lit: exit status $lit_rc with no failing test"
	fi
	echo "lit: $lp passed, $lf failed"
	((quick)) && echo "lit: $left_out tests left out by the quick tier (tests/quick-leaves-out.txt; make check runs them)"
fi
fi
fi

# The entry-mode and ondemand runs' results, once they are done.
if [[ -n $entry_pid ]]; then
	wait "$entry_pid"
	for m in entry ondemand; do
		[[ $m == ondemand && ${#ondemand_tests[@]} == 0 ]] && continue
		section "lit, $m mode"
		grep -E '^(FAIL|skipped|known bug): ' "$out/lit-$m.log"
		grep '^rerun: ' "$out/lit-$m.log" | sed "s/^rerun: /rerun: VIGIL_MODE=$m /"
		# Its last line is its tally; anything else (it died) is a failure.
		ep=0 ef=1
		if [[ $(tail -n 1 "$out/lit-$m.log") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			ep=${BASH_REMATCH[1]} ef=${BASH_REMATCH[2]}
		fi
		passed=$((passed + ep))
		failed=$((failed + ef))
		echo "lit, $m mode: $ep passed, $ef failed (log: $out/lit-$m.log)"
	done
fi

# ---- 4. fuzz smoke ---------------------------------------------------------
if want_layer fuzz && selected tests/fuzz/run.sh; then
section "fuzz smoke"
if [[ ! -x tests/fuzz/run.sh ]]; then
	fail "fuzz: tests/fuzz/run.sh missing"
elif wait "$fuzz_pid" 2>/dev/null; [[ $(cat "$out/fuzz.rc" 2>/dev/null) == 0 ]]; then
	pass
	echo "fuzz: passed"
else
	fail "fuzz: tests/fuzz/run.sh 20 failed; see $out/fuzz.log"
	tail -n 20 "$out/fuzz.log" | sed 's/^/    /'
	echo "rerun: tests/fuzz/run.sh 20"
fi
fi

if ((passed + failed + skipped == 0 && ${#filters[@]})); then
	echo "run.sh: no test matches ${filters[*]}" >&2
	exit 2
fi
echo "suite took $((SECONDS - start)) s"
if ((failed == 0)); then
	rm -rf "$out"
else
	echo "logs and test files kept in $out"
fi
echo "$passed passed, $failed failed"
((failed == 0))
