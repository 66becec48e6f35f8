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
  // k-tiles per straight-line group (KLoop::group): one drain per group instead of per k-tile.
  // Longer groups (12, 16) and a chain of shorter ones for the remainder made ptxas run out of
  // registers (its C7512: every wgmma serialized); so did a stagger of the two warp groups'
  // groups by half a group, which also measured slower with single k-tiles for the offset (H200,
  // 2026-11-30, docs/results/h200-session5/). 8 then single k-tiles compile clean.
  static constexpr int Group = 8;

  // The k-loop's state and steps. Member functions (CUTLASS_DEVICE: forced inline), not
  // lambdas: nvcc's inliner gave up on a large generic lambda holding a group of 8 k-tiles once
  // more group lengths were instantiated, and the outlined call put the accumulators in local
  // memory and made ptxas wait for every wgmma (seen in SASS: a CALL, STL/LDL, and one
  // WARPGROUP.DEPBAR 0 per QGMMA).
  template <class TensorA, class TensorB, class Accum>
  struct KLoop {
    MainloopPipeline& pipeline;
    PipelineState& read;
    PipelineState release_state;
    TiledMma& tiled_mma;
    TensorA& tCrA;
    TensorB& tCrB;
    Accum& accum;
    decltype(cute::make_fragment_like(std::declval<Accum&>())) part0, part1;

    template <int P> CUTLASS_DEVICE auto& part() {
      if constexpr (P % 2 == 0) return part0; else return part1;
    }

    // Issues the MMAs of the next k-tile into part P (starting from zero), as one batch.
    template <int P>
    CUTLASS_DEVICE void issue() {
      using namespace cute;
      auto& p = part<P>();
      pipeline.consumer_wait(read, pipeline.consumer_try_wait(read));
      const int stage = read.index();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(p);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), p);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(p);
      ++read;
    }

    // Adds finished part P into the fp32 sum.
    template <int P>
    CUTLASS_DEVICE void promote() {
      auto& p = part<P>();
      cute::warpgroup_fence_operand(p);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < cute::size(accum); ++i) accum(i) += p(i);
    }

    CUTLASS_DEVICE void release() {
      pipeline.consumer_release(release_state);
      ++release_state;
    }

    // N k-tiles as straight-line code: tile j runs into part j%2 while tile j-1 is promoted.
    // The group ends with warpgroup_wait<0> (one stall per group), so no accumulator is read
    // across a loop's back edge: ptxas cannot follow warpgroup_wait<1> over a back edge and
    // would serialize every wgmma instead (its warning C7514, seen with a rolled two-tile loop).
    // is_last: the group holds the mainloop's last k-tile, whose stage the base's mma_tail()
    // releases.
    template <int N, int J = 0>
    CUTLASS_DEVICE void group(bool is_last) {
      issue<J>();
      if constexpr (J > 0) {
        cute::warpgroup_wait<1>();  // tile J-1 done, tile J in flight
        promote<J - 1>();
        release();
      }
      if constexpr (J + 1 < N) {
        group<N, J + 1>(is_last);
      } else {
        cute::warpgroup_wait<0>();
        promote<N - 1>();
        if (!is_last) release();
      }
    }
  };

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

    clear(accum);
    if (k_tile_count <= 0) return;
    KLoop<decltype(tCrA), decltype(tCrB), FrgTensorC> loop{
        pipeline, smem_pipe_read, smem_pipe_read, tiled_mma, tCrA, tCrB, accum,
        make_fragment_like(accum), make_fragment_like(accum)};

    int k = k_tile_count;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k >= Group; k -= Group) loop.template group<Group>(k == Group);
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k > 0; --k) loop.template group<1>(k == 1);
    // The last k-tile's stage is released by the base's mma_tail().
  }
};

}  // namespace bw::gemm::sm90
