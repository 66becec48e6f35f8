#!/usr/bin/env python3
"""Check the SASS of every compiled kernel (see blackwell_ops/sass.py for what is checked).

    python tools/check_sass.py            # the kernels of the installed build
    python tools/check_sass.py NAME ...   # some of them

Exits 1 if a kernel lacks a feature its config promises or uses local memory, 2 if nothing could
be checked (no kernels, no cuobjdump).
"""
import sys

from blackwell_ops import sass


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    ok, lines = sass.report(args or None, emit=lambda line: print(line, flush=True))
    if len(lines) == 1 and not ok:
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
