#!/usr/bin/env python3
"""mkcorpus.py - write the .vgl test corpus: small valid profiles in good/
and one file per way a profile can be broken in bad/.

The layout follows lib/vgl_format.h byte for byte (written independently
of the C reader on purpose, so a misreading of the format on one side
shows up as a failing test rather than agreeing with itself).  The values
of the good files are the ones tests/unit/test_reader.c expects; change
both together.

    tests/corpus/mkcorpus.py [OUTDIR]     (default: the script's directory)
"""
import os
import struct
import sys
import zlib

MAGIC = b"VIGILPRF"
VERSION = 1
BYTE_ORDER = 0x01020304
SEC_META, SEC_STRINGS, SEC_ARENA, SEC_SAMPLES, SEC_STACKS = 1, 2, 3, 4, 5
SEC_PROCESSES = 6
SEC_STACK_READINGS = 7
KIND_LIVE, KIND_WINDOW, KIND_MERGED, KIND_SAMPLED = 1, 2, 3, 4
RUNNING, FINISHED, CUT_SHORT = 1, 2, 3
BLOCK_MODULE, BLOCK_EDGES = 1, 2
NO_STRING = 0xFFFFFFFF
NO_MODULE = 0xFFFFFFFF

HDR = "8sIIIIII"                 # 32 bytes
SEC = "IIQQ"                     # 24
META = "IIiIQQQQQQQQIIII8Q"      # 160
ARENA = "Q7Q"                    # 64
BLOCK = "IIQQQ"                  # 32
MODULE = "IIQQQ32sII"            # 72
EDGE = "QQQII"                   # 32
SAMPLES_HDR = "QII2Q"            # 32
SAMPLE = "QQII11Q"               # 112
THREAD = "II16sQQQ"              # 48
STACKS_HDR = "QQQII"             # 32
STACK = "IIQ"                    # 16
FRAME = "QII"                    # 16
READINGS_HDR = "QQ"              # 16
READING = "IIQ"                  # 16
ARENA_SIZE = struct.calcsize("<" + ARENA)


def align8(n):
    return (n + 7) & ~7


def pad8(b):
    return b + b"\0" * (align8(len(b)) - len(b))


BIAS0 = 0x555500000000
BIAS1 = 0x7F0000000000
BUILD_ID0 = bytes(range(1, 21))


def default_spec():
    return {
        "kind": KIND_LIVE, "state": FINISHED, "exit_status": 3, "flags": 0,
        "pid": 4242, "ppid": 1,
        "start_ns": 1700000000123000000, "end_ns": 1700000001456000000,
        "window": (0, 0, 0), "lost_calls": 0,
        "exe": "/usr/bin/demo", "host": "testhost",
        "argv": ["demo", "-x", "a b"],
        "modules": [
            (0, BIAS0, BIAS0, BIAS0 + 0x10000, BUILD_ID0, "/nonexistent/demo"),
            (1, BIAS1, BIAS1, BIAS1 + 0x8000, b"", "/nonexistent/libfoo.so"),
        ],
        # (kind, owner, capacity, edges); kind 77 is one no reader knows.
        "blocks": [
            (BLOCK_EDGES, 100, 4, [
                (BIAS0 + 0x1100, BIAS0 + 0x1234, 5, 0, 0),
                (BIAS1 + 0x2000, BIAS0 + 0x1300, 7, 1, 0),
            ]),
            (77, 0, 1, []),
            (BLOCK_EDGES, 101, 3, [
                (BIAS0 + 0x1100, BIAS0 + 0x1234, 10, 0, 0),
                (BIAS0 + 0x1200, 0xDEAD0000, 1, 0, NO_MODULE),
            ]),
            (BLOCK_EDGES, 100, 2, [
                (BIAS0 + 0x1200, BIAS0 + 0x1250, 2, 0, 0),
                (BIAS0 + 0x1300, BIAS0 + 0x1260, 0, 0, 0),  # never counted
            ]),
        ],
        "extra_section": True,       # a section of unknown kind, skipped
        "arena_reserve": 4096,       # ARENA.size beyond what is written
        "samples": None,             # [(time, elapsed, scan, cpu(2), mem(4),
                                     #   host(4), stack_samples, threads)]
        "stacks": None,              # (lost, frequency, [(tid, count, frames)])
    }


