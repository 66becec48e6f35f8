// Torch-free vocabulary shared by the planner, the kernel registry and the kernels.
//
// Nothing here includes torch or CUDA headers: the planner and the registry compile in a
// CPU-only build and are unit-tested there, and a later move of the op binding to the LibTorch
// stable ABI only touches csrc/bw_ops*.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bw::gemm {

// Element types the kernels know. The op accepts more (fp64, and every type through the fallback).
// F32 is exact fp32 (no kernel takes it as an input: it runs on cuBLAS); TF32 is fp32 in memory
// fed to the tensor cores as tf32 (10-bit mantissa), which the binding chooses for fp32 inputs
// when torch's float32 matmul precision allows it. I32 is an output type (exact int8 products).
enum class DType : uint8_t { F16, BF16, F32, F64, E4M3, E5M2, I8, I32, TF32 };

constexpr bool is_fp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }
// 8-bit inputs (FP8, INT8): the types whose per-tensor scales the op folds into alpha.
constexpr bool is_8bit(DType t) { return is_fp8(t) || t == DType::I8; }

// Which dimension of an operand has unit stride.
//   A (M, K): K-major = row-major a (a.stride(-1) == 1), MN-major = column-major a.
//   B (K, N): K-major = b.stride(-2) == 1 (b = W.T of a Linear layer), MN-major = row-major b.
enum class Major : uint8_t { K, MN };

// CUTLASS kernel schedules, one enumerator per (mainloop, epilogue) schedule pair.
enum class Schedule : uint8_t {
  Sm90Cooperative,   // KernelTmaWarpSpecializedCooperative + TmaWarpSpecializedCooperative
  Sm90Pingpong,      // KernelTmaWarpSpecializedPingpong + TmaWarpSpecialized
  Sm90CooperativeFp8Overlap,  // Sm90Cooperative, FP8 promotion overlapped (sm90/fp8_overlapped_promotion.hpp)
  Sm90CooperativeFastAccum,   // KernelTmaWarpSpecializedCooperativeFP8FastAccum (FP8 only)
  Sm90CooperativeStreamedA,   // Sm90Cooperative, A loaded evict-first (sm90/tma_loads.hpp)
  Sm90CooperativeFp8OverlapStreamedB,  // Sm90CooperativeFp8Overlap, B loaded evict-first (ibid.)
  Sm90PingpongFp8Overlap,     // Sm90Pingpong on the FP8 overlap mainloop (64-row tiles)
  Sm100_1Sm,         // KernelTmaWarpSpecialized1SmSm100 + TmaWarpSpecialized1Sm
  Sm100_2Sm,         // KernelTmaWarpSpecialized2SmSm100 + TmaWarpSpecialized2Sm
};

// The schedules on the FP8 overlap mainloop (sm90/fp8_overlapped_promotion.hpp), and those that
// load the weights evict-first (sm90/tma_loads.hpp): the planner's roles (heuristics.cpp).
constexpr bool overlaps_fp8_promotion(Schedule s) {
  return s == Schedule::Sm90CooperativeFp8Overlap ||
         s == Schedule::Sm90CooperativeFp8OverlapStreamedB || s == Schedule::Sm90PingpongFp8Overlap;
}
constexpr bool streams_weights(Schedule s) {
  return s == Schedule::Sm90CooperativeStreamedA || s == Schedule::Sm90CooperativeFp8OverlapStreamedB;
}

// How a persistent kernel hands out work (a compile-time choice; CUTLASS's tile scheduler tag).
enum class TileScheduler : uint8_t {
  Persistent,  // the arch's default: whole output tiles, data-parallel (sm100: cluster launch control)
  StreamK,     // sm90 cooperative only: also split-K and stream-K, chosen per call (SchedulerArgs)
  TailSplit,   // sm90 cooperative only: Persistent's band order, the last wave split along K
               // (gemm/tile_order.hpp, TailSplit); DataParallel turns the split off per call
};

