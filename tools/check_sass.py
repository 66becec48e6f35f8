#!/usr/bin/env python3
"""Prove from the SASS that each compiled kernel uses the hardware features its config promises.

    python tools/check_sass.py                       # every object in build/kernels/
    python tools/check_sass.py build/kernels/X.o ...

For each kernel object (named <kernel>.o by setup.py) it disassembles with cuobjdump and checks
the instructions its config in tools/generate_kernels.py implies (DESIGN.md's evidence table):

  sm90:  HGMMA (wgmma), UTMALDG (TMA load), UTMALDG...MULTICAST when the cluster has > 1 CTA,
         UTMASTG (TMA store)
  sm100: UTC*MMA.2CTA (2-SM tcgen05 MMA), UTMALDG...2CTA, UTMALDG...MULTICAST...2CTA when the
         cluster holds more than one CTA pair or is sized at run time, UTCBAR.2CTA.MULTICAST,
         UTCATOMSWS.2CTA (2-CTA TMEM allocation), LDTM (tcgen05.ld), UGETNEXTWORKID (CLC
         persistent scheduler), UTMASTG; 1-SM kernels the same without .2CTA
  both:  no local memory: no LDL/STL, and cuobjdump's resource usage says LOCAL:0 and STACK:0

Prints one line per kernel with the count of each feature, and exits 1 if any is missing.
cuobjdump comes from $CUOBJDUMP, PATH, $CUDA_HOME/bin, or the copy Triton ships with torch.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import generate_kernels  # noqa: E402

KERNEL_DIR = ROOT / "build" / "kernels"


def find_cuobjdump() -> str | None:
    cands = [os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump")]
    if os.environ.get("CUDA_HOME"):
        cands.append(os.path.join(os.environ["CUDA_HOME"], "bin", "cuobjdump"))
    cands.append("/usr/local/cuda/bin/cuobjdump")
    try:
        import triton
        cands.append(os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin",
                                  "cuobjdump"))
    except ImportError:
        pass
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def requirements(k: generate_kernels.Kernel) -> dict[str, str]:
    """feature label -> regex over SASS opcodes that must match at least once."""
    if k.arch == 90:
        req = {"HGMMA": r"\bHGMMA\.", "UTMALDG": r"\bUTMALDG\.", "UTMASTG": r"\bUTMASTG\."}
        if k.cluster[0] * k.cluster[1] > 1:
            req["UTMALDG.MULTICAST"] = r"\bUTMALDG\.\S*MULTICAST"
        return req
    two = k.schedule == "2sm"
    sfx = r"\S*\.2CTA" if two else ""
    req = {
        "UTC*MMA" + (".2CTA" if two else ""): r"\bUTC[A-Z]*MMA" + sfx,
        "UTMALDG" + (".2CTA" if two else ""): r"\bUTMALDG" + sfx,
        "LDTM": r"\bLDTM\b",
        "UTCATOMSWS" + (".2CTA" if two else ""): r"\bUTCATOMSWS" + (r"\.2CTA" if two else ""),
        "UGETNEXTWORKID": r"\bUGETNEXTWORKID\b",
        "UTMASTG": r"\bUTMASTG\.",
    }
    if two:
        req["UTCBAR.2CTA.MULTICAST"] = r"\bUTCBAR\.2CTA\.MULTICAST"
    pairs = (k.cluster[0] // (2 if two else 1)) * k.cluster[1]
    if k.cluster == (0, 0) or pairs > 1:
        req["UTMALDG.MULTICAST" + (".2CTA" if two else "")] = (
            r"\bUTMALDG\.\S*MULTICAST" + (r"\S*\.2CTA" if two else ""))
    return req


FORBIDDEN = {"LDL": r"\bLDL(\.|\s)", "STL": r"\bSTL(\.|\s)"}


def check_object(path: pathlib.Path, cuobjdump: str) -> tuple[bool, str]:
    name = path.stem
    kernels = {k.name: k for k in generate_kernels.KERNELS}
    if name not in kernels:
        return False, f"{name}: not a kernel of tools/generate_kernels.py"
    k = kernels[name]
    sass = subprocess.run([cuobjdump, "--dump-sass", str(path)], check=True,
                          capture_output=True, text=True).stdout
    res = subprocess.run([cuobjdump, "--dump-resource-usage", str(path)], check=True,
                         capture_output=True, text=True).stdout
    if f"arch = sm_{k.arch}a" not in sass:
        return False, f"{name}: no sm_{k.arch}a SASS in the object"
    other = set(re.findall(r"arch = (sm_\w+)", sass)) - {f"sm_{k.arch}a"}
    parts, ok = [], True
    if other:
        ok = False
        parts.append(f"also compiled for {sorted(other)}")
    for label, rx in requirements(k).items():
        n = len(re.findall(rx, sass))
        ok &= n > 0
        parts.append(f"{label}={n}" + ("" if n else " MISSING"))
    for label, rx in FORBIDDEN.items():
        n = len(re.findall(rx, sass))
        ok &= n == 0
        parts.append(f"{label}={n}" + (" FORBIDDEN" if n else ""))
    usage = re.findall(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", res)
    if not usage:
        ok = False
        parts.append("no resource usage")
    for reg, stack, _, local in usage:
        bad = int(stack) or int(local)
        ok &= not bad
        parts.append(f"REG={reg} STACK={stack} LOCAL={local}" + (" SPILLS" if bad else ""))
    return ok, f"{'ok  ' if ok else 'FAIL'} {name}: " + " ".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("objects", nargs="*", type=pathlib.Path,
                   help="kernel objects (default: build/kernels/*.o)")
    args = p.parse_args(argv)
    cuobjdump = find_cuobjdump()
    if cuobjdump is None:
        print("cuobjdump not found (set CUOBJDUMP, or install torch with Triton)", file=sys.stderr)
        return 2
    objects = args.objects or sorted(KERNEL_DIR.glob("*.o"))
    if not objects:
        print(f"no kernel objects in {KERNEL_DIR}: build with nvcc first", file=sys.stderr)
        return 2
    all_ok = True
    for obj in objects:
        ok, line = check_object(obj, cuobjdump)
        all_ok &= ok
        print(line)
    print(f"{len(objects)} kernels checked: {'all features present' if all_ok else 'FAILURES'}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