def sampled_spec():
    """A sampled file (vigil attach -o): two samples of two threads, three
    stacks.  tests/unit/test_reader.c expects these values."""
    s = default_spec()
    s.update(kind=KIND_SAMPLED, state=FINISHED, exit_status=0, flags=4,
             blocks=[], extra_section=False, arena_reserve=0)
    s["samples"] = [
        (1700000000200000000, 100000000, 0x247, (10000, 2000),
         (4096000, 1024000, 3072000, 0), (50, 20, 900, 1), 7,
         [(4242, "main", 9000, 1000, 10500000),
          (4243, "worker", 500, 100, 700000000)]),
        (1700000001200000000, 1100000000, 0x247, (910000, 2000),
         (8192000, 5120000, 3072000, 4096), (60, 10, 800, 0), 993,
         [(4242, "main", 909000, 1000, 910500000),
          (4244, "late", 0, 0, 1000)]),
    ]
    s["stacks"] = (3, 999, [
        (4242, 900, [(BIAS0 + 0x1100, 0), (BIAS0 + 0x1234, 0),
                     (BIAS1 + 0x2010, 1)]),
        (4243, 99, [(BIAS1 + 0x2000, 1), (0xDEAD0000, NO_MODULE)]),
        (4242, 1, [(BIAS0 + 0x1200, 0)]),
    ])
    return s


def build_samples(samples, e="<"):
    # A list joined once, as in build_stacks: tests/lit/Inputs/mksampled.py
    # writes hundreds of thousands of thread records.
    out = [struct.pack(e + SAMPLES_HDR, len(samples), 112, 48, 0, 0)]
    for (t, el, scan, cpu, mem, host, ss, threads) in samples:
        out.append(struct.pack(e + SAMPLE, t, el, scan, len(threads), *cpu,
                               *mem, *host, ss))
        for (tid, name, u, sy, run) in threads:
            out.append(struct.pack(e + THREAD, tid, 0, name.encode(), u, sy,
                                   run))
    return b"".join(out)


def build_stacks(stacks, e="<"):
    lost, freq, recs = stacks
    # A list joined once: the benchmark writes millions of frames.
    out = [struct.pack(e + STACKS_HDR, len(recs), sum(r[1] for r in recs),
                       lost, freq, 0)]
    for (tid, count, frames) in recs:
        out.append(struct.pack(e + STACK, tid, len(frames), count))
        for (addr, mod) in frames:
            out.append(struct.pack(e + FRAME, addr, mod, 0))
    return b"".join(out)


