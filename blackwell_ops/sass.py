"""Proof from the SASS that each compiled kernel uses the hardware features its config promises.

Used by `tools/check_sass.py` (CI) and `python -m blackwell_ops.info --sass`. For each kernel
object (build/kernels/<kernel>.o, written by setup.py) it disassembles with cuobjdump and checks the
instructions the kernel's config implies (DESIGN.md's evidence table):

  sm90:  the wgmma of the input type: HGMMA (16-bit and tf32), QGMMA (FP8), IGMMA (INT8);
         UTMALDG (TMA load), UTMALDG...MULTICAST when the cluster has > 1 CTA, UTMASTG (TMA store)
  sm100: the tcgen05 MMA of the input type, UTC{H,Q,I}MMA.2CTA (2-SM; H: 16-bit and tf32, Q:
         FP8, I: INT8), UTMALDG...2CTA, UTMALDG...MULTICAST...2CTA when the
         cluster holds more than one CTA pair or is sized at run time, UTCBAR.2CTA.MULTICAST,
         UTCATOMSWS.2CTA (2-CTA TMEM allocation), LDTM (tcgen05.ld), UGETNEXTWORKID (CLC
         persistent scheduler), UTMASTG; 1-SM kernels the same without .2CTA (multicast when the
         cluster is sized at run time or holds more than one CTA)
         and the operand majorness the config names, read from the MMA's instruction descriptor
         (idesc_majors(): the a/b major bits of the constants the MMAs take as idesc)
  both:  no local memory: no LDL/STL, and cuobjdump's resource usage says LOCAL:0 and STACK:0,
         except where spill_allowance() grants a measured exception
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "build" / "kernels"
FORBIDDEN = {"LDL": r"\bLDL(\.|\s)", "STL": r"\bSTL(\.|\s)"}


def find_cuobjdump() -> str | None:
    """$CUOBJDUMP, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, or the copy Triton ships."""
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
    return next((c for c in cands if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


# The MMA instruction's type letter by input type: H (16-bit floats and tf32), Q (FP8), I (INT8).
MMA_KIND = {"float16": "H", "bfloat16": "H", "tf32": "H", "float8_e4m3fn": "Q",
            "float8_e5m2": "Q", "int8": "I"}


def spill_allowance(k: dict) -> int:
    """LDL/STL instructions (each) and stack bytes a kernel may have: 0 but for one measured case.

    The sm90 FP8 overlap kernels with 128x256 tiles hold 192 accumulator registers per thread
    (the fp32 sum and two 64-column chunk accumulators, csrc/gemm/sm90/fp8_overlapped_promotion.hpp)
    of the consumers' 232, and ptxas keeps a few scalars in local memory: in the SASS of
    2026-11-30, one store and one load per group of two k-tiles and some per output tile (the
    fused ones' epilogue too), none between the MMA batches. Measured on the H200 side by side,
    the fused 128x256 kernel is 8-16% faster than the spill-free 128x128 one all the same
    (docs/results/h200-session5/probe_tiles2.txt: 0.998 against 1.160 ms at 8192^3).
    The 128x128 ones (the same 192 registers: the sum and two 128-column chunks) spill likewise
    once the tail-split scheduler's state and fixup join them: in the SASS of 2026-12-03 one
    4-byte reload (LDL R226, [R1]) per k-tile beside its 4 QGMMAs, the rest around the tile.
    (The same holds for their twins that load the weights evict-first, schedule
    sm90_cooperative_fp8overlap_streamed_b: the same mainloop and registers.)
    Where the planner takes them (calls they split) they ran 15-30% faster than the spill-free
    kernel of their role (docs/results/h200-session22/probe22_run99.txt; 16x4096x14336 36.5 against
    43.1 us); unsplit, 2-3% slower, where the planner does not take them."""
    if (k["arch"] == 90 and k["schedule"].startswith("sm90_cooperative_fp8overlap")
            and (k["tile"][1] == 256 or k["scheduler"] == "tail_split")):
        return 32
    return 0


def requirements(k: dict) -> dict[str, str]:
    """feature label -> regex over SASS that must match at least once, for a kernel config
    (a dict as blackwell_ops._C.kernel_table() returns)."""
    cluster = tuple(k["cluster"])
    kind = MMA_KIND[k["ab"]]
    if k["arch"] == 90:
        req = {f"{kind}GMMA": rf"\b{kind}GMMA\.", "UTMALDG": r"\bUTMALDG\.",
               "UTMASTG": r"\bUTMASTG\."}
        if cluster[0] * cluster[1] > 1:
            req["UTMALDG.MULTICAST"] = r"\bUTMALDG\.\S*MULTICAST"
        return req
    two = k["schedule"] == "sm100_2sm"
    sfx, tag = (r"\S*\.2CTA", ".2CTA") if two else ("", "")
    req = {
        f"UTC{kind}MMA" + tag: rf"\bUTC{kind}MMA" + sfx,
        "UTMALDG" + tag: r"\bUTMALDG" + sfx,
        "LDTM": r"\bLDTM\b",
        "UTCATOMSWS" + tag: r"\bUTCATOMSWS" + (r"\.2CTA" if two else ""),
        "UGETNEXTWORKID": r"\bUGETNEXTWORKID\b",
        "UTMASTG": r"\bUTMASTG\.",
    }
    if two:
        req["UTCBAR.2CTA.MULTICAST"] = r"\bUTCBAR\.2CTA\.MULTICAST"
    units = (cluster[0] // (2 if two else 1)) * cluster[1]
    if cluster == (0, 0) or units > 1:
        req["UTMALDG.MULTICAST" + tag] = r"\bUTMALDG\.\S*MULTICAST" + sfx
    return req


# sm100 tcgen05.mma instruction descriptor (32 bits; PTX ISA, "Instruction descriptor"; CuTe's
# UMMA::InstrDescriptor): bit 15 a MN-major, bit 16 b MN-major, bits 17-22 N / 8, bits 24-28 M / 16.
_MMA = re.compile(r"\bUTC[HQI]MMA\S*\s[^;]*idesc\[(UR\d+)\]")
_UMOV = re.compile(r"\bUMOV\s+(UR\d+),\s*(0x[0-9a-f]+)\s*;")


def idesc_majors(sass: str, k: dict) -> tuple[bool, str]:
    """Whether the sm100 MMAs read a and b in the majorness the config names: every constant moved
    into a register that some UTC*MMA takes as its instruction descriptor, and whose M and N
    fields are the kernel's MMA shape, must carry the config's a/b major bits (at least one).
    UMMA reads 16-bit, tf32 and 8-bit operands either way; this shows which way was built."""
    idesc_regs = set(_MMA.findall(sass))
    m, n = k["tile"][0], k["tile"][1]
    want = (int(k["a_major"] == "MN"), int(k["b_major"] == "MN"))
    seen = set()
    for reg, imm in _UMOV.findall(sass):
        v = int(imm, 16)
        if reg in idesc_regs and ((v >> 24) & 0x1F) << 4 == m and ((v >> 17) & 0x3F) << 3 == n:
            seen.add(((v >> 15) & 1, (v >> 16) & 1))
    label = "idesc(a,b major)=" + ",".join(
        f"{'MN' if a else 'K'}/{'MN' if b else 'K'}" for a, b in sorted(seen))
    if not seen:
        return False, "idesc MISSING"
    ok = seen == {want}
    return ok, label + ("" if ok else " WRONG")


def check_object(path: pathlib.Path, k: dict, cuobjdump: str) -> tuple[bool, str]:
    """(all features present and no local memory, one-line report)."""
    name = k["name"]
    if not path.exists():
        return False, f"FAIL {name}: no object at {path}"
    sass = subprocess.run([cuobjdump, "--dump-sass", str(path)], check=True,
                          capture_output=True, text=True).stdout
    res = subprocess.run([cuobjdump, "--dump-resource-usage", str(path)], check=True,
                         capture_output=True, text=True).stdout
    arch = f"sm_{k['arch']}a"
    if f"arch = {arch}" not in sass:
        return False, f"FAIL {name}: no {arch} SASS in the object"
    parts, ok = [], True
    other = set(re.findall(r"arch = (sm_\w+)", sass)) - {arch}
    if other:
        ok = False
        parts.append(f"also compiled for {sorted(other)}")
    for label, rx in requirements(k).items():
        n = len(re.findall(rx, sass))
        ok &= n > 0
        parts.append(f"{label}={n}" + ("" if n else " MISSING"))
    if k["arch"] == 100:
        majors_ok, label = idesc_majors(sass, k)
        ok &= majors_ok
        parts.append(label)
    allowed = spill_allowance(k)
    for label, rx in FORBIDDEN.items():
        n = len(re.findall(rx, sass))
        ok &= n <= allowed
        parts.append(f"{label}={n}" + (" FORBIDDEN" if n > allowed else " (allowed)" if n else ""))
    usage = re.findall(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", res)
    if not usage:
        ok = False
        parts.append("no resource usage")
    for reg, stack, _, local in usage:
        bad = int(stack) > allowed or int(local) > 0
        ok &= not bad
        parts.append(f"REG={reg} STACK={stack} LOCAL={local}" + (" SPILLS" if bad else ""))
    return ok, f"{'ok  ' if ok else 'FAIL'} {name}: " + " ".join(parts)


def report(names=None, emit=None) -> tuple[bool, list[str]]:
    """Checks the compiled kernels (or `names`); returns (all ok, report lines). emit, if given,
    is called with each line as soon as it is known (a default build takes a minute or more:
    a caller with a time limit then keeps what was checked)."""
    from blackwell_ops import _C
    lines, all_ok = [], True

    def add(line):
        lines.append(line)
        if emit is not None:
            emit(line)

    table = {k["name"]: k for k in _C.kernel_table()}
    names = names if names is not None else [k["name"] for k in _C.compiled_kernels()]
    if not names:
        add("no compiled kernels in this build (built without nvcc?)")
        return False, lines
    cuobjdump = find_cuobjdump()
    if cuobjdump is None:
        add("cuobjdump not found (set CUOBJDUMP, or install torch with Triton)")
        return False, lines
    for name in names:
        if name not in table:
            all_ok = False
            add(f"FAIL {name}: not in the kernel table")
            continue
        ok, line = check_object(KERNEL_DIR / f"{name}.o", table[name], cuobjdump)
        all_ok &= ok
        add(line)
    add(f"{len(names)} kernels checked: {'all features present' if all_ok else 'FAILURES'}")
    return all_ok, lines
