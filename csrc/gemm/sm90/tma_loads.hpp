// sm_90a mainloop load() of the project's own: the producer warp's TMA issue loop of the CUTLASS
// collective, with three changes, each measured on the H200.
//
// 1. A tile wholly outside its tensor is not loaded. The grid is a whole number of clusters, so
//    a call whose count of 128-row tiles is odd (e.g. 384 rows on 2x1 clusters) has CTAs whose A
//    tile lies wholly past M. CUTLASS's load() still issues their TMA loads, which the TMA unit
//    fills with zeros; those loads took 14-26% of the call at 384 rows (session 29,
//    docs/results/h200-session29/time_run122.txt: 384 x 4096 x 14336 58.8 -> 43.6 us,
//    384 x 14336 x 4096 61.9 -> 53.5, nothing at 256 / 512 rows). Such a CTA completes its
//    stage's barrier with the tile's bytes instead (mbarrier complete_tx), so its consumers
//    run on whatever the stage held: their rows (columns) are past M (N) and never stored, and
//    every CTA that shares the tile (same m, or same n) skips it alike, so no multicast is
//    owed. (The same for a B tile wholly past N.)
//
// 2. A tile partly past M is loaded in slabs of kSlab rows, as many as hold its rows (where A
//    is K-major and not multicast: e.g. the 2x1 clusters, whose CTAs each load their own A).
//    The call's rows fill the last tile partly whenever M is no multiple of 128, and a box
//    mostly past M was as slow as one wholly past it: on one row of 2x1 clusters, 129 rows
//    (the second CTA's tile holding one row) ran 42.5 us against 31.1 at 256, 160 rows 37.9
//    (time_run122.txt). The slabs come from a second TMA descriptor of the same tensor whose box
//    is kSlab rows (Params::tma_load_a_slab); they land where the full box would have put
//    their rows, since the 128-byte swizzle repeats every 8 rows of 128 bytes. The stage's
//    barrier is completed for the rows not loaded, as in change 1.
//
// 3. Evict-first weights, optionally: the TMA loads of the operand named carry the L2
//    EVICT_FIRST hint (cute::TMA::CacheHintSm90), the other operand's the default. Some kernels
//    read every weight byte from DRAM exactly once: the swapped decode kernels
//    (KernelConfig::swap_ab), where the weights are CUTLASS's A and every tile covers all of the
//    call's rows (the tail split gives each piece its own k-range), and a grid of one row of
//    clusters (e.g. M <= 256 on 128x128 tiles in 2x1 clusters), where the weights are CUTLASS's
//    B and each B tile is read by one cluster, multicast to its CTAs. Normal-priority loads of
//    those bytes evict whatever the L2 held before, dirty lines included, whose write-back then
//    shares the DRAM with the weight stream. Evict-first lines are the first victims of later
//    loads, so a weight stream larger than the L2 mostly replaces its own lines. The other
//    operand (the call's tokens, read by every tile) keeps the normal priority. Measurements:
//    docs/design.md ("Small M, session 28", "session 29").
//
// How: a class derived from the CUTLASS collective the builder makes (or from a project
// collective derived from it, e.g. Fp8OverlappedPromotion), redefining load(), and Params (the
// base's plus change 2's descriptor) with to_underlying_arguments() and
// prefetch_tma_descriptors(); shared storage, the consumers' mma() and the pipeline are the
// base's. In a cluster, each CTA loads its slice of a tile and multicasts it to the CTAs that
// share the tile, as CUTLASS's load() does. A is K-major (the sm90 8-bit kernels, whose wgmma
// reads 8-bit operands K-major only). (Sessions 28-29 named it StreamedLoads, streamed_loads.hpp, with change 3 only.)
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"

namespace bw::gemm::sm90 {

// Which of CUTLASS's operands the kernel reads once, i.e. loads evict-first (None: neither).
enum class EvictFirst { None, A, B };

template <class Base, EvictFirst E>
struct TmaLoads : Base {
  using Base::Base;
  using typename Base::MainloopPipeline;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using ClusterShape = typename Base::DispatchPolicy::ClusterShape;
  using ElementA = typename Base::ElementA;
  using StrideA = typename Base::StrideA;
  static constexpr int kTileM = cute::size<0>(typename Base::TileShape{});
  static constexpr int kTileK = cute::size<2>(typename Base::TileShape{});
  static_assert(!cutlass::gemm::detail::is_major<0, StrideA>(), "TmaLoads: A must be K-major");

