"""Benchmark suites, as data. Each case is one gemm_axpby problem; a suite is a list of cases.

A layout names the unit-stride dimension of a and of b, as `python -m blackwell_ops.info` does:
"kk" = a row-major (M, K) and b = W.T (K-major), the nn.Linear forward x @ W.T; "kn" = contiguous
a @ contiguous b; "mk" and "mn" have a column-major a (a = X.T), as in a weight gradient.

The quantized-input suites (issue #9: `fp8`, `int8`, `tf32`, and `quant`, the three together;
`quant_small_m`, FP8 and INT8 at decode and prefill-chunk sizes) are
GPU-only: FP8 and INT8 inputs with per-tensor float32 scales where `scaled` is set, and fp32 inputs
on the TF32 tensor cores (`tf32`: torch.backends.cuda.matmul.allow_tf32 on for the case). Their
peers are PyTorch's own offers (torch._scaled_mm, torch._int_mm, cuBLAS TF32); `target` is the
speedup over the best peer that the issue asks for.
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Case:
    group: str
    m: int
    n: int
    k: int
    l: int = 1              # batch; 1 means 2-D operands
    dtype: str = "bfloat16"
    out_dtype: str | None = None   # None: the input dtype
    layout: str = "kk"
    alpha: float = 1.0
    beta: float = 1.0       # 0 with_c False: no C at all
    with_c: bool = True
    # bw.gemm_fused cases (activation set): D = act(alpha*acc + beta*C + bias) + x_factor*X, Y
    activation: str | None = None
    bias: bool = False
    x_factor: float | None = None   # None: no X
    return_y: bool = False
    # Quantized inputs (issue #9). dtype_b: b's dtype where it differs from a's (the mixed FP8
    # pairing a e5m2 x b e4m3); scaled: per-tensor float32 scale_a, scale_b (D = alpha * scale_a *
    # scale_b * a @ b + ...); tf32: fp32 inputs with TF32 matmuls allowed (ours and the peers).
    dtype_b: str | None = None
    scaled: bool = False
    tf32: bool = False
    target: float | None = None     # the speedup vs the best peer the issue asks for, if any

    @property
    def fused(self) -> bool:
        return self.activation is not None

    @property
    def input_class(self) -> str:
        """Which tensor-core rate the case runs at, for the % of peak column: "fp8", "int8",
        "tf32", or "bf16" (16-bit inputs, and fp32/fp64 without TF32, as before)."""
        if self.dtype.startswith("float8"):
            return "fp8"
        if self.dtype == "int8":
            return "int8"
        return "tf32" if self.tf32 else "bf16"

    @property
    def gpu_only(self) -> bool:
        """FP8/INT8 (torch._scaled_mm, torch._int_mm) and TF32 cases mean nothing on the CPU."""
        return self.input_class != "bf16"

    @property
    def has_epilogue(self) -> bool:
        """Anything past the (scaled) product: beta * C, a bias, an activation, a residual."""
        return ((self.with_c and self.beta != 0) or self.bias or self.x_factor is not None
                or self.activation not in (None, "none"))

    @property
    def name(self) -> str:
        shape = f"{self.m}x{self.n}x{self.k}" + (f"xL{self.l}" if self.l > 1 else "")
        out = f"->{self.out_dtype}" if self.out_dtype and self.out_dtype != self.dtype else ""
        c = f"a{self.alpha:g}b{self.beta:g}" if self.with_c else f"a{self.alpha:g}"
        c += "+scales" if self.scaled else ""
        if self.fused:
            c += (f":{self.activation}" + ("+bias" if self.bias else "")
                  + (f"+x{self.x_factor:g}" if self.x_factor is not None else "")
                  + ("+y" if self.return_y else ""))
        dt = _SHORT.get(self.dtype, self.dtype)
        dt += f"x{_SHORT.get(self.dtype_b, self.dtype_b)}" if self.dtype_b else ""
        dt += "+tf32" if self.tf32 else ""
        return f"{self.group}:{shape}:{dt}{out}:{self.layout}:{c}"

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k * self.l


_SHORT = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}


def _cases(group, shapes, **kw):
    return [Case(group, m, n, k, **kw) for m, n, k in shapes]


# The seed's examples: the fp16 x fp16 -> fp32 C/D GEMM and the 8192^3 fp16 GEMM (its custom
# epilogue belongs to the fused op; here with alpha=2, beta=1).
SEED = (_cases("seed", [(512, 1024, 256)], dtype="float16", out_dtype="float32", layout="kk")
        + _cases("seed", [(8192, 8192, 8192)], dtype="float16", alpha=2.0, beta=1.0))

SQUARE = _cases("square", [(s, s, s) for s in (1024, 2048, 4096, 8192, 16384)])

# Llama-3 8B and 70B projections (x @ W.T, hence "kk"), at several token counts M.
_LLAMA = {
    "8b.qkv": (6144, 4096), "8b.o": (4096, 4096), "8b.up": (28672, 4096), "8b.down": (4096, 14336),
    "70b.qkv": (10240, 8192), "70b.o": (8192, 8192), "70b.up": (57344, 8192),
    "70b.down": (8192, 28672),
}
TRANSFORMER = [Case(f"llama{name}", m, n, k, beta=1.0)
               for name, (n, k) in _LLAMA.items() for m in (1, 16, 128, 1024, 4096, 16384)]

BATCHED = ([Case("batched", 2048, 2048, 2048, l=8)]
           + [Case("batched", 512, 512, 128, l=64), Case("batched", 4096, 4096, 256, l=4)])
SHALLOW_K = _cases("shallow_k", [(4096, 4096, 256), (4096, 4096, 512), (4096, 4096, 1024),
                                 (8192, 8192, 512)])
SKINNY_M = _cases("skinny_m", [(1, 8192, 8192), (16, 8192, 8192), (64, 8192, 8192),
                               (128, 8192, 8192), (256, 8192, 8192)])
ODD = _cases("odd", [(1000, 1000, 1000), (4095, 4097, 4096), (127, 8191, 1024), (3000, 5000, 1000)])
LAYOUTS = [Case("layout", 8192, 8192, 8192, layout=lay) for lay in ("kk", "kn", "mk", "mn")]
FP16_FP32 = _cases("f16->f32", [(8192, 8192, 8192), (4096, 4096, 512)], dtype="float16",
                   out_dtype="float32")
NO_C = _cases("no_c", [(8192, 8192, 8192), (4096, 4096, 1024)], beta=0.0, with_c=False)

# bw.gemm_fused (issue #5): the seed's custom-epilogue example, and a Linear layer's bias +
# activation (+ residual) with the pre-activation Y kept for training. Peers: the same expression
# in eager PyTorch and under torch.compile, Y returned too.
FUSED = [
    Case("fused.seed", 8192, 8192, 8192, dtype="float16", alpha=2.0, beta=1.0, activation="relu",
         x_factor=3.0, return_y=True),
    Case("fused.mlp", 4096, 4096, 1024, with_c=False, beta=0.0, activation="gelu_tanh",
         bias=True, x_factor=1.0, return_y=True),
    Case("fused.mlp", 4096, 4096, 512, with_c=False, beta=0.0, activation="gelu_tanh",
         bias=True, x_factor=1.0, return_y=True),
    Case("fused.llama8b.up", 8192, 14336, 4096, with_c=False, beta=0.0, activation="silu",
         bias=True, return_y=True),
    Case("fused.inference", 4096, 4096, 1024, with_c=False, beta=0.0, activation="gelu_tanh",
         bias=True),
]

# Issue #9: FP8 / INT8 / TF32 inputs against PyTorch's own offers, all in the x @ W.T layout ("kk":
# a row-major, b = W.T), the only one torch._scaled_mm and torch._int_mm take and the one the
# quantized kernels are compiled for. Shapes: the 8192^3 headline, 4096^3, and Llama-3 8B's
# MLP at 8192 tokens (up: N=14336, K=4096; down: N=4096, K=14336, whose output meets the residual).
_UP, _DOWN = (8192, 14336, 4096), (8192, 4096, 14336)
_FP8 = dict(dtype="float8_e4m3fn", out_dtype="bfloat16", scaled=True)
FP8 = (
    # The plain scaled product, e4m3 x e4m3 -> bf16, vs torch._scaled_mm (>= 1.0x).
    _cases("fp8", [(4096, 4096, 4096), (8192, 8192, 8192)], with_c=False, beta=0.0, target=1.0,
           **_FP8)
    + [Case("fp8.llama8b.up", *_UP, with_c=False, beta=0.0, target=1.0, **_FP8),
       Case("fp8.llama8b.down", *_DOWN, with_c=False, beta=0.0, target=1.0, **_FP8)]
    # The mixed pairing a e5m2 x b e4m3 (e5m2 x e5m2 is refused by torch._scaled_mm).
    + _cases("fp8.mixed", [(8192, 8192, 8192)], with_c=False, beta=0.0, target=1.0,
             **{**_FP8, "dtype": "float8_e5m2", "dtype_b": "float8_e4m3fn"})
    # + beta * C (C in bf16), fused vs the composite (>= 1.2x).
    + _cases("fp8+c", [(4096, 4096, 4096), (8192, 8192, 8192)], beta=1.0, target=1.2, **_FP8)
    + [Case("fp8+c.llama8b.down", *_DOWN, beta=1.0, target=1.2, **_FP8)]
    # bias + GELU(tanh) through bw.gemm_fused (>= 1.2x).
    + _cases("fp8+gelu", [(8192, 8192, 8192)], with_c=False, beta=0.0, activation="gelu_tanh",
             bias=True, target=1.2, **_FP8)
    + [Case("fp8+gelu.llama8b.up", *_UP, with_c=False, beta=0.0, activation="gelu_tanh",
            bias=True, target=1.2, **_FP8)]
)
INT8 = (
    # int8 x int8 -> int32, exact, vs torch._int_mm (>= 1.0x).
    _cases("int8", [(4096, 4096, 4096), (8192, 8192, 8192)], dtype="int8", out_dtype="int32",
           with_c=False, beta=0.0, target=1.0)
    + [Case("int8.llama8b.up", *_UP, dtype="int8", out_dtype="int32", with_c=False, beta=0.0,
            target=1.0)]
    # int8 x int8 -> bf16 with per-tensor scales, vs torch._int_mm then the scaling in eager
    # PyTorch and under torch.compile (no target set by the issue).
    + _cases("int8.scaled", [(8192, 8192, 8192)], dtype="int8", out_dtype="bfloat16",
             with_c=False, beta=0.0, scaled=True)
    + [Case("int8.scaled.llama8b.up", *_UP, dtype="int8", out_dtype="bfloat16", with_c=False,
            beta=0.0, scaled=True)]
)
# Small M (session 22): Llama-3 8B's MLP at decode and prefill-chunk token counts, FP8 e4m3 ->
# bf16 with scales (with C at M = 16 too) against torch._scaled_mm, and INT8 -> int32 against
# torch._int_mm (which needs M > 16). Memory-bound below a few hundred rows: the weight (58.7 MB)
# is read once. Session 23 added M = 1 and 32 (the swapped kernels' token tiles 16 and 32).
_SMALL_M = [(m, n, k) for m in (1, 16, 32, 64, 128, 256, 1024) for n, k in (_UP[1:], _DOWN[1:])]
QUANT_SMALL_M = (
    _cases("fp8.small_m", _SMALL_M, with_c=False, beta=0.0, **_FP8)
    + _cases("fp8+c.small_m", [(16, *_UP[1:]), (16, *_DOWN[1:])], beta=1.0, **_FP8)
    + _cases("int8.small_m", [(m, n, k) for m in (32, 128, 512, 2048)
                              for n, k in (_UP[1:], _DOWN[1:])],
             dtype="int8", out_dtype="int32", with_c=False, beta=0.0)
)

# fp32 inputs on the TF32 tensor cores vs cuBLAS TF32 (torch.mm / torch.addmm), and compile.
TF32 = (_cases("tf32", [(4096, 4096, 4096), (8192, 8192, 8192)], dtype="float32", with_c=False,
               beta=0.0, tf32=True)
        + _cases("tf32+c", [(8192, 8192, 8192)], dtype="float32", beta=1.0, tf32=True))

# Shapes off TMA's 16-byte grid, which the ops run on padded copies when the product can hide the
# copies and on cuBLAS otherwise (csrc/bw_ops_cuda.cpp, pad_call): odd N and K, GPT-2's vocabulary
# (50257) as an LM head in training (M = 4096) and at decode (M = 16: cuBLAS, no padding), and FP8
# with K = 8200 (torch._scaled_mm takes K multiples of 16 only) beside the aligned 8192^3.
UNALIGNED = (ODD[1:3] + _cases("odd", [(1000, 1001, 1000), (8192, 8192, 4100)])
             + _cases("lm_head", [(4096, 50257, 768), (4096, 50257, 4096), (16, 50257, 4096)],
                      with_c=False, beta=0.0)
             + [Case("fp8.unaligned", 8192, 8192, 8200, with_c=False, beta=0.0, **_FP8),
                Case("fp8", 8192, 8192, 8192, with_c=False, beta=0.0, **_FP8)])

SUITES: dict[str, list[Case]] = {
    # A smoke run: a few seconds per provider on a GPU.
    "quick": [Case("quick", 4096, 4096, 4096), Case("quick", 4096, 4096, 512),
              Case("quick", 128, 8192, 8192), Case("quick", 1000, 1000, 1000)],
    # What a full H200 run measures, sized to finish in minutes (each case is compiled once per
    # torch.compile peer).
    "default": (SEED + [c for c in SQUARE if c.m in (4096, 8192)] + SHALLOW_K[:3]
                + [c for c in SKINNY_M if c.m in (1, 128)] + BATCHED[:1] + ODD[:2] + LAYOUTS
                + FP16_FP32 + NO_C
                + [c for c in TRANSFORMER if c.group in ("llama8b.up", "llama8b.down")
                   and c.m in (128, 8192 // 2, 16384)]),
    # benchmarks/tune.py: every kernel and schedule on the nn.Linear layout ("kk"), over the
    # default suite's shapes plus the mid and small sizes the planner must also cover.
    "tune": list({(c.m, c.n, c.k, c.l, c.dtype, c.out_dtype, c.with_c):
                  dataclasses.replace(c, layout="kk", group="tune")
                  for c in (SEED + SQUARE[:4] + SHALLOW_K + SKINNY_M + BATCHED + ODD[:1] + FP16_FP32
                            + NO_C[:1]
                            + _cases("mlp", [(8192, 14336, 4096), (8192, 4096, 14336),
                                             (2048, 2048, 2048), (512, 512, 512)])
                            + [c for c in TRANSFORMER if c.group in ("llama8b.up", "llama8b.down",
                                                                     "llama8b.qkv")
                               and c.m in (16, 128, 1024, 4096)])}.values()),
    "fused": FUSED,
    "seed": SEED, "square": SQUARE, "transformer": TRANSFORMER, "batched": BATCHED,
    "shallow_k": SHALLOW_K, "skinny_m": SKINNY_M, "odd": ODD, "layouts": LAYOUTS,
    # Tiny problems for the CPU mode (CI tests the harness end to end with these).
    "cpu": [Case("cpu", 64, 48, 32, dtype="float32"), Case("cpu", 33, 17, 40, dtype="float32",
                                                             layout="mn"),
            Case("cpu", 16, 24, 8, l=3, dtype="float32", with_c=False, beta=0.0)],
}
SUITES["all"] = list(dict.fromkeys(c for name, s in SUITES.items() if name not in ("cpu",)
                                   for c in s))
# Added after "all", which keeps its meaning from before issue #9 (16-bit inputs): these need the
# quantized kernels and a GPU of compute capability 8.9 or newer for the peers.
SUITES.update({"fp8": FP8, "int8": INT8, "tf32": TF32, "quant": FP8 + INT8 + TF32,
               "unaligned": UNALIGNED, "quant_small_m": QUANT_SMALL_M})