def build(spec, e="<"):
    """Returns (bytes, layout) where layout names the offsets of the parts
    the bad variants patch."""
    lay = {}
    strings = b""
    offs = {}
    for name in ("exe", "host"):
        if spec[name] is None:
            offs[name] = NO_STRING
        else:
            offs[name] = len(strings)
            strings += spec[name].encode() + b"\0"
    if spec["argv"]:
        offs["cmdline"] = len(strings)
        cmd = b"".join(a.encode() + b"\0" for a in spec["argv"])
        strings += cmd
        offs["cmdline_len"] = len(cmd)
    else:
        offs["cmdline"], offs["cmdline_len"] = NO_STRING, 0
    strings = pad8(strings)

    arena = b""
    lay["blocks"] = []
    for (mid, bias, lo, hi, bid, path) in spec["modules"]:
        p = path.encode()
        payload = struct.pack(e + MODULE, mid, len(bid), bias, lo, hi,
                              bid.ljust(32, b"\0"), len(p), 0) + p + b"\0"
        size = align8(32 + len(payload))
        lay["blocks"].append((BLOCK_MODULE, ARENA_SIZE + len(arena)))
        arena += pad8(struct.pack(e + BLOCK, BLOCK_MODULE, 0, size, 1, 0) +
                      payload)
    for (kind, owner, cap, edges) in spec["blocks"]:
        size = 32 + 32 * cap
        body = b"".join(struct.pack(e + EDGE, *ed) for ed in edges)
        body = body.ljust(32 * cap, b"\0")
        lay["blocks"].append((kind, ARENA_SIZE + len(arena)))
        arena += struct.pack(e + BLOCK, kind, owner, size, len(edges), 0) + body
    used = ARENA_SIZE + len(arena)
    arena = struct.pack(e + ARENA, used, *([0] * 7)) + arena

    w0, w1, seq = spec["window"]
    meta = struct.pack(e + META, spec["kind"], spec["state"],
                       spec["exit_status"], spec["flags"], spec["pid"],
                       spec["ppid"], spec["start_ns"], spec["end_ns"], w0, w1,
                       seq, spec["lost_calls"], offs["exe"], offs["host"],
                       offs["cmdline"], offs["cmdline_len"], *([0] * 8))

    sections = [(SEC_META, meta), (SEC_STRINGS, strings)]
    if spec["extra_section"]:
        sections.append((99, b"skipme!\0"))
    sections.append((SEC_ARENA, arena))
    if spec["samples"] is not None:
        sections.append((SEC_SAMPLES, build_samples(spec["samples"], e)))
    if spec["stacks"] is not None:
        sections.append((SEC_STACKS, build_stacks(spec["stacks"], e)))
    if spec.get("readings") is not None:
        # [(reading, stack, count)]: which sample record each stack's
        # samples came in.
        sections.append((SEC_STACK_READINGS, b"".join(
            [struct.pack(e + READINGS_HDR, len(spec["readings"]), 0)] +
            [struct.pack(e + READING, *x) for x in spec["readings"]])))
    if spec.get("processes") is not None:
        # [(state, exit_status, processes)]: a merge's PROCESSES section.
        ends = spec["processes"]
        data = struct.pack(e + "QII", sum(x[2] for x in ends), len(ends), 0)
        for st, status, n in ends:
            data += struct.pack(e + "IiQ", st, status, n)
        sections.append((SEC_PROCESSES, data))
    n = len(sections)
    hsize = 32 + 24 * n
    off = align8(hsize)
    table = b""
    body = b""
    lay["sec"] = {}
    for i, (kind, data) in enumerate(sections):
        size = len(data)
        if kind == SEC_ARENA:
            size += spec["arena_reserve"]
        data = pad8(data)
        lay["sec"][kind] = (i, off)
        table += struct.pack(e + SEC, kind, 0, off, size)
        body += data
        off += len(data)
    lay["hsize"] = hsize
    lay["n"] = n
    hdr = struct.pack(e + HDR, MAGIC, VERSION, BYTE_ORDER, hsize, n, 0, 0)
    out = bytearray(hdr + table + b"\0" * (align8(hsize) - hsize) + body)
    fix_checksum(out, e)
    return out, lay


def fix_checksum(buf, e="<"):
    hsize = struct.unpack_from(e + "I", buf, 16)[0]
    hsize = min(hsize, len(buf))
    tmp = bytearray(buf[:hsize])
    tmp[24:28] = b"\0\0\0\0"
    struct.pack_into(e + "I", buf, 24, zlib.crc32(bytes(tmp)) & 0xFFFFFFFF)


def patch(buf, off, fmt, *vals, checksum=True):
    b = bytearray(buf)
    struct.pack_into("<" + fmt, b, off, *vals)
    if checksum:
        fix_checksum(b)
    return b


def sec_field(lay, kind, field):
    """Offset of a field of the section table entry of `kind`."""
    i = lay["sec"][kind][0]
    return 32 + 24 * i + {"kind": 0, "flags": 4, "offset": 8, "size": 16}[field]


def meta_off(lay, field):
    base = lay["sec"][SEC_META][1]
    fields = {"kind": 0, "state": 4, "exit_status": 8, "flags": 12,
              "exe": 80, "host": 84, "cmdline": 88, "cmdline_len": 92}
    return base + fields[field]


def block_off(lay, index):
    return lay["sec"][SEC_ARENA][1] + lay["blocks"][index][1]


def good_files():
    out = {}
    out["basic.vgl"] = build(default_spec())[0]

    s = default_spec()
    s.update(state=RUNNING, exit_status=0, end_ns=0, flags=1, lost_calls=9)
    out["running.vgl"] = build(s)[0]

    s = default_spec()
    s.update(kind=KIND_WINDOW, exit_status=0,
             window=(1700000000500000000, 1700000001000000000, 2))
    out["window.vgl"] = build(s)[0]

    s = default_spec()
    s.update(exe=None, host=None, argv=[], modules=[], blocks=[],
             extra_section=False, arena_reserve=0, state=CUT_SHORT,
             exit_status=0, end_ns=0, start_ns=0, kind=KIND_MERGED)
    out["empty.vgl"] = build(s)[0]

    out["sampled.vgl"] = build(sampled_spec())[0]
    out["sampled-readings.vgl"] = build(readings_spec())[0]

    s = default_spec()
    s.update(kind=KIND_MERGED, arena_reserve=0,
             processes=[(RUNNING, 0, 1), (FINISHED, 0, 400),
                                          (FINISHED, 2, 3), (CUT_SHORT, 0, 2)])
    out["merged.vgl"] = build(s)[0]
    return out


