#!/usr/bin/env python3
"""Prints how many compilation units of each DWARF version an ELF file's
.debug_info holds, as "VERSION COUNT" lines: reads the unit headers only
(readelf's full dump of a Swift library is hundreds of megabytes).

    scripts/dwarf-versions.py FILE
"""
import struct
import subprocess
import sys
import tempfile
from collections import Counter

def main(path):
    # Decompressed first: installed debug files are zlib-compressed.
    with tempfile.NamedTemporaryFile() as plain, tempfile.NamedTemporaryFile() as section:
        subprocess.run(["objcopy", "--decompress-debug-sections", path, plain.name], check=True)
        subprocess.run(["objcopy", "--dump-section", f".debug_info={section.name}", plain.name, "/dev/null"],
                       check=True)
        data = open(section.name, "rb").read()
    versions, offset = Counter(), 0
    while offset + 6 <= len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        header = 4
        if length == 0xFFFFFFFF:  # 64-bit DWARF
            (length,) = struct.unpack_from("<Q", data, offset + 4)
            header = 12
        (version,) = struct.unpack_from("<H", data, offset + header)
        versions[version] += 1
        offset += header + length
    for version, count in sorted(versions.items()):
        print(version, count)

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
