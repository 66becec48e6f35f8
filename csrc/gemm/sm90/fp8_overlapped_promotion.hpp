// sm_90a FP8 mainloop with the promotion of the wgmma accumulator overlapped with the next MMAs.
//
// Why: Hopper's FP8 wgmma accumulates in reduced precision, so an accurate FP8 GEMM adds
// ("promotes") the wgmma accumulator into an fp32 one every 128 products of K. CUTLASS's FP8
// mainloop (MainloopSm90TmaGmmaWarpSpecializedFP8, the default FP8 schedule) has one wgmma
// accumulator, so each promotion first waits for every MMA in flight (warpgroup_wait<0>) and
// the tensor cores idle while the warp group adds. In the cooperative kernel both consumer warp
// groups read the same shared-memory stage, so they stall together and the other one does not
// fill the gap. Measured on the H200 (benchmarks/results/h200/tune_fp8/, 2026-11-30): the
// accurate 128x128x128 cooperative kernel ran 8192^3 e4m3 in 0.93-1.03 ms, against 0.77 ms for
// torch._scaled_mm and 0.82 ms for CUTLASS's FastAccum (no promotion) at 128x256x128.
//
// What: two wgmma accumulators used in turn, one k-tile (128 of K: the same promotion interval
// as CUTLASS's default of 4 k32 MMAs) each. While the MMAs of k-tile i+1 run into one, the warp
// group adds the other, holding k-tile i, into the fp32 sum, and only then releases k-tile i's
// stage. The wait is warpgroup_wait<1> (k-tile i done, i+1 still in flight), never <0> inside
// the loop. Numerics are those of the default schedule: each wgmma accumulator sums 128
// products, starting from zero, and is added to the fp32 sum once.
//
// Cost: a third accumulator-sized register set (main + 2), so it fits 64x128 per warp group
// (128x128 cooperative tiles: 3 x 64 fp32 registers), not wider tiles.
//
// How: a class derived from the CUTLASS collective the builder makes, redefining mma() only;
// everything else (shared storage, TMA loads, Params, mma_tail) is the base's. It keeps the base's
// contract: mma() releases all but the last k-tile's stage, mma_tail() the last one.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"

namespace bw::gemm::sm90 {

template <class Base>
struct Fp8OverlappedPromotion : Base {
  using Base::Base;
  using typename Base::MainloopPipeline;
  using typename Base::Params;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TiledMma;
  static_assert(Base::K_PIPE_MMAS == 1, "mma_tail of the base releases exactly one stage");
  // k-tiles per straight-line group (see mma): one full stall per group instead of per k-tile.
  static constexpr int kGroup = 8;

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read,
                          FrgTensorC& accum, int k_tile_count, int thread_idx,
                          TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "the accumulator lives in registers");
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});
    constexpr int kWarpGroups = size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
    Layout warp_groups = make_layout(Int<kWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    const int warp_group = __shfl_sync(0xffffffff, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    TiledMma tiled_mma;
    auto thread_mma = tiled_mma.get_slice(warp_groups(warp_group));
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA,M,K,PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));  // (MMA,N,K,PIPE)
    CUTE_STATIC_ASSERT_V(size<1>(tCrA) == size<1>(accum));
    CUTE_STATIC_ASSERT_V(size<1>(tCrB) == size<2>(accum));

    Tensor part0 = make_fragment_like(accum);  // the two wgmma accumulators, used in turn
    Tensor part1 = make_fragment_like(accum);
    clear(accum);
    if (k_tile_count <= 0) return;

    // Issues the MMAs of the next k-tile into `part` (starting from zero), as one batch.
    auto issue = [&](auto& part) {
      pipeline.consumer_wait(smem_pipe_read, pipeline.consumer_try_wait(smem_pipe_read));
      const int stage = smem_pipe_read.index();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), part);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(part);
      ++smem_pipe_read;
    };
    // Adds a finished wgmma accumulator into the fp32 sum.
    auto promote = [&](auto& part) {
      warpgroup_fence_operand(part);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) accum(i) += part(i);
    };
    PipelineState smem_pipe_release = smem_pipe_read;
    auto release = [&] {
      pipeline.consumer_release(smem_pipe_release);
      ++smem_pipe_release;
    };

    // k-tiles go in groups of N, straight-line code each: tile j of a group runs into part j%2
    // while tile j-1 is promoted. A group ends with warpgroup_wait<0> (one stall per group), so
    // no accumulator is read across the loop's back edge: ptxas cannot follow warpgroup_wait<1>
    // over a back edge and would serialize every wgmma instead (its warning C7514, seen with a
    // rolled two-tile loop). is_last: the group holds the mainloop's last k-tile, whose stage
    // the base's mma_tail() releases.
    auto group = [&](auto n, bool is_last) {
      constexpr int N = decltype(n)::value;
      for_each(make_int_sequence<N>{}, [&](auto j) {
        constexpr int J = decltype(j)::value;
        if constexpr (J % 2 == 0) issue(part0); else issue(part1);
        if constexpr (J > 0) {
          warpgroup_wait<1>();  // tile J-1 done, tile J in flight
          if constexpr (J % 2 == 0) promote(part1); else promote(part0);
          release();
        }
      });
      warpgroup_wait<0>();
      if constexpr ((N - 1) % 2 == 0) promote(part0); else promote(part1);
      if (!is_last) release();
    };
    int k = k_tile_count;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k >= kGroup; k -= kGroup) group(Int<kGroup>{}, k == kGroup);
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k > 0; --k) group(Int<1>{}, k == 1);
    // The last k-tile's stage is released by the base's mma_tail().
  }
};

}  // namespace bw::gemm::sm90
