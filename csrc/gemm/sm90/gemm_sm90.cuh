// sm_90a (Hopper) kernels: WGMMA mainloops fed by TMA (multicast across the cluster), warp-
// specialized and persistent, with the shared epilogue of gemm/epilogue.hpp.
#pragma once

// Guard at compile time: these kernels use wgmma/setmaxnreg, which exist only on sm_90a. The
// build gives this file's translation units -gencode=arch=compute_90a,code=sm_90a and nothing
// else; any other device pass would produce a kernel body that traps at run time.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "sm90 kernels must be compiled for sm_90a only (-gencode=arch=compute_90a,code=sm_90a)"
#endif

#include "gemm/cutlass_gemm.cuh"
#include "gemm/sm90/fp8_overlapped_promotion.hpp"
#include "gemm/sm90/tile_scheduler.hpp"
#include "gemm/sm90/tma_loads.hpp"

namespace bw::gemm::sm90 {

// Schedules: CUTLASS's mainloop and epilogue schedule tags, and the mainloop collective used
// (MainloopOf: the builder's, or a project collective derived from it).
struct Cooperative {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using Epilogue = cutlass::epilogue::TmaWarpSpecializedCooperative;
  template <class Built> using MainloopOf = Built;
};
// FP8 only: the accurate mainloop with its promotion overlapped (fp8_overlapped_promotion.hpp),
// fed by the project's load(), which skips tiles wholly past M or N (tma_loads.hpp).
template <class Built, EvictFirst E>
using Fp8Overlap = TmaLoads<Fp8OverlappedPromotion<Built>, E>;
struct CooperativeFp8Overlap : Cooperative {
  template <class Built> using MainloopOf = Fp8Overlap<Built, EvictFirst::None>;
};
// Swapped kernels: CUTLASS's A (the call's weights, read once) loaded with the L2 evict-first
// hint (tma_loads.hpp).
struct CooperativeStreamedA : Cooperative {
  template <class Built> using MainloopOf = TmaLoads<Built, EvictFirst::A>;
};
// FP8 only, for grids of one row of clusters: the overlap mainloop with CUTLASS's B (the call's
// weights, read once) loaded evict-first.
struct CooperativeFp8OverlapStreamedB : Cooperative {
  template <class Built> using MainloopOf = Fp8Overlap<Built, EvictFirst::B>;
};
// FP8 only: no promotion of the wgmma accumulator (torch._scaled_mm's use_fast_accum=True).
struct CooperativeFastAccum : Cooperative {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum;
};
struct Pingpong {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using Epilogue = cutlass::epilogue::TmaWarpSpecialized;
  template <class Built> using MainloopOf = Built;
};
// FP8 only: the overlap mainloop and the project's load() on the ping-pong kernel: 64-row tiles,
// one warp group a tile, the two consumer warp groups on alternate tiles (session 36, for the
// 129-256-row calls where a 128-row tile leaves most SMs idle).
struct PingpongFp8Overlap : Pingpong {
  template <class Built> using MainloopOf = Fp8Overlap<Built, EvictFirst::None>;
};

// TileScheduler: void (persistent: CUTLASS's scheduler with the band tile order of
// tile_scheduler.hpp), TailSplitScheduler (the same, the last wave split along K; ibid.) or
// cutlass::gemm::StreamKScheduler. EpiTile: the epilogue's subtile
// (CUTLASS's EpilogueTileAuto, or a cute::Shape for an axpby or scale kernel). SwapAB: D^T =
// B^T A^T (KernelConfig::swap_ab); the tile and cluster stay in the call's terms.
template <class ElementA, class ElementB, class ElementCD, Major A, Major B, int TM, int TN, int TK,
          int CM, int CN, class Sched, class TileScheduler, Epilogue Epi, Activation Act,
          class EpiTile = cutlass::epilogue::collective::EpilogueTileAuto, bool SwapAB = false>
using Gemm = CutlassGemm<cutlass::arch::Sm90, ElementA, ElementB, ElementCD, A, B,
                         cute::Shape<cute::Int<TM>, cute::Int<TN>, cute::Int<TK>>,
                         cute::Shape<cute::Int<CM>, cute::Int<CN>, cute::_1>,
                         typename Sched::Mainloop, typename Sched::Epilogue,
                         std::conditional_t<std::is_void_v<TileScheduler>,
                                            BandedPersistentScheduler, TileScheduler>,
                         Epi, Act, 0, 0, 0, 0, Sched::template MainloopOf, EpiTile, SwapAB>;

}  // namespace bw::gemm::sm90
