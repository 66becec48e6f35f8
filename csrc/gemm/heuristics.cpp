#include "gemm/heuristics.hpp"

#include "gemm/tile_order.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <array>
#include <vector>
#include <utility>

namespace bw::gemm {

namespace {

constexpr int kTmaAlignBytes = 16;  // TMA: global address and strides multiples of 16 bytes

std::string operand_alignment(const char* name, const Operand& op, int64_t contiguous_extent,
                              int64_t l, int elem_bytes) {
  const int64_t align = kTmaAlignBytes / elem_bytes;
  std::ostringstream why;
  if (reinterpret_cast<uintptr_t>(op.ptr) % kTmaAlignBytes != 0) {
    why << name << "'s data pointer is not 16-byte aligned (a storage offset or a sliced view)";
  } else if (contiguous_extent % align != 0) {
    why << name << "'s unit-stride extent " << contiguous_extent << " is not a multiple of "
        << align << " elements (16 bytes)";
  } else if (op.ld % align != 0) {
    why << name << "'s leading stride " << op.ld << " is not a multiple of " << align
        << " elements (16 bytes)";
  } else if (l > 1 && op.batch % align != 0) {
    why << name << "'s batch stride " << op.batch << " is not a multiple of " << align
        << " elements (16 bytes)";
  }
  return why.str();
}

}  // namespace

// The (A, B) -> D element types kernels exist for (in some build): 16-bit floats -> themselves
// or fp32; FP8 (e4m3/e5m2, mixed pairs too) -> bf16, fp16 or fp32; int8 -> exact int32 or a
// float; tf32 -> fp32. C, bias and X have D's type.
std::string unsupported_types(const GemmArgs& g) {
  const DType a = g.ab, b = g.b_dtype, d = g.d_dtype;
  const bool b_ok = is_fp8(a) ? is_fp8(b) : b == a;
  bool d_ok = false;
  switch (a) {
    case DType::F16: case DType::BF16: d_ok = d == a || d == DType::F32; break;
    case DType::E4M3: case DType::E5M2:
      d_ok = d == DType::BF16 || d == DType::F16 || d == DType::F32; break;
    case DType::I8:
      d_ok = d == DType::I32 || d == DType::BF16 || d == DType::F16 || d == DType::F32; break;
    case DType::TF32: d_ok = d == DType::F32; break;
    case DType::F32:
      return "no kernel takes float32 inputs at full fp32 precision (tf32 kernels run when "
             "torch.backends.cuda.matmul.allow_tf32 is True, i.e. torch.set_float32_matmul_"
             "precision('high'))";
    default: break;
  }
  std::ostringstream why;
  if (!b_ok || !d_ok) {
    why << "no kernel computes " << dtype_name(a) << " x " << dtype_name(b) << " -> "
        << dtype_name(d) << " (kernels: float16/bfloat16 -> itself or float32; float8 e4m3/e5m2"
        << " -> bfloat16, float16 or float32; int8 -> int32, bfloat16, float16 or float32; tf32"
        << " -> float32)";
  } else if (g.has_c && g.c_dtype != d) {
    why << "no kernel reads c as " << dtype_name(g.c_dtype) << " while writing " << dtype_name(d)
        << " (kernels read c in the output type)";
  }
  return why.str();
}

std::string kernel_precondition_failure(const GemmArgs& g) {
  std::ostringstream why;
  if (std::string t = unsupported_types(g); !t.empty()) return t;
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (g.m > kMax || g.n > kMax || g.k > kMax || g.l > kMax) {
    why << "a size exceeds the kernels' 32-bit problem shape (M=" << g.m << ", N=" << g.n
        << ", K=" << g.k << ", L=" << g.l << ")";
    return why.str();
  }
  const int ab = dtype_bytes(g.ab), bb = dtype_bytes(g.b_dtype), cd = dtype_bytes(g.d_dtype);
  std::string s = operand_alignment("a", g.a, g.a_major == Major::K ? g.k : g.m, g.l, ab);
  if (s.empty()) s = operand_alignment("b", g.b, g.b_major == Major::K ? g.k : g.n, g.l, bb);
  if (s.empty() && g.has_c) s = operand_alignment("c", g.c, g.n, g.l, cd);
  if (s.empty()) s = operand_alignment("out", g.d, g.n, g.l, cd);
  if (g.epilogue == Epilogue::Fused) {
    if (s.empty() && g.has_x) s = operand_alignment("x", g.x, g.n, g.l, cd);
    if (s.empty() && g.has_y) s = operand_alignment("y", g.y, g.n, g.l, cd);
    if (s.empty() && g.has_bias) s = operand_alignment("bias", g.bias, g.n, 1, cd);
  }
  return s;
}

namespace {

// sm90 configurations the rules below name, by role. A kernel is a (tile, schedule) of one of
// these, for the problem's types and layout.
struct Sm90Role {
  int tile_m, tile_n;
  Schedule schedule;
};
constexpr Sm90Role kSm90Big{128, 256, Schedule::Sm90Cooperative};  // 128x256x64 coop, 2x1
constexpr Sm90Role kSm90Mid{128, 128, Schedule::Sm90Pingpong};     // 128x128x64 ping-pong, 1x2
constexpr Sm90Role kSm90Small{64, 128, Schedule::Sm90Pingpong};    // 64x128x64 ping-pong, 1x2

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The SMs a persistent grid spans: the device's count, or an H100/H200's 132 where the caller
// plans without a device (GemmArgs::sm_count 0, e.g. _C.plan in the CPU tests).
int64_t sm_count_of(const GemmArgs& g) { return g.sm_count > 0 ? g.sm_count : 132; }

// The sm90 roles for problem g, most preferred first. Measured on the H200 with
// benchmarks/tune.py (benchmarks/results/h200/tune/, 2026-11-30; ratios are time of the best
// config / time of the named one, so 1.00 is the best):
//  - M <= 64, or less than 3/4 of a wave of 128x128 output tiles: Small. 1x/16x/64x8192x8192 1.00
//    (Mid 0.73-0.80, Big 0.55-0.61); 1024^3 1.00 (Mid 0.67); 512^3, 1000^3, 128x6144x4096 and
//    128x4096x14336 1.00 (Mid 0.72-0.94).
//  - K <= 256 (the epilogue's share of the time is large), or M and N both >= 8192: Big.
//    4096x4096x256 1.00 (Mid 0.85); batched 512x512x128 x64 1.00 (Mid 0.85); 8192^3 1.00 (Mid
//    0.96); 8192x14336x4096 1.00 (Mid 1.00).
//  - Otherwise Mid: 4096x4096x512/1024 1.00 (Big 0.96/0.86), 8192x4096x14336 1.00 (Big 0.95),
//    2048^3 x8 1.00 (Big 0.92), 1024x6144x4096 1.00 (Big 0.83); its worst loss is 4096^3, 0.97.
//  - Since session 38, 16-bit inputs take Big over Mid at K > 2048 where Big's grid fills its
//    waves to 90% or more. Timed by name side by side on a lent H100 (docs/results/session38/
//    run149-h100/probe38_rows.txt, us; a K-major; b K-major then MN-major, with C, then both
//    without), Mid had fallen behind at deep K:
//    4096^3 220.5 / 224.3 / 217.3 / 221.1 against Big 191.8 / 200.6 / 193.3 / 197.8;
//    8192x4096x14336 1793.5 / 1706.3 / 1789.2 / 1654.2 against 1431.9 / 1433.1 / 1432.3 /
//    1458.5; 16384x4096x14336 (Llama-8B down at M = 16384) 4182.8 / 4052.6 / 4185.8 / 4018.8
//    against 2764.0 / 2775.2 / 2730.9 / 2747.7; 2048x4096x4096 Big 2-13% ahead, 4096x4096x2048
//    and 4096x4096x14336 5-11%; the other two layouts of a alike. Mid stays where Big's
//    last wave runs part empty (1024x6144x4096: 192 tiles of 128x256 on 132 SMs, Big 95.1 /
//    92.0 against Mid 80.7 / 76.9) and at K <= 2048, where its epilogue overlap pays with C
//    (4096x4096x1024 + C: 62.6 against 66.4; 2048^3 even; the H200's 2048^3 x8 above). Its one
//    lead above K = 2048 is at N = 14336 (4096x14336x4096: -5% to +5%, 8192x14336x4096, Big
//    already: Mid 2-7% ahead in 10 of 12 rows); INT8 and TF32 keep the rules above (not
//    measured). Through the op with this rule (run151-h100/probe38_rows.txt, us, + C, b
//    K-major / MN-major, op against torch.addmm): 4096^3 197.0 / 200.8 against 217.8 / 219.5;
//    8192x4096x14336 1480.6 / 1431.3 against 1453.2 / 1452.5; 16384x4096x14336 2806.4 /
//    2806.6 against 2934.0 / 2932.9 (the ping-pong by name 4083.0 / 3964.5). Session 39 (a
//    third H100, bf16 and fp16, docs/results/session39/run153-h100/, run155-h100/): the same,
//    and the K > 2048 bound holds: at 16384x4096x2048 Mid ran 445.8 against Big 469.6 with C.
using Sm90Preference = std::array<Sm90Role, 3>;

Sm90Preference sm90_preference(const GemmArgs& g) {
  const int64_t tiles128 = ceil_div(g.m, 128) * ceil_div(g.n, 128) * g.l;
  const int64_t sms = sm_count_of(g);
  if (g.m <= 64 || 4 * tiles128 < 3 * sms) return {{kSm90Small, kSm90Mid, kSm90Big}};
  if (g.k <= 256 || (g.m >= 8192 && g.n >= 8192)) return {{kSm90Big, kSm90Mid, kSm90Small}};
  const int64_t tiles256 = ceil_div(g.m, 128) * ceil_div(g.n, 256) * g.l;
  const bool big_fills = 10 * tiles256 >= 9 * ceil_div(tiles256, sms) * sms;
  const bool sixteen_bit = g.ab == DType::F16 || g.ab == DType::BF16;
  if (sixteen_bit && g.k > 2048 && big_fills) return {{kSm90Big, kSm90Mid, kSm90Small}};
  return {{kSm90Mid, kSm90Big, kSm90Small}};
}

// Whether the tail-split kernel k splits problem g (the plan its scheduler makes, on a launch
// grid of all SMs in clusters: CUTLASS's grid for the sm90 persistent kernels on the H100/H200,
// whose 132 SMs hold 66 clusters of 2; tests/test_gpu_tile_order.py checks the kernel agrees).
TailSplit tail_split_of(const GemmArgs& g, const KernelConfig& k) {
  const int64_t cluster = int64_t{k.cluster_m} * k.cluster_n;
  const int64_t tiles = ceil_div(ceil_div(g.m, k.tile_m), k.cluster_m) *
                        ceil_div(ceil_div(g.n, k.tile_n), k.cluster_n) * g.l;
  return TailSplit::make(static_cast<uint64_t>(tiles),
                         static_cast<uint32_t>(sm_count_of(g) / cluster),
                         static_cast<uint32_t>(ceil_div(g.k, k.tile_k)), true);
}
bool tail_split_pays(const GemmArgs& g, const KernelConfig& k) {
  return tail_split_of(g, k).active();
}

// sm90 FP8 overlap kernels at three or more rows of 128-row tiles (session 30): where config
// k's tile and cluster stand among the shapes of the default set, 128x256 in 2x1 clusters,
// 128x128 in 1x2 and 2x1 ones and (session 34, below) 128x192 in either (0 best,
// kSm90Fp8ShapeCount: none of them). Each is costed as the waves of
// clusters its grid takes (all SMs in clusters of two) times a cluster's work in 128x128
// tiles, the wide tile's work counted 4% less (its measured gain per tile where the waves are
// equal: 2-6% at 8192^3 and Llama-8B's shapes, session 7); ties go to the wider tile, then to
// the cluster along M (2x1; session 35, below). So an odd count of 128-row tiles, which pads a 2x1
// grid with a half-empty row of clusters, takes the 1x2 cluster where that saves a wave, and the
// wide tile where its grid has no more waves than the 128x128 ones. Side by side on the H200 at
// 300-1536 rows of Llama-3 8B's projections (docs/results/h200-session30/time_run123.txt, us,
// persistent kernels): up (N 14336, K 4096) at 384 / 640 / 896 / 1152 rows 128x128 1x2 45.8 /
// 69.4 / 83.4 / 111.0 against 2x1 55.1 / 80.5 / 94.9 / 124.1 and 128x256 53.0 / 77.3 / 101.6 /
// 128.6; qkv (N 6144) at 640 rows 31.6 against 42.0 / 50.7; and the wide tile ahead where it
// ties, e.g. down (N 4096, K 14336) at 640 / 1000 rows 76.5 / 86.0 against 83.4 / 97.2 on
// 128x128 2x1. Over the 28 shapes (300-1536 rows) the kernel this rule takes (with the tail-split rule
// below) ran within 3% of the fastest of the 128x128 / 128x256 kernels timed at 27 of them;
// 640 x 4096 x 14336 was the exception (the wide tile, 76.5 against 67.1 on 1x2 split; the
// earlier rule's 2x1 split 72.6), which session 31's split costing below fixes. The earlier rule (128x256 wherever its tiles fill a wave,
// else 2x1) ran up to 35% over the fastest (640 x 6144 x 4096: 42.7 against 31.6).
// Since session 31 a shape whose tail-split twin is among the call's candidates (bit i of
// `split_twins`, in kSm90Fp8Shapes' order) is costed at K >= 8192 by the split's time (TailSplit's
// model: whole waves, then the split rounds) instead of whole waves: at 640 x 4096 x 14336 the
// 1x2 cluster's 80 tiles (a wave and 14, split in 4) ran 67.1 us against 76.5 on 128x256 (48
// tiles, one wave) on the H200 (time_run123.txt there), which whole waves ranked the other way.
// Not below K = 8192, where the splits measured lost to other kernels (1152 x 4096 x 4096:
// 128x256 split 46.6 against 42.4 on 1x2 unsplit; the 128x128 twins, rank() below).
//
// Session 34 added the 128x192 tile (scale kernels only: calls without C; three chunks of 64,
// tools/generate_kernels.py, _SM90_FP8_MID), after the others in the tie order, its work
// counted 8% more per 128 columns than 128x128's (session 7 measured it 7-11% slower per tile at
// 4096-8192 rows, docs/results/h200-session7/probe_tiles4.txt). It takes the grids where the
// 128-wide ones are a wave and a bit and the 256-wide one is under a wave of double-work
// tiles. Side by side on a lent H100 (docs/results/session34/run134-h100/probe34.txt, us; the
// rule's old pick, then the 128x192 kernel it takes now): 640 x 4096 x 4096 128x256 28.7 ->
// 26.3, 300 / 384 x 6144 x 4096 128x256 30.7 / 30.9 -> 29.0 / 29.2, 640 x 14336 x 4096 128x128
// 1x2 72.5 -> 70.8 (the 1x2 cluster: 5 rows of tiles). With this rule (run135-h100/
// probe34_verify.txt there), at all 12 of 15 shapes where it took a 128x192 kernel that kernel was
// the fastest timed, e.g. 1536 x 6144 x 4096 62.8 us against 73.3 on 128x128 1x2. It misses 1152 x
// 4096 x 4096 (128x192 42.5 against 45.8 on 1x2; 2x1, taken since session 35: 43.0) and 640 x 4096
// x 14336 (69.6 against the 128x128 tail split's 74.9). H100 only: the H200 has the same 132 SMs
// and faster memory.
//
// Session 35 turned the 128x128 tie round (2x1 before 1x2), where the two clusters take as many
// waves: side by side (us, 2x1 against 1x2) on the H200 in session 30 (time_run123.txt above)
// 300 x 4096 x 14336 46.7 / 47.0, 896 x 6144 x 4096 43.1 / 43.7, 1152 x 4096 x 4096 42.2 / 42.4,
// 300 / 384 x 4096 x 4096 19.2 / 19.1 and 19.3 / 19.2; on a lent H100 in session 35
// (docs/results/session35/run138-h100/probe34_rows.txt) 50.3 / 53.5, 43.8 / 47.2, 43.0 / 45.4,
// 21.1 / 21.4 and 21.1 / 21.6 (session 34's H100: 2x1 ahead by 3-8% at such ties too). 2x1 was
// never more than 0.5% behind and up to 8% ahead.
struct Sm90Fp8Shape { int tile_n, cluster_m, cluster_n, cost; };  // cost: % of 128x128's per column
constexpr Sm90Fp8Shape kSm90Fp8Shapes[] = {
    {256, 2, 1, 96}, {128, 2, 1, 100}, {128, 1, 2, 100}, {192, 2, 1, 108}, {192, 1, 2, 108}};
constexpr int kSm90Fp8ShapeCount = sizeof(kSm90Fp8Shapes) / sizeof(kSm90Fp8Shapes[0]);

int sm90_fp8_shape_of(const KernelConfig& k) {
  for (int i = 0; i < kSm90Fp8ShapeCount; ++i) {
    const Sm90Fp8Shape& c = kSm90Fp8Shapes[i];
    if (k.tile_m == 128 && k.tile_n == c.tile_n && k.cluster_m == c.cluster_m &&
        k.cluster_n == c.cluster_n) {
      return i;
    }
  }
  return -1;
}

// The place of each of kSm90Fp8Shapes (0 best), computed once a plan, not per candidate.
using Sm90Fp8Places = std::array<int, kSm90Fp8ShapeCount>;
Sm90Fp8Places sm90_fp8_places(const GemmArgs& g, unsigned split_twins) {
  const int64_t clusters = sm_count_of(g) / 2;
  int64_t cost[kSm90Fp8ShapeCount];
  for (int i = 0; i < kSm90Fp8ShapeCount; ++i) {
    const Sm90Fp8Shape& c = kSm90Fp8Shapes[i];
    const int64_t grid = ceil_div(ceil_div(g.m, 128), c.cluster_m) *
                         ceil_div(ceil_div(g.n, c.tile_n), c.cluster_n) * g.l;
    const bool split = g.k >= 8192 && (split_twins >> i & 1u);
    const TailSplit plan = TailSplit::make(static_cast<uint64_t>(grid),
                                           static_cast<uint32_t>(clusters),
                                           static_cast<uint32_t>(ceil_div(g.k, 128)), split);
    cost[i] = static_cast<int64_t>(plan.k_tile_time()) * c.tile_n * c.cost / 128;
  }
  Sm90Fp8Places places{};
  for (int i = 0; i < kSm90Fp8ShapeCount; ++i) {
    for (int j = 0; j < kSm90Fp8ShapeCount; ++j) {
      places[i] += cost[j] < cost[i] || (cost[j] == cost[i] && j < i);
    }
  }
  return places;
}

// Lower is better: where config k stands in the problem's preference (kernels outside the named
// roles, e.g. the tuning candidates of a BW_KERNELS=all build, rank last). Among equal roles the
// persistent scheduler ranks before stream-K, whose bookkeeping cost 1-3% in the same sweep.
// pref: sm90_preference(g) on sm90, unused on sm100; fp8_places: sm90_fp8_places(g, ...).
int rank(const GemmArgs& g, const KernelConfig& k, int device_arch,
         const Sm90Preference& pref, const Sm90Fp8Places& fp8_places) {
  int r = 1000;
  if (k.swap_ab) {
    // Swapped kernels (D^T = B^T A^T; KernelConfig::swap_ab) where the call's rows fit one tile
    // of them: the smallest such tile before any other kernel, the cluster of one CTA before
    // two, the tail-split twin where it splits (session 23, docs/results/h200-session23/), and
    // the weights loaded evict-first before plain loads (session 28: 2.9-3.1 us less at M = 1-64
    // after the benchmarks' L2 flush, alike after a clean one; docs/results/h200-session28/).
    // At 65-128 rows (the 96- and 128-token tiles, session 28, time_run117.txt there) only
    // where measured to pay: where its tiles fill 3/4 of a wave (Llama-8B up, 80 / 96 / 128 x
    // 14336 x 4096: 24.0 / 23.9 / 24.5 us against 28.5 / 28.1 / 26.8 on the 128x128 c1x2 tile,
    // _scaled_mm 25.3-25.8), and for the 96-token tile at K >= 8192 (80 / 96 x 4096 x 14336:
    // 28.8 against 33.7 / 30.9 on the 64x64 ping-pong; 80 x 3584 x 8192: 21.5 against 22.7).
    // Not at 128 x 4096 x 4096 (19.6 against 14.6: 32 tiles split in short k-ranges) nor 128 x
    // 4096 x 14336 (30.4 against 30.8, alike). Elsewhere last.
    if (g.m > k.tile_m) return 100;
    if (g.m > 64) {
      const bool wave = 4 * ceil_div(g.n, k.tile_n) * g.l >= 3 * sm_count_of(g);
      const bool deep = k.tile_m <= 96 && g.k >= 8192;
      if (!wave && !deep) return 100;
    }
    const int split = k.scheduler != TileScheduler::TailSplit ? 0 : tail_split_pays(g, k) ? -1 : 1;
    const int plain_loads = streams_weights(k.schedule) ? 0 : 1;
    return -40 + k.tile_m / 4 + (k.cluster_m * k.cluster_n > 1 ? 1 : 0) + split + plain_loads;
  }
  if (device_arch == 90 && is_fp8(g.ab)) {
    // FP8: the overlapped-promotion mainloop first (measured 8-19% faster than CUTLASS's on the
    // H200, benchmarks/results/h200/tune_fp8/run1-2), cluster 2x1 (tools/generate_kernels.py,
    // _SM90_FP8); 128x256 tiles when they fill a wave of SMs, all else on 128x128. Measured
    // side by side in long bursts: with bias + gelu_tanh, 128x256 took 0.998 vs 1.160 ms at
    // 8192^3 and 0.824 vs 0.915 ms at 8192x4096x14336 (docs/results/h200-session5/
    // probe_tiles2.txt); the plain product, once the mainloop's groups were chained, 0.879 vs
    // 0.895 ms at 8192^3 and 2-6% less at 4096^3 and the Llama-8B shapes (docs/results/
    // h200-session7/probe_tiles3.txt; before, 128x128 had been 1.4-1.8% faster). Below a wave
    // the smaller tile keeps more SMs busy (reasoned, not measured).
    // Small M (session 22, docs/results/h200-session22/; tools/generate_kernels.py,
    // _SM90_FP8_SMALL_M): one row of 128-row tiles (M <= 128) takes the cluster along N, since
    // a cluster of two along M leaves one CTA without rows (Llama-8B up at M = 16-128: 31.6-26.9
    // against 47.8-37.1 us); M <= 64 the 64x128 ping-pong tile on CUTLASS's FP8 mainloop, which
    // promotes every 128 of K as ours does (28.4 / 27.1 us at M = 16 / 64); and either 128x128
    // role its tail-split twin where that splits the call (below a wave: few deep tiles split
    // along K over the idle SMs, e.g. 16x4096x14336).
    const int64_t sms = sm_count_of(g);
    // (N <= 128: a 256-wide tile would only add empty chunks of MMAs.)
    const bool wide = g.n > 128 && ceil_div(g.m, 128) * ceil_div(g.n, 256) * g.l >= sms;
    const bool one_row = g.m <= 128, small = g.m <= 64;
    // 65-128 rows whose 64x64 tiles fill 3/4 to 1 wave, at K <= 16384: the 64x64 ping-pong
    // tile runs them unsplit, before the 128x128 tail-split twin (session 24, side by side, us:
    // 128 x 4096 x 4096 14.2 against 19.4, 128 x 3584 x 8192 20.7 against 23.5, 128 x 4096 x
    // 14336 30.6 against 33.2; docs/results/h200-session24/time_run108.txt; tools/
    // generate_kernels.py, _SM90_FP8_PP6464). Deeper K splits better (128 x 4096 x 28672: 53.0
    // against 50.6, time2_run107.txt).
    const int64_t tiles64 = ceil_div(g.m, 64) * ceil_div(g.n, 64) * g.l;
    const bool wave_of_64 = one_row && !small && g.k <= 16384 && 4 * tiles64 >= 3 * sms &&
                            tiles64 <= sms;
    // 129-256 rows whose 64x128 tiles fit one wave, at K < 8192: the overlap mainloop on the
    // ping-pong kernel (64-row tiles, no cluster; session 36, docs/results/session36/, on a lent
    // H100, us): 129 / 192 / 256 x 4096 x 4096 17.1 / 17.3 / 17.5 against 18.6 / 18.9 / 18.9 on
    // the 2x1 stream kernel and 19.5 / 19.7 / 20.0 through the op before (_scaled_mm 14.8 /
    // 15.2 / 16.6); at 256 x 4096 x K = 512-4096 0.5-1.7 us ahead of the stream kernel. Deeper
    // K splits better (256 x 4096 x 8192: 27.5 against 26.7 on the stream tail-split twin; x
    // 14336: 41.7 against 37.9), and where its tiles take more than a wave the 128-row kernels
    // win (256 x 6144 x 4096: 25.6 against 20.2). Its 2x1-cluster and 64x256 siblings (`all`)
    // ran slower there.
    const bool two_rows = !one_row && ceil_div(g.m, 128) <= 2;
    const bool pp_overlap = two_rows && g.k < 8192 &&
                            ceil_div(g.m, 64) * ceil_div(g.n, 128) * g.l <= sms;
    if (k.schedule == Schedule::Sm90PingpongFp8Overlap) {
      const bool role = k.tile_n == 128 && k.cluster_m * k.cluster_n == 1;
      r = role && pp_overlap ? -10 : 95;
    } else if (k.schedule == Schedule::Sm90Pingpong && k.tile_m == 64 && k.tile_n == 64) {
      r = wave_of_64 ? -3 : small ? 2 : 30;
    } else if (k.schedule == Schedule::Sm90Pingpong && k.tile_m == 64) {
      r = small ? 1 : 30;
    } else if (!overlaps_fp8_promotion(k.schedule)) {
      r = 90;  // CUTLASS's FP8 mainloops (tuning candidates of `all`): after every overlap kernel
    } else if (ceil_div(g.m, 128) > 2) {
      const int shape = sm90_fp8_shape_of(k);
      r = 10 * (shape < 0 ? kSm90Fp8ShapeCount : fp8_places[shape]) +
          (streams_weights(k.schedule) ? 10 * kSm90Fp8ShapeCount + 10 : 0);
      // A 128x128 tail-split twin there goes after its unsplit kernel at K < 8192: such splits
      // lost (same run, us: 896 x 6144 x 4096 on 1x2 50.3 against 43.7; 640 x 6144 x 4096 on
      // 2x1 42.9 against 42.0), while splits after one or two waves of deep tiles won (640 /
      // 1152 x 4096 x 14336 on 1x2: 67.1 / 109.5 against 86.3 / 128.1), as did one round below
      // a wave (256 x 4096 x 14336 on 2x1, 32 tiles in 2 ranges: 33.6 against 42.2). Splits in
      // three or more rounds, which lost, TailSplit no longer makes (tile_order.hpp, kMaxRounds).
      if (k.tile_n == 128 && k.scheduler == TileScheduler::TailSplit && g.k < 8192) r += 5;
    } else {
      const bool cluster_ok = one_row ? k.cluster_m == 1 && k.cluster_n == 2
                                      : k.cluster_m == 2 && k.cluster_n == 1;
      // (the 128x192 tile, for three or more rows above, last)
      r = (k.tile_n == (wide ? 256 : 128) ? 0 : k.tile_n == 192 ? 30 : 10) + (cluster_ok ? 0 : 5) +
          (small ? 2 : 0);
      // At 129-256 rows the 128x128 tail-split twin goes after its unsplit kernel at K < 8192, as
      // with three or more rows above: its splits there lost by 1-3.5 us, more than TailSplit's
      // cost model charges (session 36, the 2x1 stream kernel against its twin, us: 129 / 256 x
      // 4096 x 2048 13.6 / 13.7 against 16.7 / 17.0; x 4096 18.4 / 18.7 against 19.4 / 19.9).
      // At K = 8192 the split won (256 x 4096 x 8192: 26.7 against 28.8).
      if (two_rows && k.scheduler == TileScheduler::TailSplit && g.k < 8192) r += 5;
      // The weights loaded evict-first (csrc/gemm/sm90/tma_loads.hpp) before plain loads
      // where the grid has one row of clusters, so that each weight byte is read once (sessions
      // 28-29, e.g. 256 x 14336 x 4096: 31.6 against 34.5 us; tools/generate_kernels.py,
      // _SM90_FP8_STREAM); elsewhere, where several cluster rows read each weight tile, never.
      if (streams_weights(k.schedule)) {
        r += ceil_div(g.m, k.tile_m) <= k.cluster_m ? -1 : 20;
      }
    }
  } else if (device_arch == 90) {
    for (size_t i = 0; i < pref.size(); ++i) {
      if (k.tile_m == pref[i].tile_m && k.tile_n == pref[i].tile_n &&
          k.schedule == pref[i].schedule) {
        r = 10 * static_cast<int>(i);
      }
    }
  } else {
    const bool want_1sm = g.m <= 128;
    r = ((k.schedule == Schedule::Sm100_1Sm) == want_1sm) ? 0 : 10;
  }
  // Where a lean fused kernel fits the call (no X, no Y), it goes before the full one of the
  // same role: its mainloop keeps the shared memory that X/Y buffers would take (on the H200,
  // 2-9% less time on sm90 FP8 128x256 and 7-15% on 128x128, docs/results/h200-session7/
  // probe_lean.txt). Calls with X or Y have only full kernels as candidates.
  // Likewise a scale kernel (no C: no C buffers, delayed TMA stores) goes before the axpby one of
  // the same role where the call reads no C (sm90 FP8 128x256: 0.1-2.1% less time, the same bits;
  // tools/generate_kernels.py, _SM90_FP8_SCALE). Calls with C have only axpby kernels.
  // A tail-split kernel (the last wave's tiles split along K, csrc/gemm/tile_order.hpp) goes
  // before its role's other kernels where it splits the call (1536x4096x8192 FP8: 13-14% less
  // time than the same kernel unsplit, docs/results/h200-session17/) and after them where it
  // does not (unsplit it ran up to 3% slower than the persistent kernel of its role). At FP8
  // M <= 64 a splitting 128x128 twin also goes before the 64-row ping-pong tile (ranks 1 and 2).
  int sched = k.scheduler == TileScheduler::StreamK ? 1 : 0;
  if (k.scheduler == TileScheduler::TailSplit) sched = tail_split_pays(g, k) ? -2 : 3;
  return r + sched + (k.epilogue == Epilogue::Fused ? 2 : 0) +
         (k.epilogue == Epilogue::Axpby ? 1 : 0);
}

// The tile swizzle for problem g on sm90 kernel k: the rows of tiles (in clusters) that the
// band tile order (gemm/tile_order.hpp) walks together, passed as CUTLASS's max_swizzle_size.
// With none, a wave of clusters covers a band of output tiles and reads all of the other operand
// again; once the operands outgrow the L2, each wave re-reads it from DRAM (ncu, FP8 128x256 at
// 8192^3: 1.17 GB read, 0.60 GB with swizzle 8, cuBLAS 0.56 GB). The H200 runs these GEMMs at
// its power cap, where that traffic costs clock. Each call timed after 25 runs of its own
// (docs/results/h200-session9/), swizzle 8 was faster wherever A + B outgrew the L2 over several
// waves: FP8 1.1-6.1% (8192^3, Llama-8B up, plain and bias + gelu_tanh), INT8 4.1% and 12.2%
// (8192^3, up), TF32 4.0% (8192^3) and 1.2% (4096^3), bf16 128x256 2.7-7.1% (8192^3,
// 16384x8192x4096, 8192x14336x4096), bf16 128x128 ping-pong 1.2% (8192x4096x14336); alike at FP8
// Llama-8B down and bf16 4096x28672x4096. It was slower where the operands fit in the L2 (bf16
// 4096x4096x1024 -4.1%, 2048^3 -3.3%) or the tiles fill under two waves (128x8192x8192 on 64x128,
// -2.1%). Hence: swizzle 8 only with A + B past the L2 and two waves of tiles. Until session 13
// CUTLASS's own order ran here, which rounds the tile grid up to multiples of swizzle x cluster
// and computes the padded tiles (twice as slow where that doubled the grid, 1024^3 on 64x128), so
// this rule then took the widest swizzle padding by at most 1/16; the band order pads nothing,
// and the scheduler narrows the band to the rows there are.
int sm90_swizzle(const GemmArgs& g, const KernelConfig& k) {
  constexpr int64_t kL2Bytes = int64_t{50} << 20;  // H100 / H200
  const int64_t sms = sm_count_of(g);
  const int64_t tiles = ceil_div(g.m, k.tile_m) * ceil_div(g.n, k.tile_n) * g.l;
  const int64_t operand_bytes = (g.m * dtype_bytes(g.ab) + g.n * dtype_bytes(g.b_dtype)) * g.k;
  return operand_bytes > kL2Bytes && tiles >= 2 * sms ? 8 : 1;
}

}  // namespace

SchedulerArgs schedule_for(const GemmArgs& g, const KernelConfig& k) {
  // Data-parallel everywhere: no problem of the sweep ran faster with split-K or stream-K by more
  // than 3%, and CUTLASS's own heuristic mode picked them where they lost. CUTLASS's raster
  // heuristic; the swizzle by sm90_swizzle above for the persistent kernels. The stream-K
  // kernels (never ranked first, rank() above) keep CUTLASS's stream-K scheduler and with it the
  // padding swizzle, so they run unswizzled. sm100 keeps CUTLASS's order: not measured.
  SchedulerArgs s;
  if (k.scheduler == TileScheduler::StreamK) s.decomposition = Decomposition::DataParallel;
  if (k.arch == 90 && k.scheduler != TileScheduler::StreamK) s.swizzle = sm90_swizzle(g, k);
  return s;
}

// Rules, in order. Each names the measurement or fact behind it.
//  1. Kernels are arch-specific ('a' targets): sm_90a code runs on 9.0 only, sm_100a on 10.0
//     only. Anything else takes the cuBLAS composite.
//  2. Preconditions every kernel shares (kernel_precondition_failure): TMA needs 16-byte aligned
//     addresses and strides; the problem shape is 32-bit.
//  3. Exact match on (input type, output type, A majorness, B majorness): a kernel never copies
//     or transposes an input. The epilogue matches (epilogue_fits): axpby, or fused with the
//     call's activation; a lean fused kernel only for a call without x and Y.
//  4. Among the matches, the best ranked (rank() above):
//     sm90: by problem shape, from the H200 sweep (sm90_preference); FP8 by its own rule;
//     a lean fused kernel before the full one of the same role;
//     sm100: M <= 128 prefers a 1-SM kernel, since a 256-row 2-SM MMA tile would be at least
//     half empty; larger M prefers 2-SM (each CTA pair shares B, halving its load per SM).
//     Reasoned from the tile shapes, not measured: no Blackwell GPU here.
//  5. Ties: the first in table order (kernel names sorted).
Plan plan(const GemmArgs& g, int device_arch, const std::vector<const KernelConfig*>& candidates) {
  Plan p;
  std::ostringstream why;
  if (device_arch != 90 && device_arch != 100) {
    why << "no kernels for compute capability " << device_arch / 10 << "." << device_arch % 10
        << " (kernels exist for 9.0 with sm_90a and 10.0 with sm_100a)";
    p.reason = why.str();
    return p;
  }
  bool any_arch = false;
  for (const KernelConfig* k : candidates) any_arch |= (k->arch == device_arch);
  if (!any_arch) {
    why << "this build has no sm_" << device_arch << "a kernels (set BW_ARCHS to include "
        << device_arch << "a when building)";
    p.reason = why.str();
    return p;
  }
  p.reason = kernel_precondition_failure(g);
  if (!p.reason.empty()) return p;
  const Sm90Preference sm90_pref = sm90_preference(g);
  const auto same = [&](const KernelConfig& k) {
    return k.arch == device_arch && k.ab == g.ab && k.b == g.b_dtype && k.cd == g.d_dtype &&
           k.a_major == g.a_major && k.b_major == g.b_major && k.activation == g.activation;
  };
  // The sm90 FP8 shapes whose tail-split twin (plain loads) fits the call (sm90_fp8_places).
  unsigned fp8_split_twins = 0;
  for (const KernelConfig* k : candidates) {
    if (same(*k) && epilogue_fits(k->epilogue, g) && k->scheduler == TileScheduler::TailSplit &&
        overlaps_fp8_promotion(k->schedule) && !streams_weights(k->schedule) &&
        sm90_fp8_shape_of(*k) >= 0) {
      fp8_split_twins |= 1u << sm90_fp8_shape_of(*k);
    }
  }
  const Sm90Fp8Places fp8_places = sm90_fp8_places(g, fp8_split_twins);
  int best = 0;
  bool lean_only = false;  // a lean kernel fitted all but the call's x or Y
  for (size_t i = 0; i < candidates.size(); ++i) {
    const KernelConfig& k = *candidates[i];
    if (!same(k)) continue;
    if (!epilogue_fits(k.epilogue, g)) {
      lean_only |= k.epilogue == Epilogue::FusedLean && g.epilogue == Epilogue::Fused;
      continue;
    }
    const int r = rank(g, k, device_arch, sm90_pref, fp8_places);
    if (p.index < 0 || r < best) {
      p.index = static_cast<int>(i);
      best = r;
    }
  }
  if (p.index >= 0) {
    p.sched = schedule_for(g, *candidates[p.index]);
    return p;
  }
  why << "no compiled sm_" << device_arch << "a kernel for " << dtype_name(g.ab);
  if (g.b_dtype != g.ab) why << " x " << dtype_name(g.b_dtype);
  why << " -> " << dtype_name(g.d_dtype) << " with a " << major_name(g.a_major) << "-major and b "
      << major_name(g.b_major) << "-major";
  if (g.epilogue == Epilogue::Fused) {
    why << " and the fused epilogue with activation " << activation_name(g.activation)
        << " (fused kernels exist for a K-major a and b, i.e. x @ W.T, for float16, bfloat16 and"
        << " float8_e4m3fn -> bfloat16)";
    if (lean_only) {
      why << "; only lean fused kernels (no x, no y) fit, and the call passes " << lean_misfit(g);
    }
  } else {
    why << " (build with BW_KERNELS=all for every layout)";
  }
  p.reason = why.str();
  return p;
}

}  // namespace bw::gemm
