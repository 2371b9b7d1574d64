#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a hostile perf.data of about SIZE bytes (default 1 MiB).

usage: hostile.py KIND OUT [SIZE]

KIND is one of:
  ids-overlap   every attr's ids section covers the whole file: without a
                bound, the id map is (number of attrs) x (file size)
  many-attrs    an attrs section of more events than any recording has
  zstd-bomb     COMPRESSED records holding zstd RLE blocks that inflate
                thousands of times over
  bad-size      a data section of FINISHED_ROUND records, then a kernel
                record whose size is not a multiple of 8
  tiny-record   a kernel record of size 4 (less than its own header)
  cpu-spread    valid: two samples, on CPU 0 and on CPU 65535, then
                FINISHED_ROUNDs; a per-CPU table sized by the highest CPU
                number took hundreds of MB for it (perfcap loss --svg's
                timeline before a9cf421)

The files are valid up to the trap, so that the reader reaches it.
Used by tests/shell/errors.bats; see tests/fuzz/README.md.
"""
import struct
import sys

MAGIC = 0x32454C4946524550
HDR = 104
ATTR = 128
ATTR_SIZE = ATTR + 16
# IP | TID | TIME | CPU | PERIOD | IDENTIFIER
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x10000


def attr(ids_off, ids_size):
    a = bytearray(ATTR)
    # type 1 (software), size, config 0 (cpu-clock), sample_period
    struct.pack_into("<IIQQQQ", a, 0, 1, ATTR, 0, 100000, SAMPLE_TYPE, 0)
    # flags word at 40: disabled(0) | sample_id_all(18)
    struct.pack_into("<Q", a, 40, (1 << 0) | (1 << 18))
    return bytes(a) + struct.pack("<QQ", ids_off, ids_size)


def header(attrs_off, attrs_size, data_off, data_size):
    return struct.pack("<QQQQQQQQQ4Q", MAGIC, HDR, ATTR_SIZE, attrs_off, attrs_size,
                       data_off, data_size, 0, 0, 0, 0, 0, 0)


def one_attr_file(data):
    attrs_off = HDR
    data_off = attrs_off + ATTR_SIZE
    return header(attrs_off, ATTR_SIZE, data_off, len(data)) + attr(0, 0) + data


def rec(type_, payload, size=None):
    size = 8 + len(payload) if size is None else size
    return struct.pack("<IHH", type_, 0, size) + payload


def zstd_rle_frame(blocks, byte):
    # magic; descriptor: no checksum, no content size, window descriptor
    # follows; window 2^17 (exponent 7); then RLE blocks of 128 KiB each
    out = struct.pack("<IBB", 0xFD2FB528, 0x00, 7 << 3)
    for i in range(blocks):
        last = 1 if i == blocks - 1 else 0
        bh = last | (1 << 1) | ((128 * 1024) << 3)
        out += struct.pack("<I", bh)[:3] + bytes([byte])
    return out


def make(kind, size):
    if kind == "ids-overlap":
        n = (size - HDR) // ATTR_SIZE
        attrs_off = HDR
        data_off = attrs_off + n * ATTR_SIZE
        total = data_off
        body = b"".join(attr(0, total & ~7) for _ in range(n))
        return header(attrs_off, n * ATTR_SIZE, data_off, 0) + body
    if kind == "many-attrs":
        n = (size - HDR) // ATTR_SIZE
        # attr_size at its smallest (a VER0 attr, 64 bytes, + 16) makes most events
        small = 64 + 16
        n = (size - HDR) // small
        a = bytearray(small)
        struct.pack_into("<II", a, 0, 1, 64)
        return struct.pack("<QQQQQQQQQ4Q", MAGIC, HDR, small, HDR, n * small,
                           HDR + n * small, 0, 0, 0, 0, 0, 0, 0) + bytes(a) * n
    if kind == "zstd-bomb":
        # records of 0x08 bytes: headers of size 0x0808, a user type: all
        # well formed, so only the inflation bound stops them
        frame = zstd_rle_frame(8000, 0x08)
        r = rec(81, frame)
        data = b""
        while len(data) + len(r) < size - HDR - ATTR_SIZE:
            data += r
        return one_attr_file(data)
    if kind == "bad-size":
        n = (size - HDR - ATTR_SIZE) // 8 - 4
        data = rec(68, b"") * n + rec(9, b"\0" * 8, size=12) + b"\0" * 8
        return one_attr_file(data)
    if kind == "tiny-record":
        n = (size - HDR - ATTR_SIZE) // 8 - 2
        data = rec(68, b"") * n + rec(9, b"", size=4) + b"\0" * 4 + b"\0" * 4
        return one_attr_file(data)
    if kind == "cpu-spread":
        def sample(t, cpu):
            # IDENTIFIER, IP, pid/tid, TIME, cpu/res, PERIOD
            return rec(9, struct.pack("<QQIIQIIQ", 0, 0, 1, 1, t, cpu, 0, 1))
        data = sample(1000, 0) + sample(2000, 65535)
        n = (size - HDR - ATTR_SIZE - len(data)) // 8
        return one_attr_file(data + rec(68, b"") * n)
    raise SystemExit("unknown kind: " + kind)


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    size = int(sys.argv[3]) if len(sys.argv) == 4 else 1 << 20
    with open(sys.argv[2], "wb") as f:
        f.write(make(sys.argv[1], size))


if __name__ == "__main__":
    main()
