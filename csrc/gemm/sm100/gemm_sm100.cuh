// sm_100a (Blackwell) kernels: tcgen05 MMA (1-SM or 2-SM over a CTA pair), TMA loads multicast
// across the cluster, the accumulator in tensor memory read by a tcgen05.ld epilogue, and the
// persistent cluster-launch-control scheduler. Same epilogue definitions as sm90.
#pragma once

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "sm100 kernels must be compiled for sm_100a only (-gencode=arch=compute_100a,code=sm_100a)"
#endif

#include "gemm/cutlass_gemm.cuh"

namespace bw::gemm::sm100 {

struct OneSm {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecialized1SmSm100;
  using Epilogue = cutlass::epilogue::TmaWarpSpecialized1Sm;
};
struct TwoSm {
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecialized2SmSm100;
  using Epilogue = cutlass::epilogue::TmaWarpSpecialized2Sm;
};

// CM x CN == 0 x 0 selects a cluster shape chosen at launch: PM x PN preferred, FM x FN where
// the preferred shape does not fit (CUTLASS's preferred-cluster feature), so the kernel fills the
// GPU whatever its SM count and multicasts A and B across the cluster.
template <int CM, int CN>
using ClusterShape = std::conditional_t<CM == 0, cute::Shape<int, int, cute::_1>,
                                        cute::Shape<cute::Int<CM>, cute::Int<CN>, cute::_1>>;

template <class ElementA, class ElementB, class ElementCD, Major A, Major B, int TM, int TN, int TK,
          int CM, int CN, int PM, int PN, int FM, int FN, class Sched, class TileScheduler,
          Epilogue Epi, Activation Act>
using Gemm = CutlassGemm<cutlass::arch::Sm100, ElementA, ElementB, ElementCD, A, B,
                         cute::Shape<cute::Int<TM>, cute::Int<TN>, cute::Int<TK>>,
                         ClusterShape<CM, CN>,
                         typename Sched::Mainloop, typename Sched::Epilogue, TileScheduler, Epi,
                         Act, PM, PN, FM, FN>;

}  // namespace bw::gemm::sm100