// Run-time scheduling of one call, chosen by the planner (csrc/gemm/heuristics.cpp). Kernels
// without a stream-K scheduler ignore `decomposition` and `splits`, except that a tail-split
// kernel splits nothing under DataParallel.
enum class Decomposition : uint8_t { Heuristic, DataParallel, SplitK, StreamK };
enum class Raster : uint8_t { Heuristic, AlongM, AlongN };
struct SchedulerArgs {
  Decomposition decomposition = Decomposition::Heuristic;  // Heuristic: CUTLASS's own choice
  int splits = 1;                                          // with SplitK
  Raster raster = Raster::Heuristic;
  int swizzle = 1;                                         // CUTLASS max_swizzle_size: 1, 2, 4, 8
  // The tail-split kernels' flags (sm90/tile_scheduler.hpp) in a buffer of the caller's that is
  // zero when the kernel starts and that the kernel leaves zero: the launch then needs no memset
  // (csrc/bw_ops_cuda.cpp, split_flags_for). Null: the flags go in the call's workspace, zeroed
  // before each launch (what a CUDA graph capture gets).
  void* split_flags = nullptr;
  size_t split_flags_bytes = 0;
};

// The epilogue tree (csrc/gemm/epilogue.hpp) a kernel was built with.
enum class Epilogue : uint8_t {
  Axpby,      // D = alpha * acc + beta * C, C skipped when beta == 0
  Fused,      // D = act(alpha * acc + beta * C + bias) + x_factor * X, optionally Y = acc
  FusedLean,  // Fused without X and Y: D = act(alpha * acc + beta * C + bias). A kernel of the
              // fused epilogue for calls without x and return_y: its shared memory holds no X/Y
              // buffers, which cost the sm90 FP8 kernels a mainloop stage (csrc/gemm/epilogue.hpp)
  Scale,      // Axpby without C: D = alpha * acc. A kernel of gemm_axpby for calls without C (or
              // beta == 0): CUTLASS builds it with no C, so its shared memory holds no C buffers
              // and each subtile's TMA store is issued after the next subtile's (epilogue.hpp)
};

// The activation of the fused epilogue (a compile-time choice: one kernel per activation). The
// op layer (csrc/ops/gemm_fused.*) uses the same enum; activation_name() gives the op's names.
enum class Activation : uint8_t { None, Relu, GeluTanh, GeluErf, Silu };
inline constexpr Activation kActivations[] = {Activation::None, Activation::Relu,
                                              Activation::GeluTanh, Activation::GeluErf,
                                              Activation::Silu};

// One kernel's compile-time configuration, as plain data. tools/generate_kernels.py writes one
// of these per kernel (csrc/gemm/generated/kernel_table.inc) and the matching template
// instantiation, so the planner can reason about kernels that were not compiled.
struct KernelConfig {
  const char* name;
  int arch;             // 90 (sm_90a) or 100 (sm_100a)
  DType ab;             // A element type (and B's, unless b differs)
  DType b;              // B element type (differs from ab only for mixed FP8: e5m2 x e4m3)
  DType cd;             // C and D element type
  Major a_major;
  Major b_major;
  int tile_m, tile_n, tile_k;
  int cluster_m, cluster_n;                    // 0 x 0: sized at run time (sm100 only)
  int preferred_cluster_m, preferred_cluster_n;  // run-time cluster shape when cluster is 0 x 0
  int fallback_cluster_m, fallback_cluster_n;    // ... and where the preferred one does not fit
  Schedule schedule;
  TileScheduler scheduler;
  Epilogue epilogue;
  Activation activation;  // None for Axpby
  const char* presets;  // space-separated kernel-set presets holding this kernel
  // The kernel computes D^T = B^T A^T: CUTLASS's A is the call's b, its B the call's a, and D (and
  // C) are written column-major, i.e. the call's row-major D. Every field above is in the call's
  // terms (tile_m: rows of the call's D per tile), so the planner reasons about it like any other
  // kernel. Why: at small M (decode) the call's M becomes the MMA's N, which wgmma sizes in steps
  // of 8, where as the MMA's M it would fill a 64-row instruction (docs/design.md, "Small M").
  // The generator writes it only when true (the trailing initializer).
  bool swap_ab = false;
};

