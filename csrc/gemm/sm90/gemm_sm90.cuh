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

namespace bw::gemm::sm90 {

struct Cooperative {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using Epilogue = cutlass::epilogue::TmaWarpSpecializedCooperative;
};
struct Pingpong {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using Epilogue = cutlass::epilogue::TmaWarpSpecialized;
};

template <class ElementA, class ElementB, class ElementCD, Major A, Major B, int TM, int TN, int TK,
          int CM, int CN, class Sched, class TileScheduler, Epilogue Epi, Activation Act>
using Gemm = CutlassGemm<cutlass::arch::Sm90, ElementA, ElementB, ElementCD, A, B,
                         cute::Shape<cute::Int<TM>, cute::Int<TN>, cute::Int<TK>>,
                         cute::Shape<cute::Int<CM>, cute::Int<CN>, cute::_1>,
                         typename Sched::Mainloop, typename Sched::Epilogue, TileScheduler, Epi, Act>;

}  // namespace bw::gemm::sm90
