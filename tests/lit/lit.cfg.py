# lit configuration for vigil's end-to-end tests.
#
# Every test here builds a small deterministic workload from Inputs/, runs
# it as a real process (dynamic PIE, non-PIE or -static, linked with
# build/libvigil.a), and reads the profile back with the real `vigil`
# command.  Counts are checked exactly, through `vigil show` + FileCheck or
# through tests/e2e/vtest.py, which reads `vigil report --json`.
#
# Run with tests/run.sh (which finds lit and passes --timeout; give it a
# test's path to run that one alone), or with lit directly.

import os
import subprocess

import lit.formats

config.name = "vigil"
# An external bash runs the RUN lines: tests start programs in the
# background, use $? and ulimit, which lit's internal shell lacks.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
# VIGIL_LIT_OUTPUT puts the tests' files elsewhere, so that two runs of the
# suite in one tree do not delete each other's files.
config.test_exec_root = (os.environ.get("VIGIL_LIT_OUTPUT")
                         or os.path.join(config.test_source_root, "Output"))

root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
e2e = os.path.join(root, "tests", "e2e")
python = "/usr/bin/python3"
# VIGIL_BUILD selects another build directory (default: build/).
build = os.environ.get("VIGIL_BUILD") or os.path.join(root, "build")
vigil = os.path.join(build, "vigil")
vcc = os.path.join(e2e, "vcc")

# FileCheck, not and count: from PATH when they are there, else from the
# newest /usr/lib/llvm-N/bin that has them (Debian's llvm-N-tools does not
# put them on PATH).
import glob
import shutil

path = os.environ.get("PATH", "/usr/bin:/bin")
if not shutil.which("FileCheck", path=path):
    def _llvm_version(d):
        try:
            return int(d.split("llvm-")[1].split("/")[0])
        except ValueError:
            return 0
    found = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"),
                   key=_llvm_version)
    if found:
        path = os.pathsep.join([os.path.dirname(found[-1]), path])
config.environment["PATH"] = path
# The tests own these: nothing from the caller's environment leaks in.
for var in ("VIGIL_FILE", "VIGIL_INTERVAL"):
    config.environment.pop(var, None)
config.environment["VIGIL"] = vigil
# Whether the runtime archive has the __wrap_ hook (a build from before
# the hook was an IFUNC has not): tests/e2e/vcc asked nm on each of the
# suite's ~250 compiles, 0.2 s of CPU each; asked once here instead.
try:
    _nm = subprocess.run(["nm", os.path.join(build, "libvigil.a")],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    config.environment["VIGIL_VCC_WRAP"] = (
        "1" if " T __wrap___cyg_profile_func_enter\n" in _nm else "0")
except OSError:
    pass
config.environment["VIGIL_BUILD"] = build
config.environment["LC_ALL"] = "C"

config.substitutions += [
    ("%vigil", vigil),
    ("%cc-static", vcc + " static"),
    ("%cc-nopie", vcc + " nopie"),
    ("%cc-plain", vcc + " plain"),
    ("%cc-shlib", vcc + " shlib"),
    ("%cc", vcc + " dynamic"),
    ("%genobj", os.path.join(e2e, "genobj")),
    ("%vtest", python + " " + os.path.join(e2e, "vtest.py")),
    ("%python", python),
    ("%inputs", os.path.join(config.test_source_root, "Inputs")),
    ("%root", root),
]


# Features for tests that need something this machine may not allow.
def _can_mount_tmpfs():
    try:
        r = subprocess.run(
            ["unshare", "-m", "sh", "-c",
             "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d"
             " && umount $d; rc=$?; rmdir $d; exit $rc"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
        return r.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


if _can_mount_tmpfs():
    config.available_features.add("tmpfs")
if os.geteuid() == 0:
    config.available_features.add("root")

# VIGIL_MODE=entry (tests/run.sh's second run of the runtime's tests):
# tests/e2e/vcc then builds with -pg -mfentry, counted by __fentry__, which
# sees real calls only.  The few tests whose point is what only one mode
# counts say so with REQUIRES: entry-mode or UNSUPPORTED: entry-mode.
# VIGIL_MODE=ondemand builds as vigil-ondemand.pc does (docs/ondemand.md):
# the entry mode with idle sites, which count as the entry mode's when
# VIGIL_FILE is set; its tests are entry-mode ones too.
mode = os.environ.get("VIGIL_MODE") or "enter"
if mode not in ("enter", "entry", "ondemand"):
    lit_config.fatal("VIGIL_MODE must be enter, entry or ondemand, not %r"
                     % mode)
config.environment["VIGIL_MODE"] = mode
config.available_features.add(mode + "-mode")
if mode == "ondemand":
    config.available_features.add("entry-mode")
    mode = "entry"
# The hook's symbols in this mode: where a dynamic program's calls go (its
# wrapper), where a -static program's go, its fast path (as objdump names
# it), where the fast path jumps to for a new edge, and what the compiler
# makes functions call.  In entry mode a dynamic program's calls go
# straight to the fast path (__wrap___fentry__ and vgl_fentry_hot are one
# address), a -static one's through the exported __fentry__'s jump.
if mode == "entry":
    hook = ("__wrap___fentry__", "__fentry__", "__wrap___fentry__",
            "save_call", "__fentry__")
else:
    hook = ("__wrap___cyg_profile_func_enter",
            "__wrap___cyg_profile_func_enter", "enter_hot",
            "hook_slow_enter", "__cyg_profile_func_enter")
config.substitutions += [("%hook-wrap", hook[0]), ("%hook-static", hook[1]),
                         ("%hook-hot", hook[2]), ("%hook-slow", hook[3]),
                         ("%hook-call", hook[4])]

# CPU features, for tests of what the hook must keep intact.
try:
    with open("/proc/cpuinfo") as f:
        _flags = next((l.split(":", 1)[1].split() for l in f
                       if l.startswith("flags")), [])
except OSError:
    _flags = []
if "avx2" in _flags:
    config.available_features.add("avx2")
