"""Reliability on a CUDA GPU (issue #7): CUDA graphs with new data (also under torch.compile's
reduce-overhead), the current stream honoured while other streams are busy, no host
synchronisation on any path, bitwise-repeatable results, no memory growth over 10,000 calls, two
Python threads at once, sizes past 2^31 elements, tensors on two GPUs, and overlapping input views.

tests/test_gpu.py covers each kernel's numerics and a first graph/stream/sync check; this file
adds what a long-running program relies on. Every result is compared with the fp64 reference of
tests/helpers.py, on fresh random data, with outputs poisoned where the op allocates them. Where a
test is about the kernel path it skips, naming the reason, when this build would not take a kernel;
otherwise the path taken (`_C.explain`) is part of each assertion message. Marked gpu: skipped,
with the reason, without a GPU.
"""
import gc
import math
import random
import re
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from blackwell_ops import _C, gemm_axpby
from helpers import assert_close, poison_next_alloc, rand, reference, tolerance, TOL

pytestmark = pytest.mark.gpu

BF16, F16, F32 = torch.bfloat16, torch.float16, torch.float32


def _gen(seed, device="cuda"):
    return torch.Generator(device=device).manual_seed(seed)


def _path(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None, expect=None):
    """The path the op takes for these arguments (`_C.explain`: "kernel: ...", "composite ...",
    "degenerate ..."). expect="kernel" skips, naming the reason, when this build has no kernel
    for them, and so does "padded" (a kernel on padded copies); any other expect must match."""
    path = _C.explain(a, b, c, alpha, beta, out_dtype)
    if expect in ("kernel", "padded") and not path.startswith("kernel: "):
        pytest.skip(f"needs the kernel path; this build takes: {path}")
    if expect == "padded":
        assert "after padding" in path, f"expected the kernel on padded copies: {path}"
    else:
        assert expect is None or path.startswith(expect), f"expected the {expect} path: {path}"
    return path


def _out_shape(a, b):
    lead = a.shape[:-2] if a.dim() == 3 else b.shape[:-2]
    return (*lead, a.shape[-2], b.shape[-1])


