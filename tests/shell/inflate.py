#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""inflate.py IN OUT: write OUT, the perf.data IN with every COMPRESSED
record replaced, in place, by the records it holds; every other record
(FINISHED_ROUND among them) stays where it was, so the file's order is
IN's. The feature sections move behind the new data, without COMPRESSED.

For readers without zstd (Debian's hotspot-perfparser is built without
it): what they find in OUT is what perf report finds in IN. The zstd
stream is read as perf 6.1 reads it: one stream through the whole file,
frames one after the other. Prints "records N compressed M" on stdout.
"""
import struct
import sys

import zstandard

HEADER = struct.Struct("<QQQ QQ QQ QQ 4Q")
COMPRESSED = 81
FEAT_COMPRESSED = 27


class Stream:
    """perf's single decompression stream: frame after frame."""

    def __init__(self):
        self.d = zstandard.ZstdDecompressor().decompressobj()

    def feed(self, data):
        out = b""
        while data:
            out += self.d.decompress(data)
            data = b""
            if self.d.eof:
                data = self.d.unused_data
                self.d = zstandard.ZstdDecompressor().decompressobj()
        return out


def main(src, dst):
    with open(src, "rb") as f:
        buf = f.read()
    h = list(HEADER.unpack_from(buf, 0))
    data_off, data_size = h[5], h[6]
    feats = h[9:13]
    z = Stream()
    out = bytearray(buf[:data_off])
    pos, end, records, compressed = data_off, data_off + data_size, 0, 0
    while pos + 8 <= end:
        typ, misc, size = struct.unpack_from("<IHH", buf, pos)
        if size < 8 or pos + size > end:
            sys.exit(f"bad record at {pos:#x}: type {typ} size {size}")
        if typ == COMPRESSED:
            out += z.feed(buf[pos + 8:pos + size])
            compressed += 1
        else:
            out += buf[pos:pos + size]
        records += 1
        pos += size
    new_size = len(out) - data_off
    # The feature table follows the data; payloads keep their order.
    bits = [b for b in range(256) if feats[b // 64] >> (b % 64) & 1]
    sections = [struct.unpack_from("<QQ", buf, end + 16 * i) for i in range(len(bits))]
    keep = [(b, s) for b, s in zip(bits, sections) if b != FEAT_COMPRESSED]
    payload_off = len(out) + 16 * len(keep)
    table, payloads = bytearray(), bytearray()
    for b, (off, size) in keep:
        table += struct.pack("<QQ", payload_off + len(payloads), size)
        payloads += buf[off:off + size]
    out += table + payloads
    feats[FEAT_COMPRESSED // 64] &= ~(1 << (FEAT_COMPRESSED % 64))
    h[6] = new_size
    h[9:13] = feats
    out[0:HEADER.size] = HEADER.pack(*h)
    with open(dst, "wb") as f:
        f.write(out)
    print(f"records {records} compressed {compressed}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
