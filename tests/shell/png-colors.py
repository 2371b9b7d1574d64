#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""png-colors.py PNG: "WIDTH HEIGHT RATE RED", the pixels of a screenshot of
perfcap loss --html/--svg in the record-rate blue (#4a78b0, exactly) and in
the red of a shaded lost interval (#d62728, drawn translucent: any strongly
red pixel). Decodes 8-bit RGB/RGBA non-interlaced PNG, what Chromium writes,
with zlib alone (no imaging library is needed)."""
import sys, zlib, struct
def decode(path):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
        elif t == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and inter == 0, (depth, ctype, inter)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows
w, h, bpp, rows = decode(sys.argv[1])
rate = reddish = 0
for line in rows:
    for x in range(0, w * bpp, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        if (r, g, b) == (0x4a, 0x78, 0xb0): rate += 1
        elif r > 200 and g < 170 and b < 170 and r - g > 60: reddish += 1
print(w, h, rate, reddish)
