// sm_90a mainloop whose A operand streams through the L2 once: its TMA loads carry the L2
// EVICT_FIRST hint (cute::TMA::CacheHintSm90), B's the default.
//
// Why: the swapped decode kernels (KernelConfig::swap_ab; docs/design.md, "Small M, swapped")
// read CUTLASS's A, the call's weight b, exactly once: every tile of theirs covers all of the
// call's rows, so no two CTAs read the same weight bytes (the tail split gives each piece its own
// k-range). Normal-priority loads of those bytes evict whatever the L2 held before, dirty lines
// included, whose write-back then shares the DRAM with the weight stream. Evict-first lines are
// the first victims of later loads, so a weight stream larger than the L2 mostly replaces its own
// lines. B (the call's tokens, read by every tile) keeps the normal priority. The measurement is
// in docs/design.md ("Small M, session 28").
//
// How: a class derived from the CUTLASS collective the builder makes, redefining load() only
// (the producer warp's TMA issue loop); shared storage, Params, the consumers' mma() and the
// pipeline are the base's. Without a cluster only: no multicast masks to compute.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"

namespace bw::gemm::sm90 {

template <class Base>
struct StreamedA : Base {
  using Base::Base;
  using typename Base::MainloopPipeline;
  using typename Base::Params;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  static_assert(cute::size(typename Base::DispatchPolicy::ClusterShape{}) == 1,
                "StreamedA issues plain TMA loads: a cluster of one CTA");

  // The producer warp's loop (the kernel calls it with one warp; one elected lane issues): for
  // each of the unit's k-tiles, wait for a free stage, then load A's and B's k-tile into it.
  // load_inputs: load_init()'s tiled views of A (BLK_M, BLK_K, m, k, l) and B (BLK_N, BLK_K, n,
  // k, l); blk_coord: the unit's (m, n, k, l) tile.
  template <class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(Params const& params, MainloopPipeline pipeline,
                           PipelineState write_state,
                           cute::tuple<TensorA, TensorB> const& load_inputs,
                           BlockCoord const& blk_coord, KTileIterator k_tile_iter,
                           int k_tile_count, int /*thread_idx*/,
                           uint32_t /*block_rank_in_cluster*/, TensorStorage& storage) {
    using namespace cute;
    if (!elect_one_sync()) return;
    const auto [m, n, k, l] = blk_coord;
    auto tma_a = params.tma_load_a.get_slice(0);
    auto tma_b = params.tma_load_b.get_slice(0);
    // (TMA, TMA_M or TMA_N, TMA_K, k-tile) in global memory; (..., stage) in shared memory
    Tensor g_a = tma_a.partition_S(get<0>(load_inputs)(_, _, m, _, l));
    Tensor g_b = tma_b.partition_S(get<1>(load_inputs)(_, _, n, _, l));
    Tensor s_a = tma_a.partition_D(make_tensor(make_smem_ptr(storage.smem_A.data()), SmemLayoutA{}));
    Tensor s_b = tma_b.partition_D(make_tensor(make_smem_ptr(storage.smem_B.data()), SmemLayoutB{}));
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);
      auto* full = pipeline.producer_get_barrier(write_state);
      const int stage = write_state.index();
      copy(params.tma_load_a.with(*full, 0, TMA::CacheHintSm90::EVICT_FIRST),
           g_a(_, _, _, *k_tile_iter), s_a(_, _, _, stage));
      copy(params.tma_load_b.with(*full), g_b(_, _, _, *k_tile_iter), s_b(_, _, _, stage));
    }
  }
};

}  // namespace bw::gemm::sm90
