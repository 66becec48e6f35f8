"""For each tail-split kernel and each MxNxK[xL] given: the plan (whole tiles, tiles split, ways)
and the workspace the kernel's own host path sizes when run_kernel is given no schedule, as
tools/sanitize.py's driver runs it (a workspace > 0 bytes means the call splits)."""
import sys

import torch

from blackwell_ops import _C

kernels = [k for k in _C.compiled_kernels() if k.get("scheduler") == "tail_split"
           or "_ts_" in k["name"]]
sms = torch.cuda.get_device_properties(0).multi_processor_count
ceil = lambda x, y: -(-x // y)
for k in kernels:
    (tm, tn, tk), (cm, cn) = k["tile"], k["cluster"]
    for arg in sys.argv[1:]:
        m, n, kk, *lead = (int(x) for x in arg.split("x"))
        batch = lead[0] if lead else 1
        tiles = ceil(ceil(m, tm), cm) * ceil(ceil(n, tn), cn) * batch
        plan = _C.sm90_tail_split(tiles, sms // (cm * cn), ceil(kk, tk))
        shape = (batch, m, kk) if lead else (m, kk)
        a = torch.randn(shape, device="cuda").to(torch.float8_e4m3fn if "e4m3_" in k["name"][:10]
                                                  else torch.float8_e5m2)
        b = torch.randn((batch, n, kk) if lead else (n, kk), device="cuda").to(
            torch.float8_e4m3fn).mT
        msg, _ = _C.run_kernel(a, b, None, 1.0, 0.0, torch.bfloat16, k["name"], False)
        print(f"{k['name']} {arg}: cluster tiles {tiles}, plan (whole, split tiles, ways, -) "
              f"{tuple(plan)}; host path: {msg}")
