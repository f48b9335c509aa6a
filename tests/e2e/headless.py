"""headless.py - what the browser checks share: headless Chromium run
from a script (`chrome`), and the pixels of the PNG screenshots it takes
(`png_counts`), read here without a library so the checks need nothing
but Debian's chromium and Python."""
import struct
import subprocess
import sys
import zlib

CHROME = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
          "--allow-file-access-from-files", "--virtual-time-budget=3000"]


def chrome(args, timeout=120):
    r = subprocess.run(CHROME + args, capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit("chromium failed (%d): %s" % (r.returncode, r.stderr[-500:]))
    return r.stdout


def png_counts(path):
    """{(r, g, b): pixels} of an 8-bit non-interlaced RGB(A) PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    counts = {}
    i = 0
    for _ in range(h):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        for x in range(0, stride, bpp):
            k = tuple(line[x:x + 3])
            counts[k] = counts.get(k, 0) + 1
        prev = line
    return counts
