"""Session 31: which kernel cuBLAS (torch._scaled_mm, e4m3 -> bf16 with tensor scales) launches
at the small-M shapes where ours trails it (129-384 rows of Llama-3 8B's projections), and how
long it runs there by the profiler's clock (one call after five warm-up calls, no flush)."""
import torch
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
for (M, N, K) in [(m, n, k) for m in (129, 192, 256, 384)
                  for (n, k) in ((4096, 4096), (14336, 4096), (4096, 14336))]:
    a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn).t()
    sa = torch.tensor(0.7, device=dev)
    sb = torch.tensor(1.3, device=dev)
    f = lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        f()
        torch.cuda.synchronize()
    kern = [(e.name, e.device_time) for e in prof.events() if e.device_type.name == "CUDA"]
    print(f"{M}x{N}x{K}: " + "; ".join(f"{n} {t:.1f} us" for n, t in kern), flush=True)
