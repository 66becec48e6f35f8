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
// What: the MMAs go in batches, one batch per (k-tile, N chunk): a k-tile is 128 of K (the
// promotion interval of CUTLASS's default, 4 k32 MMAs), and the warp group's N extent is cut
// into kChunks chunks. Two wgmma accumulators of one chunk's size take the batches in turn.
// While batch j+1 runs into one, the warp group adds the other, holding batch j, into its chunk
// of the fp32 sum; a k-tile's stage is released once its last chunk is added. The wait is
// warpgroup_wait<1> (batch j done, j+1 still in flight), never <0> inside a group. Numerics are
// those of the default schedule: every wgmma accumulator sums 128 products of one output
// element, starting from zero, and is added to the fp32 sum once.
//
// Registers: the fp32 sum (TileN/2 per thread) plus two chunk accumulators (ChunkN/2 each)
// must fit beside the addresses in the consumers' 232, about 192 at most:
//   128x128 tile: one chunk of 128 (3 x 64 registers)
//   128x256 tile: four chunks of 64 (128 + 2 x 32); ptxas keeps a few scalars in local memory
//                 (per group and per tile, none between batches: blackwell_ops/sass.py)
// (128x192 in two chunks of 96 spilled inside the k-loop; in three of 64 it compiles clean but
// was never the fastest: 0.83-0.87x torch._scaled_mm against 128x256's 0.95-1.01x with chained
// groups, docs/results/h200-session7/probe_tiles4.txt.) Narrower MMAs read A from shared memory
// once per chunk; that cost was not measurable here: 32-column chunks (A read eight times a
// k-tile) and A from registers (RS wgmma, read once, in 32-column chunks: with 64-column ones
// the copies of A spilled) ran within 0.7% of 128x256's four chunks
// (docs/results/h200-session12/). Wider tiles amortize the epilogue over more MMAs. Measured
// on the H200 side by side: 128x256 is 8-16% faster with the fused epilogue
// (docs/results/h200-session5/probe_tiles2.txt) and, since the groups are chained
// (KLoop::group), 2-6% faster for the plain product too
// (docs/results/h200-session7/probe_tiles3.txt; csrc/gemm/heuristics.cpp).
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

  static constexpr int kTileN = cute::size<1>(typename Base::TileShape{});
  static constexpr int kTileK = cute::size<2>(typename Base::TileShape{});
  static constexpr int kChunkN = kTileN == 128 ? 128 : 64;  // see "Registers" above
  static_assert(kTileN == 128 || kTileN == 192 || kTileN == 256,
                "tiles of 128x128, 128x192 (three chunks of 64) or 128x256");
  static constexpr int kChunks = kTileN / kChunkN;
  static constexpr int kWarpGroups = cute::size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
  // The MMA of one chunk: the builder's, narrowed to ChunkN (the same warp-group layout).
  using ChunkMma = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<typename Base::ElementA, typename Base::ElementB, float,
                                 cute::Shape<cute::_64, cute::Int<kChunkN>, cute::Int<kTileK>>,
                                 cute::GMMA::Major::K, cute::GMMA::Major::K>(),
      cute::Layout<cute::Shape<cute::Int<kWarpGroups>, cute::_1, cute::_1>>{}));

  // Batches per straight-line group (KLoop::group): one drain per group instead of per batch.
  // 8 batches (8 k-tiles of one chunk) compile clean. Groups of 12 or 16, a chain of shorter
  // groups for the remainder, or a stagger of the two warp groups' groups by half a group made
  // ptxas run out of registers (its C7512: every wgmma serialized; 2026-11-30), and so did 16
  // batches (4 k-tiles) on 128x256 with chained groups (360 bytes of spills; 2026-12-01).
  static constexpr int kGroupTiles = cute::max(1, 8 / kChunks);

  // The k-loop's state and steps. Member functions (CUTLASS_DEVICE: forced inline), not
  // lambdas: nvcc's inliner gave up on a large generic lambda holding a group of 8 k-tiles once
  // more group lengths were instantiated, and the outlined call put the accumulators in local
  // memory and made ptxas wait for every wgmma (seen in SASS: a CALL, STL/LDL, and one
  // WARPGROUP.DEPBAR 0 per QGMMA).
  template <class TensorA, class TensorB, class Accum, class Part>
  struct KLoop {
    MainloopPipeline& pipeline;
    PipelineState& read;
    PipelineState release_state;
    ChunkMma& mma;
    TensorA& tCrA;  // (MMA, 1, K, PIPE)
    TensorB& tCrB;  // (MMA, kChunks, K, PIPE)
    Accum& accum;   // the fp32 sum: kChunks consecutive runs of size(Part) registers
    Part part0, part1;

    template <int P> CUTLASS_DEVICE auto& part() {
      if constexpr (P % 2 == 0) return part0; else return part1;
    }

    // Issues batch J of a group (its k-tile's chunk J % kChunks) into part J % 2, from zero.
    template <int J>
    CUTLASS_DEVICE void issue() {
      using namespace cute;
      constexpr int chunk = J % kChunks;
      auto& p = part<J>();
      // The k-tile's stage: `read` moves on after its last chunk.
      if constexpr (chunk == 0) pipeline.consumer_wait(read, pipeline.consumer_try_wait(read));
      const int stage = read.index();
      mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(p);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(mma, tCrA(_, 0, kb, stage), tCrB(_, chunk, kb, stage), p(_, 0, 0));
        mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(p);
      if constexpr (chunk == kChunks - 1) ++read;
    }

    // Adds finished batch J into its chunk of the fp32 sum.
    template <int J>
    CUTLASS_DEVICE void promote() {
      constexpr int offset = (J % kChunks) * cute::size(Part{});
      auto& p = part<J>();
      cute::warpgroup_fence_operand(p);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < cute::size(p); ++i) accum(offset + i) += p(i);
    }

    CUTLASS_DEVICE void release() {
      pipeline.consumer_release(release_state);
      ++release_state;
    }

    // N k-tiles (N * kChunks batches) as straight-line code: batch j runs into part j%2 while
    // batch j-1 is added. The group ends with warpgroup_wait<0> (one drain per group), so no
    // wgmma is in flight across a loop's back edge: ptxas cannot follow warpgroup_wait<1> over
    // a back edge and would serialize every wgmma instead (its warning C7514, seen with a rolled
    // two-tile loop). is_last: the group holds the mainloop's last k-tile, whose stage the base's
    // mma_tail() releases.
    //
    // Chained groups shorten the drain: with `defer`, a group leaves its finished last batch
    // (in part 1: a chained group has an even number of batches) unadded and its stage held;
    // the next chained group, told `pending`, adds that batch and releases the stage once its
    // own first batch is in flight. The tensor cores then idle at a group boundary only for the wait, the
    // loop and the next stage's barrier, not also for the warp group's adds. The sum sees the
    // batches in the same order, so the results are unchanged. The hand-over is behind a
    // run-time branch (the first group has nothing pending) after a warpgroup_wait<1> that
    // waits for nothing: without that wait ptxas made the branch wait for batch 0 (its C7517).
    // Peeling the first group into its own instantiation, or having it add a zeroed part 1
    // instead of branching, made ptxas serialize every wgmma and spill (C7512; 2026-12-01).
    template <int N, bool Chained, int J = 0>
    CUTLASS_DEVICE void group(bool is_last, bool pending = false, bool defer = false) {
      constexpr int kBatches = N * kChunks;
      static_assert(kBatches % 2 == 0 || !Chained, "a handed-over batch must be in part 1");
      issue<J>();
      if constexpr (J == 0 && Chained) {
        // Nothing but batch 0 is in flight; the wait tells ptxas so (its analysis does not
        // follow the previous group's wgmmas across the loop's back edge).
        cute::warpgroup_wait<1>();
        if (pending) {
          promote<kBatches - 1>();
          release();
        }
      }
      if constexpr (J > 0) {
        cute::warpgroup_wait<1>();  // batch J-1 done, batch J in flight
        promote<J - 1>();
        if constexpr ((J - 1) % kChunks == kChunks - 1) release();  // k-tile's last chunk
      }
      if constexpr (J + 1 < kBatches) {
        group<N, Chained, J + 1>(is_last, pending, defer);
      } else {
        cute::warpgroup_wait<0>();
        if (!(Chained && defer)) {
          promote<kBatches - 1>();
          if (!is_last) release();
        }
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
    Layout warp_groups = make_layout(Int<kWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    const int warp_group = __shfl_sync(0xffffffff, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    ChunkMma chunk_mma;
    auto thread_mma = chunk_mma.get_slice(warp_groups(warp_group));
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA,1,K,PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));  // (MMA,kChunks,K,PIPE)
    // One chunk's accumulator; the fp32 sum (the builder's layout: one 64xTileN atom per warp
    // group) holds the chunks in order, each as consecutive registers: a wgmma accumulator's
    // registers run along N in groups of 8 columns (value (i, j, n) is column 8n + 2 (lane % 4)
    // + i), so registers [c * size(part), (c + 1) * size(part)) are chunk c's columns.
    Tensor part = partition_fragment_C(chunk_mma, Shape<Int<size<0>(typename Base::TileShape{})>,
                                                        Int<kChunkN>>{});
    CUTE_STATIC_ASSERT_V(size<1>(tCrA) == Int<1>{});
    CUTE_STATIC_ASSERT_V(size<1>(tCrB) == Int<kChunks>{});
    CUTE_STATIC_ASSERT_V(size(part) * Int<kChunks>{} == size(accum));

    clear(accum);
    if (k_tile_count <= 0) return;
    KLoop<decltype(tCrA), decltype(tCrB), FrgTensorC, decltype(part)> loop{
        pipeline, smem_pipe_read, smem_pipe_read, chunk_mma, tCrA, tCrB, accum,
        make_fragment_like(part), make_fragment_like(part)};

    int k = k_tile_count;
    bool pending = false;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k >= kGroupTiles; k -= kGroupTiles) {
      const bool defer = k >= 2 * kGroupTiles;  // the next group is a chained one too
      loop.template group<kGroupTiles, true>(k == kGroupTiles, pending, defer);
      pending = defer;
    }
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k > 0; --k) loop.template group<1, false>(k == 1);
    // The last k-tile's stage is released by the base's mma_tail().
  }
};

}  // namespace bw::gemm::sm90