def bad_files():
    good, lay = build(default_spec())
    good = bytes(good)
    ar = lay["sec"][SEC_ARENA][1]
    st = lay["sec"][SEC_STRINGS][1]
    bad = {}

    bad["empty.vgl"] = b""
    bad["truncated-magic.vgl"] = good[:4]
    bad["truncated-header.vgl"] = good[:12]
    bad["truncated-table.vgl"] = good[:60]
    bad["truncated-meta.vgl"] = good[:lay["sec"][SEC_META][1] + 40]
    # Cut inside the last edge block: its header says more than is there.
    bad["truncated-arena.vgl"] = good[:block_off(lay, 4) + 40]
    bad["bad-magic.vgl"] = b"VIGILPRX" + good[8:]
    bad["foreign-elf.vgl"] = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
                              struct.pack("<HHI", 2, 62, 1) + b"\0" * 40)
    bad["foreign-text.vgl"] = b"hello, this is not a profile at all\n"
    bad["wrong-version.vgl"] = patch(good, 8, "I", 2)
    bad["other-byte-order.vgl"] = build(default_spec(), ">")[0]
    bad["bad-byte-order-mark.vgl"] = patch(good, 12, "I", 0xDEADBEEF)
    bad["bad-checksum.vgl"] = patch(good, 24, "I", 0x12345678, checksum=False)
    # The section table is checksummed too: a changed offset alone is caught.
    bad["table-changed.vgl"] = patch(good, sec_field(lay, SEC_META, "size"),
                                     "Q", 8, checksum=False)
    bad["header-size-mismatch.vgl"] = patch(good, 16, "I", 40)
    # nsections * sizeof(section) would overflow 32 bits.
    bad["huge-nsections.vgl"] = patch(good, 20, "I", 0xFFFFFFFF)
    bad["huge-header-size.vgl"] = patch(patch(good, 20, "I", 64), 16, "I",
                                        32 + 64 * 24)
    bad["section-out-of-bounds.vgl"] = patch(
        good, sec_field(lay, SEC_STRINGS, "offset"), "Q", len(good) + 8)
    bad["section-huge-size.vgl"] = patch(
        good, sec_field(lay, SEC_STRINGS, "size"), "Q", 0xFFFFFFFFFFFFFFF8)
    bad["section-unaligned.vgl"] = patch(
        good, sec_field(lay, SEC_STRINGS, "offset"), "Q", st + 4)
    bad["section-overlap.vgl"] = patch(
        good, sec_field(lay, SEC_STRINGS, "offset"), "Q",
        lay["sec"][SEC_META][1] + 8)
    bad["section-in-header.vgl"] = patch(
        good, sec_field(lay, SEC_META, "offset"), "Q", 0)
    bad["missing-meta.vgl"] = patch(good, sec_field(lay, SEC_META, "kind"),
                                    "I", 98)
    bad["missing-strings.vgl"] = patch(
        good, sec_field(lay, SEC_STRINGS, "kind"), "I", 98)
    bad["missing-arena.vgl"] = patch(
        patch(good, sec_field(lay, SEC_ARENA, "kind"), "I", 98),
        sec_field(lay, SEC_ARENA, "size"), "Q", ARENA_SIZE)
    bad["duplicate-meta.vgl"] = patch(
        good, sec_field(lay, 99, "kind") if 99 in lay["sec"] else 0, "I",
        SEC_META)
    bad["meta-too-small.vgl"] = patch(good, sec_field(lay, SEC_META, "size"),
                                      "Q", 8)
    bad["bad-state.vgl"] = patch(good, meta_off(lay, "state"), "I", 7,
                                 checksum=False)
    bad["bad-kind.vgl"] = patch(good, meta_off(lay, "kind"), "I", 0,
                                checksum=False)
    bad["string-out-of-range.vgl"] = patch(good, meta_off(lay, "exe"), "I",
                                           100000, checksum=False)
    # STRINGS ends "...a b\0" then padding; point host at the last byte of
    # a section shrunk so that no NUL follows.
    s = default_spec()
    s["host"] = None
    g2, l2 = build(s)
    stsize = sec_field(l2, SEC_STRINGS, "size")
    b = bytearray(g2)
    b[l2["sec"][SEC_STRINGS][1]:l2["sec"][SEC_STRINGS][1] + 3] = b"xyz"
    b = patch(b, stsize, "Q", 3)
    b = patch(b, meta_off(l2, "exe"), "I", 0, checksum=False)
    b = patch(b, meta_off(l2, "cmdline"), "I", NO_STRING, checksum=False)
    bad["string-unterminated.vgl"] = b
    bad["cmdline-out-of-range.vgl"] = patch(good, meta_off(lay, "cmdline_len"),
                                            "I", 0xFFFFFFF0, checksum=False)
    bad["cmdline-unterminated.vgl"] = patch(
        good, meta_off(lay, "cmdline_len"), "I",
        struct.unpack_from("<I", good, meta_off(lay, "cmdline_len"))[0] - 1,
        checksum=False)
    bad["arena-used-beyond-section.vgl"] = patch(good, ar, "Q",
                                                 1 << 40, checksum=False)
    bad["arena-used-too-small.vgl"] = patch(good, ar, "Q", 4, checksum=False)
    bad["arena-beyond-file.vgl"] = patch(
        good, sec_field(lay, SEC_ARENA, "offset"), "Q", align8(len(good)))
    bad["block-size-zero.vgl"] = patch(good, block_off(lay, 2) + 8, "Q", 0,
                                       checksum=False)
    bad["block-size-unaligned.vgl"] = patch(good, block_off(lay, 2) + 8, "Q",
                                            161, checksum=False)
    bad["block-size-past-end.vgl"] = patch(good, block_off(lay, 2) + 8, "Q",
                                           1 << 20, checksum=False)
    bad["block-size-huge.vgl"] = patch(good, block_off(lay, 2) + 8, "Q",
                                       0xFFFFFFFFFFFFFFF8, checksum=False)
    bad["block-count-over-capacity.vgl"] = patch(
        good, block_off(lay, 2) + 16, "Q", 5, checksum=False)
    bad["block-count-huge.vgl"] = patch(good, block_off(lay, 2) + 16, "Q",
                                        1 << 62, checksum=False)
    # Arena in use ends 16 bytes into a block header.
    used = struct.unpack_from("<Q", good, ar)[0]
    b = bytearray(good[:ar + used]) + b"\0" * 16
    bad["block-header-truncated.vgl"] = patch(b, ar, "Q", used + 16,
                                              checksum=False)
    m0 = block_off(lay, 0)
    bad["module-path-past-block.vgl"] = patch(good, m0 + 32 + 64, "I", 4096,
                                              checksum=False)
    bad["module-path-unterminated.vgl"] = patch(good, m0 + 32 + 64, "I", 5,
                                                checksum=False)
    bad["module-build-id-too-long.vgl"] = patch(good, m0 + 32 + 4, "I", 33,
                                                checksum=False)
    bad["module-too-small.vgl"] = patch(good, m0 + 8, "Q", 48,
                                        checksum=False)
    m1 = block_off(lay, 1)
    bad["module-duplicate-id.vgl"] = patch(good, m1 + 32, "I", 0,
                                           checksum=False)
    bad.update(bad_sampled())
    bad.update(bad_readings())
    return bad


