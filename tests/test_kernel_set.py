"""The kernel set: generated files in sync with tools/generate_kernels.py, the build holding
exactly its preset, and the SASS of the compiled kernels proving their features."""
import os
import pathlib
import subprocess
import sys

import pytest
import torch

from blackwell_ops import _C

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import generate_kernels  # noqa: E402

from blackwell_ops import sass  # noqa: E402

try:
    from blackwell_ops import _build_config as build
except ImportError:  # pragma: no cover
    build = None


def test_generated_files_match_the_table():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "generate_kernels.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_check_detects_a_stale_file(tmp_path, monkeypatch):
    # The consistency check must be able to fail: point it at a copy with one file edited.
    out = tmp_path / "generated"
    out.mkdir()
    for path, text in generate_kernels.expected_files().items():
        (out / path.name).write_text(text)
    victim = next(out.glob("sm90_*.cu"))
    victim.write_text(victim.read_text() + "// edited\n")
    (out / "stray.cu").write_text("")
    monkeypatch.setattr(generate_kernels, "OUT_DIR", out)
    monkeypatch.setattr(generate_kernels, "ROOT", tmp_path)
    problems = generate_kernels.check()
    assert any("out of date" in p and victim.name in p for p in problems)
    assert any("stray.cu" in p for p in problems)


def test_presets_nest_and_ci_has_both_archs():
    ci = {k.name for k in generate_kernels.select("ci", [90, 100])}
    default = {k.name for k in generate_kernels.select("default", [90, 100])}
    every = {k.name for k in generate_kernels.select("all", [90, 100])}
    assert ci < default < every
    assert {k.arch for k in generate_kernels.select("ci", [90, 100])} == {90, 100}
    for k in generate_kernels.KERNELS:
        k.validate()


def test_default_holds_every_layout_of_the_sm100_quant_families():
    """sm100's UMMA reads 8-bit and tf32 operands MN-major: the default build holds the plain
    product of the main 8-bit/tf32 types in all four layouts there, and on sm90 (wgmma: K-major
    only) none but x @ W.T."""
    default = generate_kernels.select("default", [90, 100])
    for ab, b, cd in generate_kernels._SM100_QUANT_LAYOUTS:
        for arch, layouts in ((100, {("k", "k"), ("k", "mn"), ("mn", "k"), ("mn", "mn")}),
                              (90, {("k", "k")})):
            have = {(k.a_major, k.b_major) for k in default if k.arch == arch and k.ab == ab
                    and k.b == b and k.cd == cd and k.epilogue == "Axpby"}
            assert have == layouts, (arch, ab, b, cd, have)


def test_native_table_is_the_generator_table():
    names = [k["name"] for k in _C.kernel_table()]
    assert names == [k.name for k in generate_kernels.KERNELS]


def test_build_holds_its_preset():
    if build is None or not build.CUDA_KERNELS:
        pytest.skip("CPU-only build (no nvcc): no kernels compiled")
    expected = {k.name for k in generate_kernels.select(build.PRESET,
                                                        [int(a[:-1]) for a in build.ARCHS])}
    compiled = {k["name"] for k in _C.compiled_kernels()}
    assert compiled == expected == set(build.KERNELS)


def test_sass_features_of_compiled_kernels():
    if build is None or not build.CUDA_KERNELS:
        if os.environ.get("BW_REQUIRE_KERNELS") == "1":
            pytest.fail("BW_REQUIRE_KERNELS=1 but this build has no CUDA kernels")
        pytest.skip("CPU-only build (no nvcc): no kernels to disassemble")
    if sass.find_cuobjdump() is None:
        if os.environ.get("BW_REQUIRE_KERNELS") == "1":
            pytest.fail("BW_REQUIRE_KERNELS=1 but cuobjdump was not found")
        pytest.skip("cuobjdump not found")
    missing = [n for n in build.KERNELS if not (sass.KERNEL_DIR / f"{n}.o").exists()]
    if missing:
        pytest.skip(f"kernel objects not in build/kernels (installed from a wheel?): {missing[0]}")
    ok, lines = sass.report(build.KERNELS)
    print("\n".join(lines))
    assert ok, "\n".join(lines)


def test_sass_requirements_follow_the_config():
    table = {k["name"]: k for k in _C.kernel_table()}
    sm90 = next(k for k in table.values() if k["arch"] == 90 and k["ab"] == "bfloat16")
    two = next(k for k in table.values()
               if k["schedule"] == "sm100_2sm" and k["ab"] == "bfloat16")
    one = next(k for k in table.values() if k["schedule"] == "sm100_1sm")
    assert "UTMALDG.MULTICAST" in sass.requirements(sm90) and "HGMMA" in sass.requirements(sm90)
    req = sass.requirements(two)
    for feature in ("UTCHMMA.2CTA", "UTMALDG.2CTA", "UTMALDG.MULTICAST.2CTA",
                    "UTCBAR.2CTA.MULTICAST", "UTCATOMSWS.2CTA", "LDTM", "UGETNEXTWORKID"):
        assert feature in req, feature
    req = sass.requirements(one)
    assert "UTCHMMA" in req and "UTMALDG.MULTICAST" in req and "UTCBAR.2CTA.MULTICAST" not in req


