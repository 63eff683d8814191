#!/usr/bin/env python3
"""Splits stage lines into N parts by their first field, as a shuffle does.

    partition.py [--hash hadoop|crc32] N PREFIX < lines

Writes PREFIX.0 ... PREFIX.(N-1) (every part, empty ones too). All lines
whose first tab-separated field is the same go to the same part; lines are
copied as bytes, in input order (sort each part afterwards).

--hash hadoop (the default) picks the part the way Hadoop's
KeyFieldBasedPartitioner does with `-k1,1` (31 * h + signed byte over the
field's UTF-8 bytes, then (h & 0x7fffffff) % N), so a local run puts each
key in the same reducer as a Hadoop Streaming job would. --hash crc32 is
what contrib/spark/flipaudit_spark.py uses. Either is deterministic: never
Python's hash(), which is seeded per process.
"""

import sys
import zlib


def hadoop_hash(field):
    h = 0
    for b in field:
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return h & 0x7FFFFFFF


def crc32_hash(field):
    return zlib.crc32(field)


def main(argv):
    how = "hadoop"
    if len(argv) >= 2 and argv[0] == "--hash":
        how, argv = argv[1], argv[2:]
    if how not in ("hadoop", "crc32") or len(argv) != 2 or not argv[0].isdigit() or int(argv[0]) < 1:
        sys.exit("usage: partition.py [--hash hadoop|crc32] N PREFIX < lines")
    n, prefix = int(argv[0]), argv[1]
    hash_of = hadoop_hash if how == "hadoop" else crc32_hash
    parts = [open("%s.%d" % (prefix, i), "wb") for i in range(n)]
    cache = {}
    for line in sys.stdin.buffer:
        if not line.endswith(b"\n"):
            line += b"\n"
        field = line[: line.find(b"\t")] if b"\t" in line else line[:-1]
        part = cache.get(field)
        if part is None:
            part = hash_of(field) % n
            if len(cache) < 100000:
                cache[field] = part
        parts[part].write(line)
    for f in parts:
        f.close()


if __name__ == "__main__":
    main(sys.argv[1:])