def readings_spec():
    """sampled_spec() with the readings of its stacks: reading 0 (7 stack
    samples) got 6 of stack 1 and the 1 of stack 2, reading 1 (993) the
    900 of stack 0 and the other 93 of stack 1.  tests/unit/test_reader.c
    expects these values."""
    s = sampled_spec()
    s["readings"] = [(0, 1, 6), (0, 2, 1), (1, 0, 900), (1, 1, 93)]
    return s


def bad_readings():
    """Broken STACK_READINGS sections (not checksummed either)."""
    good, lay = build(readings_spec())
    good = bytes(good)
    rd = lay["sec"][SEC_STACK_READINGS][1]
    ent = rd + 16
    bad = {}
    bad["readings-count-huge.vgl"] = patch(good, rd, "Q", 1 << 60,
                                           checksum=False)
    bad["readings-too-small.vgl"] = patch(
        good, sec_field(lay, SEC_STACK_READINGS, "size"), "Q", 8)
    bad["readings-reading-out-of-range.vgl"] = patch(good, ent + 32, "I", 2,
                                                     checksum=False)
    bad["readings-stack-out-of-range.vgl"] = patch(good, ent + 4, "I", 3,
                                                   checksum=False)
    bad["readings-unsorted.vgl"] = patch(good, ent + 16 + 4, "I", 0,
                                         checksum=False)
    bad["readings-count-zero.vgl"] = patch(good, ent + 8, "Q", 0,
                                           checksum=False)
    bad["readings-sum-mismatch.vgl"] = patch(good, ent + 48 + 8, "Q", 94,
                                             checksum=False)
    bad["readings-duplicate.vgl"] = patch(
        good, sec_field(lay, SEC_SAMPLES, "kind"), "I", SEC_STACK_READINGS)
    # Readings of a file that has no STACKS to count.
    s = readings_spec()
    s["stacks"] = None
    bad["readings-without-stacks.vgl"] = build(s)[0]
    return bad


