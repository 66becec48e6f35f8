"""FP8 probe (session 5): cuBLAS's kernel names for torch._scaled_mm, and the accuracy of each
accumulation mode against an fp64 reference (which promotion interval cuBLAS's accurate mode
matches)."""
import sys, torch
import blackwell_ops  # noqa: F401
from blackwell_ops import _C

torch.manual_seed(0)
dev = "cuda"
e4m3 = torch.float8_e4m3fn
one = torch.ones((), device=dev)

def names(fn):
    from torch.profiler import profile, ProfilerActivity
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn(); torch.cuda.synchronize()
    return sorted({e.name for e in p.events() if e.device_type.name == "CUDA"})

a = (torch.randn(8192, 8192, device=dev) * 0.5).to(e4m3)
b = (torch.randn(8192, 8192, device=dev) * 0.5).to(e4m3).t()
print("scaled_mm accurate kernels:", names(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)))
print("scaled_mm fast kernels:", names(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)))
print("scaled_mm 8192x14336x4096:", names(lambda: torch._scaled_mm(a[:, :4096], (torch.randn(14336, 4096, device=dev)).to(e4m3).t(), one, one, out_dtype=torch.bfloat16)))

kernels = [d["name"] for d in _C.compiled_kernels()]
kernels = [n for n in kernels if n.startswith("sm90_e4m3_") and "axpby" in n]
print("kernels:", kernels)
# Accuracy: fp32 output so the comparison sees the accumulation, not bf16 rounding.
for K in (4096, 16384):
    # positive-mean data makes the running sum large, where a short accumulator loses bits
    A = (torch.rand(512, K, device=dev) * 2).to(e4m3)
    B = (torch.rand(512, K, device=dev) * 2).to(e4m3)
    ref = A.double() @ B.double().t()
    def err(d):  # (max |err| / max |ref|, mean signed err / mean ref): truncation biases low
        e = d.double() - ref
        return f"{(e.abs().max() / ref.abs().max()).item():.3e} {(e.mean() / ref.mean()).item():+.3e}"

    row = {"scaled_mm": err(torch._scaled_mm(A, B.t(), one, one, out_dtype=torch.float32)),
           "scaled_mm_fast": err(torch._scaled_mm(A, B.t(), one, one, out_dtype=torch.float32, use_fast_accum=True))}
    for n in kernels:
        _C.pin_kernel(n)
        try:
            out = torch.float32 if "_f32_" in n else torch.bfloat16
            row[n] = err(torch.ops.bw.gemm_axpby(A, B.t(), None, 1.0, 0.0, out, one, one))
        except Exception as e:  # noqa: BLE001
            row[n] = repr(e)[:80]
        _C.pin_kernel("")
    row["scaled_mm bf16"] = err(torch._scaled_mm(A, B.t(), one, one, out_dtype=torch.bfloat16))
    print(f"K={K} max|err|/max|ref|, mean(err)/mean(ref):")
    for k, v in row.items():
        print(f"   {v}  {k}")