@pytest.mark.parametrize("ab, sm90_mma, sm100_mma", [
    ("float8_e4m3fn", "QGMMA", "UTCQMMA.2CTA"), ("float8_e5m2", "QGMMA", "UTCQMMA.2CTA"),
    ("int8", "IGMMA", "UTCIMMA.2CTA"), ("tf32", "HGMMA", "UTCHMMA.2CTA")])
def test_sass_requirements_name_the_mma_of_the_input_type(ab, sm90_mma, sm100_mma):
    """8-bit and tf32 kernels must show their own MMA form (issue #9's SASS evidence)."""
    table = _C.kernel_table()
    for arch, mma in ((90, sm90_mma), (100, sm100_mma)):
        k = next(k for k in table if k["arch"] == arch and k["ab"] == ab)
        assert mma in sass.requirements(k), (k["name"], sass.requirements(k))


# Two sm100 MMAs as cuobjdump prints them, with their instruction descriptors (e4m3 -> fp32
# accumulator, M 256, N 128; 0x10210010: b MN-major) and an unrelated constant in an idesc register.
_SASS_IDESC = """
        /*4440*/                   UMOV UR29, 0x10210010 ;
        /*4450*/                   UMOV UR27, 0x10210010 ;
        /*4460*/                   UMOV UR27, 0x40004040 ;
        /*4a10*/                   UTCQMMA.2CTA gdesc[UR30], gdesc[UR32], tmem[UR8], tmem[UR28], idesc[UR29], UP2 ;
        /*4a50*/                   UTCQMMA.2CTA gdesc[UR42], gdesc[UR44], tmem[UR8], tmem[UR26], idesc[UR27], UPT ;
"""


def test_sass_idesc_majors_read_the_instruction_descriptor():
    k = dict(tile=[256, 128, 128], a_major="K", b_major="MN")
    assert sass.idesc_majors(_SASS_IDESC, k) == (True, "idesc(a,b major)=K/MN")
    ok, label = sass.idesc_majors(_SASS_IDESC, dict(k, b_major="K"))
    assert not ok and "WRONG" in label
    ok, label = sass.idesc_majors(_SASS_IDESC.replace("0x10210010", "0x10218010", 1), k)
    assert not ok and "MN/MN" in label and "K/MN" in label  # one MMA reads a MN-major
    ok, label = sass.idesc_majors(_SASS_IDESC, dict(k, tile=[128, 128, 128]))  # 1-SM M 128
    assert not ok and "MISSING" in label
    ok, label = sass.idesc_majors(_SASS_IDESC.replace("idesc[", "desc["), k)
    assert not ok and "MISSING" in label


def test_sass_check_can_fail(tmp_path):
    """An sm90 object checked against an sm100 config must fail (missing features, wrong arch)."""
    if build is None or not build.CUDA_KERNELS or sass.find_cuobjdump() is None:
        pytest.skip("needs compiled kernels and cuobjdump")
    table = {k["name"]: k for k in _C.kernel_table()}
    sm90_obj = next((sass.KERNEL_DIR / f"{n}.o" for n in build.KERNELS if n.startswith("sm90_")),
                    None)
    if sm90_obj is None or not sm90_obj.exists():
        pytest.skip("no sm90 kernel object")
    two = next(k for k in table.values() if k["schedule"] == "sm100_2sm")
    ok, line = sass.check_object(sm90_obj, two, sass.find_cuobjdump())
    assert not ok and "FAIL" in line


def test_run_kernel_refuses_bad_requests():
    a = torch.randn(8, 8)
    with pytest.raises(RuntimeError, match="CUDA device|no CUDA kernels"):
        _C.run_kernel(a, a, None, 1.0, 0.0, None, "sm90_no_such_kernel", False)


def test_spill_allowance_only_for_the_wide_or_tail_split_fp8_overlap_kernels():
    # blackwell_ops/sass.py: the 128x256 FP8 overlap kernels, and the 128x128 ones with the
    # tail-split scheduler, may keep a few scalars in local memory (measured, documented); every
    # other kernel must have none.
    wide = dict(arch=90, schedule="sm90_cooperative_fp8overlap", tile=(128, 256, 128),
                scheduler="persistent")
    assert sass.spill_allowance(wide) == 32
    assert sass.spill_allowance(dict(wide, tile=(128, 128, 128))) == 0
    assert sass.spill_allowance(dict(wide, tile=(128, 128, 128), scheduler="tail_split")) == 32
    assert sass.spill_allowance(dict(wide, schedule="sm90_cooperative")) == 0
    assert sass.spill_allowance(dict(wide, schedule="sm90_cooperative", scheduler="tail_split")) == 0
    assert sass.spill_allowance(dict(wide, arch=100, schedule="sm100_2sm")) == 0
    # the overlap mainloop with the weights loaded evict-first: the same registers
    stream = dict(wide, schedule="sm90_cooperative_fp8overlap_streamed_b", tile=(128, 128, 128))
    assert sass.spill_allowance(stream) == 0
    assert sass.spill_allowance(dict(stream, scheduler="tail_split")) == 32
    # ... and the kernel table names those kernels so that the allowance reaches them
    allowed = [k for k in _C.kernel_table()
               if k["schedule"].startswith("sm90_cooperative_fp8overlap")
               and (k["tile"][1] == 256 or k["scheduler"] == "tail_split")]
    assert any(k["tile"][1] == 128 for k in allowed)
    assert any(k["schedule"].endswith("_streamed_b") for k in allowed)
    assert allowed and all(sass.spill_allowance(k) == 32 for k in allowed)