def _quiet(fn, *args, **kwargs):
    """Calls fn with the fallback's one-time warning silenced (it is tested in test_gpu.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _bits(t):
    """The raw bits of t, so equality is bitwise (-0.0 != 0.0, NaN payloads compared)."""
    return t.view({BF16: torch.int16, F16: torch.int16, F32: torch.int32}[t.dtype])


# 1. CUDA graphs ------------------------------------------------------------------------------

@pytest.mark.parametrize("expect,k", [("kernel", 1024), ("padded", 1020)],
                         ids=["kernel", "padded_k1020"])
def test_graph_replay_with_new_data_kernel_path(expect, k):
    """Two chained kernel-path calls captured in one graph; each replay after copying new data into
    the captured inputs (and NaN into the captured outputs) gives the new data's answer. With
    K = 1020 the first call runs on padded copies: the copies are captured too."""
    m, n, n2 = 512, 768, 256
    g = _gen(21)
    a, b, c = rand((m, k), BF16, "cuda", g), rand((k, n), BF16, "cuda", g), \
        rand((m, n), BF16, "cuda", g)
    w, c2 = rand((n, n2), BF16, "cuda", g), rand((m, n2), BF16, "cuda", g)
    path = _path(a, b, c, 0.5, 2.0, expect=expect)
    path2 = _path(torch.empty(m, n, dtype=BF16, device="cuda"), w, c2, 1.0, -1.0, expect="kernel")

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside capture
        gemm_axpby(gemm_axpby(a, b, c, 0.5, 2.0), w, c2, 1.0, -1.0)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        d = gemm_axpby(a, b, c, alpha=0.5, beta=2.0)
        e = gemm_axpby(d, w, c2, alpha=1.0, beta=-1.0)  # reads the first call's output

    for replay in range(3):
        g2 = _gen(1000 + replay)
        for t in (a, b, c, w, c2):
            t.copy_(rand(t.shape, t.dtype, "cuda", g2))
        d.fill_(math.nan)
        e.fill_(math.nan)
        graph.replay()
        torch.cuda.synchronize()
        assert_close(d, reference(a, b, c, 0.5, 2.0), TOL[BF16], f"replay {replay}, {path}")
        assert_close(e, reference(d, w, c2, 1.0, -1.0), TOL[BF16], f"replay {replay}, {path2}")


def test_compile_reduce_overhead_replays_with_new_data():
    """torch.compile(mode="reduce-overhead") puts the op (and an Inductor kernel after it) in a CUDA
    graph; every call with new input tensors gives the new answer, and the graph is not skipped."""
    pytest.importorskip("triton", reason="Inductor's GPU backend needs triton")
    from torch._dynamo.utils import counters

    def fn(a, b, c):
        return torch.relu(gemm_axpby(a, b, c, alpha=0.5, beta=2.0)) + 1.0

    torch._dynamo.reset()
    compiled = torch.compile(fn, mode="reduce-overhead", fullgraph=True)
    skips = counters["inductor"]["cudagraph_skips"]
    m, n, k = 512, 768, 1024
    path = None
    with torch.no_grad():
        for step in range(6):  # warm-up, record, then replays
            g = _gen(200 + step)
            a, b, c = rand((m, k), BF16, "cuda", g), rand((k, n), BF16, "cuda", g), \
                rand((m, n), BF16, "cuda", g)
            path = path or _path(a, b, c, 0.5, 2.0)
            torch.compiler.cudagraph_mark_step_begin()
            out = compiled(a, b, c)
            ref = torch.relu(reference(a, b, c, 0.5, 2.0)) + 1.0
            assert_close(out, ref, TOL[BF16], f"call {step}, {path}")
    assert counters["inductor"]["cudagraph_skips"] == skips, "Inductor skipped CUDA graphs"


# 2. Streams ----------------------------------------------------------------------------------

SLEEP_CYCLES = 100_000_000  # torch.cuda._sleep: ~50-70 ms at H200 clocks, far longer than a launch


@pytest.mark.parametrize("expect,k,dt", [("kernel", 1024, BF16), ("padded", 1020, BF16),
                                         ("composite", 1024, F32)],
                         ids=["kernel", "padded_k1020", "fallback_fp32"])
def test_op_runs_on_the_current_stream(expect, k, dt):
    """A producer stream sleeps, then writes new inputs; the op's stream waits on the producer's
    event while a large unrelated GEMM runs on a third stream. An op that launched anywhere but the
    current stream would read the old inputs (no other ordering exists) and miss the reference."""
    m, n = 1024, 768
    g = _gen(31)
    new = [rand((m, k), dt, "cuda", g), rand((k, n), dt, "cuda", g), rand((m, n), dt, "cuda", g)]
    a, b, c = (rand(t.shape, dt, "cuda", g) for t in new)  # what the buffers hold before
    path = _path(a, b, c, 1.0, 1.0, expect=expect)
    busy = rand((8192, 8192), BF16, "cuda", g)
    junk = torch.empty_like(busy)
    producer, consumer, other = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(consumer):  # lazy init and a cached output block, outside the race
        _quiet(gemm_axpby, a, b, c, beta=1.0)
    torch.cuda.synchronize()

    with torch.cuda.stream(other):
        for _ in range(4):
            torch.mm(busy, busy, out=junk)
    with torch.cuda.stream(producer):
        torch.cuda._sleep(SLEEP_CYCLES)
        for dst, src in zip((a, b, c), new):
            dst.copy_(src)
        ready = producer.record_event()
    with torch.cuda.stream(consumer):
        consumer.wait_event(ready)
        d = _quiet(gemm_axpby, a, b, c, beta=1.0)
    torch.cuda.current_stream().wait_stream(consumer)
    torch.cuda.synchronize()
    assert_close(d, reference(*new, 1.0, 1.0), tolerance(dt, dt, "cuda"),
                 f"{path}; the op did not order after the producer: it ignored the current stream?")


# 3. No host synchronisation ------------------------------------------------------------------

# name: r -> (expected path, a, b, c, alpha, beta, out_dtype); r(*shape, dt=bf16) makes fresh data
SYNC_CASES = {
    "kernel_with_c": lambda r: ("kernel", r(512, 256), r(256, 384), r(512, 384), 1.5, -0.5,
                                None),
    "kernel_c_not_read": lambda r: ("kernel", r(512, 256), r(256, 384),
                                    r(512, 384).fill_(math.nan), 1.0, 0.0, None),
    "kernel_batched": lambda r: ("kernel", r(3, 200, 136), r(3, 136, 264), r(3, 200, 264), 0.5,
                                 1.0, None),
    "kernel_batched_shared_b": lambda r: ("kernel", r(3, 256, 128), r(128, 384), None, 1.0, 0.0,
                                          None),
    "kernel_transposed_views": lambda r: ("kernel", r(256, 512).mT, r(384, 256).mT, None, 2.0,
                                          0.0, None),
    "kernel_fp16_to_fp32": lambda r: ("kernel", r(256, 128, dt=F16), r(128, 512, dt=F16),
                                      r(256, 512, dt=F32), 1.0, 1.0, F32),
    "fallback_fp32": lambda r: ("composite", r(256, 128, dt=F32), r(128, 192, dt=F32),
                                r(256, 192, dt=F32), 1.0, 1.0, None),
    "padded_unaligned_k": lambda r: ("padded", r(1024, 1020), r(1020, 768), r(1024, 768), 1.0,
                                     2.0, None),
    "padded_unaligned_n_batched": lambda r: ("padded", r(2, 1024, 1024), r(1024, 1001),
                                             r(2, 1024, 1001), 1.0, 2.0, None),
    "fallback_unaligned_k_small": lambda r: ("composite", r(128, 100), r(100, 72), r(128, 72), 1.0,
                                             2.0, None),
    "fallback_batched_fp32": lambda r: ("composite", r(2, 64, 96, dt=F32), r(96, 80, dt=F32),
                                        None, 1.0, 0.0, None),
    "degenerate_k0": lambda r: ("degenerate", r(64, 0), r(0, 48), r(64, 48), 1.0, 3.0, None),
}


def _maker(g):
    def r(*shape, dt=BF16):
        return rand(shape, dt, "cuda", g)
    return r


@pytest.mark.parametrize("name", list(SYNC_CASES))
def test_no_host_sync(name):
    """torch.cuda.set_sync_debug_mode("error") raises on any synchronising CUDA call: none may
    happen on the op's kernel path, its fallback, or the degenerate path (test_gpu.py checks the
    plain 2-D case without c)."""
    expect, a, b, c, alpha, beta, out_dtype = SYNC_CASES[name](_maker(_gen(41)))
    path = _path(a, b, c, alpha, beta, out_dtype, expect=expect)
    _quiet(gemm_axpby, a, b, c, alpha, beta, out_dtype)  # lazy init and the one-time warning
    poison_next_alloc(_out_shape(a, b), out_dtype or (c.dtype if c is not None else a.dtype),
                      "cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        d = _quiet(gemm_axpby, a, b, c, alpha, beta, out_dtype)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert_close(d, reference(a, b, c, alpha, beta), tolerance(a.dtype, d.dtype, "cuda"),
                 f"{name}: {path}")


# 4. Bitwise repeatability --------------------------------------------------------------------

@pytest.mark.parametrize("mnk,ab,cd", [((2048, 2048, 4096), BF16, BF16),
                                       ((1536, 1024, 2048), F16, F32)],
                         ids=["bf16_2048x2048x4096", "fp16_to_fp32_1536x1024x2048"])
def test_bitwise_identical_across_runs(mnk, ab, cd):
    """20 runs of the same kernel-path call, each into a fresh allocation (all kept alive, so at
    20 addresses), then one into a NaN-poisoned reused block: all bit for bit the first result."""
    m, n, k = mnk
    g = _gen(51)
    a, b, c = rand((m, k), ab, "cuda", g), rand((k, n), ab, "cuda", g), rand((m, n), cd, "cuda", g)
    path = _path(a, b, c, 0.75, 1.25, cd, expect="kernel")
    runs = [gemm_axpby(a, b, c, 0.75, 1.25, cd) for _ in range(20)]
    assert len({d.data_ptr() for d in runs}) == len(runs)
    first = runs[0]
    del runs[1:]
    poison_next_alloc((m, n), cd, "cuda")
    runs.append(gemm_axpby(a, b, c, 0.75, 1.25, cd))
    for _ in range(19):  # the freed blocks come back in turn: outputs at reused addresses
        runs.append(gemm_axpby(a, b, c, 0.75, 1.25, cd))
    torch.cuda.synchronize()
    for i, d in enumerate(runs):
        assert torch.equal(_bits(d), _bits(first)), f"run {i} differs from run 0 ({path})"
    assert_close(first, reference(a, b, c, 0.75, 1.25), TOL[cd], path)


# 5. No memory growth -------------------------------------------------------------------------

@pytest.mark.parametrize("expect,k,n", [("kernel", 256, 256), ("composite", 260, 256),
                                         ("padded", 1020, 1001)],
                         ids=["kernel", "fallback_k260", "padded_k1020_n1001"])
def test_no_memory_growth_over_10k_calls(expect, k, n):
    """After warm-up, 10,000 calls leave torch.cuda.memory_allocated() exactly where it was and
    memory_reserved() no higher: no leaked output, workspace, temporary or padded copy."""
    g = _gen(61)
    m = 256 if expect != "padded" else 1024  # the padded call: a product big enough to pad
    a, b, c = rand((m, k), BF16, "cuda", g), rand((k, n), BF16, "cuda", g), \
        rand((m, n), BF16, "cuda", g)
    path = _path(a, b, c, 1.0, 1.0, expect=expect)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(50):
            d = gemm_axpby(a, b, c, beta=1.0)
        torch.cuda.synchronize()
        # Earlier tests' tensors held in reference cycles would otherwise be freed whenever the
        # collector runs, e.g. inside the loop (seen: allocated 152.7 -> 134.7 MB in a full run).
        gc.collect()
        allocated, reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
        for _ in range(10_000):
            d = gemm_axpby(a, b, c, beta=1.0)
        torch.cuda.synchronize()
        gc.collect()
    assert torch.cuda.memory_allocated() == allocated, \
        f"{path}: allocated {allocated} -> {torch.cuda.memory_allocated()} bytes"
    assert torch.cuda.memory_reserved() <= reserved, \
        f"{path}: reserved {reserved} -> {torch.cuda.memory_reserved()} bytes"
    assert_close(d, reference(a, b, c, 1.0, 1.0), TOL[BF16], path)


# 6. Two Python threads -----------------------------------------------------------------------

def test_first_cuda_call_of_a_fresh_thread_is_a_kernel_launch():
    """A thread whose first CUDA work is our kernel (autograd's device threads run the backward
    like this): the TMA descriptors are encoded with the driver API, which needs the device's
    context current on the thread. With the output served from the allocator's cache, nothing
    else makes it current. Found on the 2 x H200 host (examples/tp_mlp.py, bf16 backward:
    "Failed to initialize the TMA descriptor 201"); csrc/bw_ops_cuda.cpp make_context_current."""
    g = _gen(77)
    a, b = rand((256, 192), BF16, "cuda", g), rand((192, 320), BF16, "cuda", g)
    if not _C.explain(a, b).startswith("kernel"):
        pytest.skip("no kernel for bf16 a @ b in this build")
    torch.empty(256, 320, dtype=BF16, device="cuda")  # a cached block for the output
    torch.cuda.synchronize()
    out = {}

    def work():
        try:
            out["d"] = gemm_axpby(a, b)
        except Exception as e:  # noqa: BLE001
            out["error"] = e

    t = threading.Thread(target=work)
    t.start()
    t.join(timeout=120)
    assert "error" not in out, out.get("error")
    torch.cuda.synchronize()
    assert_close(out["d"], reference(a, b), TOL[BF16])


def test_two_threads_each_on_its_own_stream():
    """Two threads, each with its own stream, 200 calls each on different shapes and dtypes
    (fresh data every call, no synchronisation until the end): every result right."""
    iters = 200
    cases = [((256, 384, 128), BF16, None), ((200, 136, 264), F16, F32)]
    start = threading.Barrier(len(cases), timeout=120)

    def work(idx, mnk, ab, out_dtype):
        m, n, k = mnk
        g = _gen(300 + idx)
        stream = torch.cuda.Stream()
        calls = []
        start.wait()
        with torch.cuda.stream(stream):
            for i in range(iters):
                a, b = rand((m, k), ab, "cuda", g), rand((k, n), ab, "cuda", g)
                c = rand((m, n), out_dtype or ab, "cuda", g)
                alpha, beta = 1.0 + i % 3, (-0.5, 0.0, 1.0)[i % 3]
                d = gemm_axpby(a, b, c, alpha, beta, out_dtype)
                calls.append((a, b, c, alpha, beta, d))
        stream.synchronize()
        return calls

    # warnings.catch_warnings is not thread-safe: one around both threads
    with warnings.catch_warnings(), ThreadPoolExecutor(len(cases)) as pool:
        warnings.simplefilter("ignore")
        futures = [pool.submit(work, i, *case) for i, case in enumerate(cases)]
        results = [f.result(timeout=600) for f in futures]
    for idx, ((mnk, ab, out_dtype), calls) in enumerate(zip(cases, results)):
        assert len(calls) == iters
        a, b, c, alpha, beta, _ = calls[0]
        path = _path(a, b, c, alpha, beta, out_dtype)
        for i, (a, b, c, alpha, beta, d) in enumerate(calls):
            assert_close(d, reference(a, b, c, alpha, beta), TOL[d.dtype],
                         f"thread {idx} {mnk} call {i} ({path})")


# 7. Past 2^31 elements -----------------------------------------------------------------------

# name: (M, N, K). D's rows are sampled (columns for B_large); all run in under 32 GiB.
LARGE = {
    "A_large": (2**17 + 16, 128, 16384),    # A: 2,147,745,792 elements, 4.3 GB in bf16
    "B_large": (16, 2**25 + 2**20, 64),     # B: 2,214,592,512 elements, 4.4 GB
    "D_large": (2**16, 2**15 + 256, 64),    # D and C: 2,164,260,864 elements each, 4.3 GB
}


def _sample(extent, crossing, seed, count=24):
    """Indices to check: both ends, the middle, around the first index whose elements lie past
    2^31, and `count` random ones."""
    rng = random.Random(seed)
    picks = {0, 1, extent // 2, crossing - 1, crossing, crossing + 1, extent - 2, extent - 1}
    picks |= {rng.randrange(extent) for _ in range(count)}
    return sorted(i for i in picks if 0 <= i < extent)


@pytest.fixture
def free_cuda_cache():
    yield
    torch.cuda.empty_cache()


@pytest.mark.parametrize("name", list(LARGE))
def test_past_2_31_elements(name, free_cuda_cache):
    """An operand with more than 2^31 elements: whichever path the op takes (recorded in the
    messages), every sampled row (columns for B) matches the fp64 reference computed for just
    those, and no output element is left unwritten (the output is poisoned with NaN first)."""
    m, n, k = LARGE[name]
    free, _ = torch.cuda.mem_get_info()
    if free < 32 * 2**30:
        pytest.skip(f"needs 32 GiB of free GPU memory, {free / 2**30:.1f} GiB free")
    g = _gen(71)
    a = torch.randn(m, k, dtype=BF16, device="cuda", generator=g)
    b = torch.randn(k, n, dtype=BF16, device="cuda", generator=g)
    c = torch.randn(m, n, dtype=BF16, device="cuda", generator=g)
    assert max(t.numel() for t in (a, b, c)) > 2**31
    path = _path(a, b, c, 1.25, 0.5)
    print(f"{name} {m}x{n}x{k}: {path}")
    poison_next_alloc((m, n), BF16, "cuda")
    d = _quiet(gemm_axpby, a, b, c, alpha=1.25, beta=0.5)
    assert bool(torch.isfinite(d).all()), f"{name}: unwritten (NaN) or non-finite output ({path})"
    if name == "B_large":  # every column reads B's last rows, past 2^31; row 2^31 // N crosses
        idx = torch.tensor(_sample(n, 2**31 % n, 7), device="cuda")  # at column 2^31 % N
        a_s, b_s, c_s, d_s = a, b.index_select(1, idx), c.index_select(1, idx), \
            d.index_select(1, idx)
    else:  # rows whose elements of A (or of C and D) lie past 2^31
        idx = torch.tensor(_sample(m, 2**31 // (k if name == "A_large" else n), 7), device="cuda")
        a_s, b_s, c_s, d_s = a.index_select(0, idx), b, c.index_select(0, idx), \
            d.index_select(0, idx)
    assert_close(d_s, reference(a_s, b_s, c_s, 1.25, 0.5), TOL[BF16],
                 f"{name} {m}x{n}x{k} ({path})")


# 8. Tensors on two GPUs ----------------------------------------------------------------------

def _need_two_gpus():
    if torch.cuda.device_count() < 2:
        pytest.skip(f"needs 2 GPUs, this machine has {torch.cuda.device_count()}")


def test_tensors_on_different_gpus_name_the_argument():
    _need_two_gpus()
    a0, b0, c0 = rand((64, 32), BF16, "cuda:0"), rand((32, 48), BF16, "cuda:0"), \
        rand((64, 48), BF16, "cuda:0")
    b1, c1 = b0.to("cuda:1"), c0.to("cuda:1")
    cases = [((a0, b1, None), "b must be on a's device cuda:0, got b.device = cuda:1"),
             ((a0, b0, c1), "c must be on a's device cuda:0, got c.device = cuda:1"),
             ((a0.to("cuda:1"), b0, c1), "b must be on a's device cuda:1, got b.device = cuda:0")]
    for (a, b, c), msg in cases:
        with pytest.raises(RuntimeError, match=re.escape("bw.gemm_axpby: " + msg)):
            gemm_axpby(a, b, c, beta=1.0)


def test_all_tensors_on_the_second_gpu():
    """With cuda:0 current, a call whose tensors all live on cuda:1 runs there, right."""
    _need_two_gpus()
    g = _gen(81, "cuda:1")
    a, b, c = rand((512, 256), BF16, "cuda:1", g), rand((256, 384), BF16, "cuda:1", g), \
        rand((512, 384), BF16, "cuda:1", g)
    path = _path(a, b, c, 1.0, 1.0)
    with torch.cuda.device(0):
        d = _quiet(gemm_axpby, a, b, c, beta=1.0)
    assert d.device == a.device
    assert_close(d, reference(a, b, c, 1.0, 1.0), TOL[BF16], path)


# 9. Overlapping input views ------------------------------------------------------------------

# name: (shape of a buffer x, (x, r) -> (a, b, c, beta)): operands that share x's memory
OVERLAP_CASES = {
    # a: rows 0-511, cols 0-255 of x; b: rows 256-511, cols 0-767
    "a_b_views_of_one_buffer": ((1024, 1024), lambda x, r: (x[:512, :256], x[256:512, :768],
                                                            None, 0.0)),
    "b_is_a": ((512, 512), lambda x, r: (x, x, None, 0.0)),
    "b_is_a_transposed": ((512, 512), lambda x, r: (x, x.mT, None, 0.0)),
    "c_is_a": ((512, 512), lambda x, r: (x, r(512, 512), x, -1.5)),
    "c_overlaps_a": ((768, 512), lambda x, r: (x[:512], r(512, 512), x[256:], 0.5)),
    # stride 0: an operand overlapping itself
    "c_broadcast_row": ((1, 384), lambda x, r: (r(256, 128), r(128, 384), x.expand(256, 384),
                                                1.0)),
    "a_broadcast_row": ((1, 128), lambda x, r: (x.expand(256, 128), r(128, 384), None, 0.0)),
    "b_expanded_over_batch": ((128, 384), lambda x, r: (r(3, 256, 128), x.expand(3, 128, 384),
                                                        r(3, 256, 384), 1.0)),
}


@pytest.mark.parametrize("name", list(OVERLAP_CASES))
def test_overlapping_input_views(name):
    """Operands that alias each other (or themselves, stride 0) give the reference's answer,
    whichever path they take, and are left unchanged."""
    r = _maker(_gen(91))
    shape, make = OVERLAP_CASES[name]
    a, b, c, beta = make(r(*shape), r)
    inputs = [t for t in (a, b, c) if t is not None]
    before = [t.clone() for t in inputs]
    path = _path(a, b, c, 0.75, beta)
    poison_next_alloc(_out_shape(a, b), BF16, "cuda")
    d = _quiet(gemm_axpby, a, b, c, alpha=0.75, beta=beta)
    torch.cuda.synchronize()
    assert_close(d, reference(a, b, c, 0.75, beta), TOL[BF16], f"{name} ({path})")
    assert all(torch.equal(x, y) for x, y in zip(before, inputs)), f"{name}: an input changed"