  // Change 2: slabs of kSlab rows (two 8-row swizzle atoms: a last tile's loads then hold at
  // most 15 rows past M, in at most 8 boxes), where A's box is the CTA's own and K-major.
  static constexpr int kSlab = 16;
  static constexpr bool kSlabs =
      cute::is_same_v<typename Base::GmemTiledCopyA, cute::SM90_TMA_LOAD> && kTileM % kSlab == 0;
  using SlabLayout = decltype(cute::tile_to_shape(
      typename Base::SmemLayoutAtomA{}, cute::make_shape(cute::Int<kSlab>{}, cute::Int<kTileK>{})));
  using SlabCopy = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD{},
      cute::make_tensor(static_cast<ElementA const*>(nullptr),
                        cute::repeat_like(StrideA{}, int32_t(0)), StrideA{}),
      SlabLayout{}));

  struct Params : Base::Params {
    SlabCopy tma_load_a_slab;  // A with a box of kSlab x kTileK (unused where !kSlabs)
    int m, k, l;               // A's extents (CUTLASS's M, K, L)
  };

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const& problem_shape,
                                                  typename Base::Arguments const& args,
                                                  void* workspace) {
    using namespace cute;
    auto [M, N, K, L] = append<4>(problem_shape, 1);
    Tensor a = make_tensor(reinterpret_cast<ElementA const*>(args.ptr_A),
                           make_layout(make_shape(M, K, L), args.dA));
    return {Base::to_underlying_arguments(problem_shape, args, workspace),
            make_tma_copy(SM90_TMA_LOAD{}, a, SlabLayout{}), int(M), int(K), int(L)};
  }

  CUTLASS_DEVICE static void prefetch_tma_descriptors(Params const& params) {
    Base::prefetch_tma_descriptors(params);
    if constexpr (kSlabs) cute::prefetch_tma_descriptor(params.tma_load_a_slab.get_tma_descriptor());
  }

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
    constexpr auto kHintA = E == EvictFirst::A ? kFirst : kNormal;
    constexpr auto kHintB = E == EvictFirst::B ? kFirst : kNormal;
    // Change 1: tiles wholly past M (N); m and n count tiles, as load_inputs' modes 2 do.
    const bool skip_a = int(m) >= int(size<2>(get<0>(load_inputs)));
    const bool skip_b = int(n) >= int(size<2>(get<1>(load_inputs)));
    // Change 2: the slabs holding the tile's rows, where it is partly past M (else 0)
    const int rows = params.m - int(m) * kTileM;
    const int slabs = kSlabs && !skip_a && rows < kTileM ? (rows + kSlab - 1) / kSlab : 0;
    constexpr uint32_t kSlabBytes = Base::TmaTransactionBytesMK / (kTileM / kSlab);
    // (kSlab, kTileK, slab, k-tile) views of A's slabs in the unit's batch
    Tensor g_slabs = local_tile(params.tma_load_a_slab.get_tma_tensor(
                                    make_shape(params.m, params.k, params.l))(_, _, l),
                                make_shape(Int<kSlab>{}, Int<kTileK>{}), make_coord(_, _));
    auto tma_slab = params.tma_load_a_slab.get_slice(0);
    using Barrier = cutlass::arch::ClusterTransactionBarrier;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);
      auto* full = pipeline.producer_get_barrier(write_state);
      const int stage = write_state.index();
      if (skip_a) {
        Barrier::complete_transaction(full, block_rank_in_cluster, Base::TmaTransactionBytesMK);
      } else if (slabs > 0) {
        if constexpr (kSlabs) {
          for (int i = 0; i < slabs; ++i) {
            auto* dst = storage.smem_A.data() + (stage * kTileM + i * kSlab) * kTileK;
            copy(params.tma_load_a_slab.with(*full, 0, kHintA),
                 tma_slab.partition_S(g_slabs(_, _, int(m) * (kTileM / kSlab) + i, *k_tile_iter)),
                 tma_slab.partition_D(make_tensor(make_smem_ptr(dst), SlabLayout{})));
          }
          Barrier::complete_transaction(full, block_rank_in_cluster,
                                        Base::TmaTransactionBytesMK - slabs * kSlabBytes);
        }
      } else {
        copy(params.tma_load_a.with(*full, mask_a, kHintA), g_a(_, _, _, *k_tile_iter),
             s_a(_, _, _, stage));
      }
      if (skip_b) {
        Barrier::complete_transaction(full, block_rank_in_cluster, Base::TmaTransactionBytesNK);
      } else {
        copy(params.tma_load_b.with(*full, mask_b, kHintB), g_b(_, _, _, *k_tile_iter),
             s_b(_, _, _, stage));
      }
    }
  }
};

}  // namespace bw::gemm::sm90