def bad_sampled():
    """Broken SAMPLES and STACKS sections (contents are not checksummed,
    so only the header's checksum is left as it is)."""
    good, lay = build(sampled_spec())
    good = bytes(good)
    sm = lay["sec"][SEC_SAMPLES][1]
    sk = lay["sec"][SEC_STACKS][1]
    bad = {}
    bad["samples-count-huge.vgl"] = patch(good, sm, "Q", 1 << 60,
                                          checksum=False)
    bad["samples-record-size-small.vgl"] = patch(good, sm + 8, "I", 64,
                                                 checksum=False)
    bad["samples-thread-size-unaligned.vgl"] = patch(good, sm + 12, "I", 52,
                                                     checksum=False)
    bad["samples-threads-huge.vgl"] = patch(good, sm + 32 + 20, "I",
                                            0xFFFFFFFF, checksum=False)
    b = bytearray(good)
    b[sm + 32 + 112 + 8:sm + 32 + 112 + 24] = b"x" * 16
    bad["samples-name-unterminated.vgl"] = b
    bad["samples-too-small.vgl"] = patch(
        good, sec_field(lay, SEC_SAMPLES, "size"), "Q", 16)
    bad["stacks-count-huge.vgl"] = patch(good, sk, "Q", 1 << 60,
                                         checksum=False)
    bad["stacks-sum-mismatch.vgl"] = patch(good, sk + 8, "Q", 999,
                                           checksum=False)
    bad["stacks-no-frames.vgl"] = patch(good, sk + 32 + 4, "I", 0,
                                        checksum=False)
    bad["stacks-frames-past-end.vgl"] = patch(good, sk + 32 + 4, "I", 1000,
                                              checksum=False)
    bad["stacks-count-zero.vgl"] = patch(good, sk + 32 + 8, "Q", 0,
                                         checksum=False)
    bad["stacks-unknown-module.vgl"] = patch(good, sk + 32 + 16 + 8, "I", 7,
                                             checksum=False)
    bad["stacks-duplicate.vgl"] = patch(
        good, sec_field(lay, SEC_SAMPLES, "kind"), "I", SEC_STACKS)
    bad["sampled-truncated.vgl"] = good[:sk + 40]

    # A merge's PROCESSES section (not checksummed either).
    s = default_spec()
    s.update(kind=KIND_MERGED, arena_reserve=0,
             processes=[(FINISHED, 0, 4), (CUT_SHORT, 0, 1)])
    good, lay = build(s)
    good = bytes(good)
    pr = lay["sec"][SEC_PROCESSES][1]
    bad["processes-sum-mismatch.vgl"] = patch(good, pr, "Q", 6, checksum=False)
    bad["processes-bad-state.vgl"] = patch(good, pr + 16, "I", 9,
                                           checksum=False)
    bad["processes-too-many.vgl"] = patch(good, pr + 8, "I", 0xFFFFFFFF,
                                          checksum=False)
    return bad


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    for sub, files in (("good", good_files()), ("bad", bad_files())):
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        for name, data in sorted(files.items()):
            with open(os.path.join(d, name), "wb") as f:
                f.write(bytes(data))


if __name__ == "__main__":
    main()