// One problem, in the kernels' terms. Pointers and strides are in elements of the operand's
// type; the batch stride may be 0 (an operand shared by every batch).
struct Operand {
  const void* ptr = nullptr;
  int64_t ld = 0;      // stride of the non-unit-stride matrix dimension
  int64_t batch = 0;   // stride between batches
};

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0, l = 1;
  DType ab = DType::BF16;       // A's element type
  DType b_dtype = DType::BF16;  // B's element type
  DType c_dtype = DType::BF16;  // meaningful when has_c
  DType d_dtype = DType::BF16;
  Major a_major = Major::K;
  Major b_major = Major::MN;
  Operand a, b, c, d;  // c and d are row-major (N has unit stride)
  bool has_c = false;  // false: C is not read (beta == 0 or no c)
  float alpha = 1.f;
  float beta = 0.f;
  // Per-tensor scales (one fp32 value each in device memory, or null for 1): the kernels compute
  // alpha * scale_a * scale_b * acc. Read on the device, so they can change without a host sync.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // The fused epilogue (epilogue == Fused): bias (length N), X and Y are in D's type; X and Y
  // row-major with D's shape. Absent ones are not read (bias, X) or not written (Y).
  Epilogue epilogue = Epilogue::Axpby;
  Activation activation = Activation::None;
  Operand bias, x, y;
  bool has_bias = false, has_x = false, has_y = false;
  float x_factor = 0.f;
  int device_id = 0;
  int sm_count = 0;
  SchedulerArgs sched;  // set by the planner
};

// Whether a kernel built with the epilogue tree `kernel` computes what g asks for. Problems are
// posed as Axpby or Fused; a FusedLean kernel computes a Fused problem with no X and no Y, a
// Scale kernel an Axpby problem that reads no C.
inline bool epilogue_fits(Epilogue kernel, const GemmArgs& g) {
  if (kernel == Epilogue::FusedLean) return g.epilogue == Epilogue::Fused && !g.has_x && !g.has_y;
  if (kernel == Epilogue::Scale) return g.epilogue == Epilogue::Axpby && !g.has_c;
  return kernel == g.epilogue;
}

// What of a fused call g a lean kernel cannot compute, in the op's terms, for messages:
// "x (with x_factor != 0)" or "return_y=True (or autograd needs y)"; "" when neither.
inline const char* lean_misfit(const GemmArgs& g) {
  return g.has_x ? "x (with x_factor != 0)" : g.has_y ? "return_y=True (or autograd needs y)" : "";
}

// Why a kernel built with the epilogue tree `kernel` cannot compute g, for messages (run_kernel's
// check and the kernel's can_implement); "" where it fits (epilogue_fits).
inline std::string epilogue_mismatch(Epilogue kernel, const GemmArgs& g) {
  if (epilogue_fits(kernel, g)) return "";
  const bool axpby_kernel = kernel == Epilogue::Axpby || kernel == Epilogue::Scale;
  if (axpby_kernel && g.epilogue != Epilogue::Axpby) {
    return "a gemm_axpby kernel (run it with run_kernel)";
  }
  if (g.epilogue == Epilogue::Axpby && !axpby_kernel) {
    return "a fused-epilogue kernel (run it with run_kernel_fused)";
  }
  if (kernel == Epilogue::Scale) return "a kernel without C (D = alpha * acc), and the call reads C";
  return std::string("a lean fused kernel, which has no x or y, and the call passes ") +
         lean_misfit(g);
}

// Result of a host-side kernel call.
struct Status {
  bool ok = true;
  std::string message;
  static Status success() { return {}; }
  static Status error(std::string msg) { return {false, std::move(msg)}; }
};

const char* dtype_name(DType t);
const char* major_name(Major m);
const char* schedule_name(Schedule s);
const char* scheduler_name(TileScheduler s);
const char* decomposition_name(Decomposition d);
const char* activation_name(Activation a);
const char* epilogue_name(Epilogue e);  // "axpby", "fused" or "lean"
// The activation named `name` (activation_name's inverse); false if there is none.
bool parse_activation(const std::string& name, Activation* out);
int dtype_bytes(DType t);

}  // namespace bw::gemm
