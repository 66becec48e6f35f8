// sm_90a mainloop whose weight operand streams through the L2 once: its TMA loads carry the L2
// EVICT_FIRST hint (cute::TMA::CacheHintSm90), the other operand's the default.
//
// Why: some kernels read every weight byte from DRAM exactly once: the swapped decode kernels
// (KernelConfig::swap_ab), where the weights are CUTLASS's A and every tile covers all of the
// call's rows (the tail split gives each piece its own k-range), and a grid of one row of
// clusters (e.g. M <= 256 on 128x128 tiles in 2x1 clusters), where the weights are CUTLASS's B
// and each B tile is read by one cluster, multicast to its CTAs. Normal-priority loads of those
// bytes evict whatever the L2 held before, dirty lines included, whose write-back then shares
// the DRAM with the weight stream. Evict-first lines are the first victims of later loads, so a
// weight stream larger than the L2 mostly replaces its own lines. The other operand (the call's
// tokens, read by every tile) keeps the normal priority. Measurements: docs/design.md ("Small M,
// session 28", "session 29").
//
// How: a class derived from the CUTLASS collective the builder makes (or from a project
// collective derived from it, e.g. Fp8OverlappedPromotion), redefining load() only (the producer
// warp's TMA issue loop); shared storage, Params, the consumers' mma() and the pipeline are the
// base's. In a cluster, each CTA loads its slice of a tile and multicasts it to the CTAs that
// share the tile, as CUTLASS's load() does.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"

namespace bw::gemm::sm90 {

// Which of CUTLASS's operands the kernel reads once, i.e. loads evict-first.
enum class Streamed { A, B };

template <class Base, Streamed S>
struct StreamedLoads : Base {
  using Base::Base;
  using typename Base::MainloopPipeline;
  using typename Base::Params;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using ClusterShape = typename Base::DispatchPolicy::ClusterShape;

  // The producer warp's loop (the kernel calls it with one warp; one elected lane issues): for
  // each of the unit's k-tiles, wait for a free stage, then load A's and B's k-tile into it.
  // load_inputs: load_init()'s tiled views of A (BLK_M, BLK_K, m, k, l) and B (BLK_N, BLK_K, n,
  // k, l); blk_coord: the unit's (m, n, k, l) tile. An A tile is shared by the CTAs of its
  // cluster row (same m), a B tile by those of its cluster column (same n).
  template <class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(Params const& params, MainloopPipeline pipeline,
                           PipelineState write_state,
                           cute::tuple<TensorA, TensorB> const& load_inputs,
                           BlockCoord const& blk_coord, KTileIterator k_tile_iter,
                           int k_tile_count, int /*thread_idx*/, uint32_t block_rank_in_cluster,
                           TensorStorage& storage) {
    using namespace cute;
    if (!elect_one_sync()) return;
    const auto cta_id = Layout<ClusterShape>{};  // (m, n, 1) place in the cluster -> rank
    constexpr uint32_t kClusterM = size<0>(ClusterShape{});
    const uint32_t cta_m = block_rank_in_cluster % kClusterM;
    const uint32_t cta_n = block_rank_in_cluster / kClusterM;
    const auto [m, n, k, l] = blk_coord;
    auto tma_a = params.tma_load_a.get_slice(cta_n);  // A's slice: place along the cluster row
    auto tma_b = params.tma_load_b.get_slice(cta_m);
    // (TMA, TMA_M or TMA_N, TMA_K, k-tile) in global memory; (..., stage) in shared memory
    Tensor g_a = tma_a.partition_S(get<0>(load_inputs)(_, _, m, _, l));
    Tensor g_b = tma_b.partition_S(get<1>(load_inputs)(_, _, n, _, l));
    Tensor s_a = tma_a.partition_D(make_tensor(make_smem_ptr(storage.smem_A.data()), SmemLayoutA{}));
    Tensor s_b = tma_b.partition_D(make_tensor(make_smem_ptr(storage.smem_B.data()), SmemLayoutB{}));
    uint16_t mask_a = 0, mask_b = 0;  // multicast: the CTAs that receive the slice (none: 0)
    if constexpr (is_same_v<typename Base::GmemTiledCopyA, SM90_TMA_LOAD_MULTICAST>) {
      for (int i = 0; i < size<1>(cta_id); ++i) mask_a |= uint16_t(1) << cta_id(cta_m, i, Int<0>{});
    }
    if constexpr (is_same_v<typename Base::GmemTiledCopyB, SM90_TMA_LOAD_MULTICAST>) {
      for (int i = 0; i < size<0>(cta_id); ++i) mask_b |= uint16_t(1) << cta_id(i, cta_n, Int<0>{});
    }
    constexpr auto kFirst = TMA::CacheHintSm90::EVICT_FIRST;
    constexpr auto kNormal = TMA::CacheHintSm90::EVICT_NORMAL;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);
      auto* full = pipeline.producer_get_barrier(write_state);
      const int stage = write_state.index();
      copy(params.tma_load_a.with(*full, mask_a, S == Streamed::A ? kFirst : kNormal),
           g_a(_, _, _, *k_tile_iter), s_a(_, _, _, stage));
      copy(params.tma_load_b.with(*full, mask_b, S == Streamed::B ? kFirst : kNormal),
           g_b(_, _, _, *k_tile_iter), s_b(_, _, _, stage));
    }
  }
};

}  // namespace bw::gemm::sm90
