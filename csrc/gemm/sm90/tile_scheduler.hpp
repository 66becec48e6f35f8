// The sm90 kernels' persistent tile scheduler: CUTLASS's (PersistentTileSchedulerSm90: the same
// launch grid, one CTA per SM, each taking every grid-size-th tile), except for the order in which
// the tiles are taken. That is gemm/tile_order.hpp's band order, which never pads the tile grid;
// CUTLASS's swizzle pads it to multiples of swizzle x cluster and computes the padded tiles.
//
// The kernels (CUTLASS's sm90 cooperative and ping-pong GemmUniversal) reach a scheduler through
// TileSchedulerSelector<tag, arch, ...>; gemm_sm90.cuh passes the tag below for every persistent
// sm90 kernel. Everything that does not depend on the order (the types, the launch grid, the
// trivial fixup/epilogue predicates of a scheduler that never splits a tile) is CUTLASS's, from
// the base class; what does (the state and the index-to-tile map) is declared here and hides the
// base's. The base's grid computation sees no swizzle (Params::log_swizzle_size_ stays 0), so
// its launch grid and tile count are those of the unpadded grid.
#pragma once

#include "cutlass/arch/barrier.h"
#include "cutlass/gemm/kernel/tile_scheduler.hpp"
#include "cutlass/workspace.h"
#include "gemm/tile_order.hpp"

namespace bw::gemm::sm90 {

// Tile scheduler tag (what GemmUniversal takes in place of cutlass::gemm::PersistentScheduler).
struct BandedPersistentScheduler {};

class BandedTileScheduler : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90 {
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90;

 public:
  using Arguments   = Base::Arguments;      // max_swizzle_size: the band's rows (1, 2, 4, 8)
  using WorkTileInfo = Base::WorkTileInfo;
  using RasterOrder = Base::RasterOrder;

  struct Params : Base::Params {
    BandOrder<cutlass::FastDivmodU64> order;  // over clusters: minor = the raster's minor mode
  };

  template <class ProblemShapeMNKL, class TileShape, class ClusterShape>
  static Params to_underlying_arguments(ProblemShapeMNKL problem_shape_mnkl, TileShape tile_shape,
                                        ClusterShape cluster_shape,
                                        cutlass::KernelHardwareInfo const& hw_info,
                                        Arguments const& arguments, void* = nullptr,
                                        const uint32_t = 1, uint32_t = 1) {
    const dim3 blocks = get_tiled_cta_shape_mnl(problem_shape_mnkl, tile_shape, cluster_shape);
    Params p;
    init(p, blocks, cluster_shape, hw_info, arguments);
    return p;
  }

 protected:
  template <class ClusterShape>
  static void init(Params& p, dim3 blocks, ClusterShape cluster_shape,
                   cutlass::KernelHardwareInfo const& hw_info, Arguments const& arguments) {
    // Swizzle 1: CUTLASS's grid, tile count and raster heuristic on the unpadded tile grid.
    p.initialize(blocks, cutlass::gemm::to_gemm_coord(cluster_shape), hw_info, 1,
                 arguments.raster_order);
    const bool along_n = p.raster_order_ == RasterOrder::AlongN;
    p.order = BandOrder<cutlass::FastDivmodU64>::make(
        along_n ? p.problem_tiles_m_ : p.problem_tiles_n_,   // clusters along the minor mode
        along_n ? p.problem_tiles_n_ : p.problem_tiles_m_, arguments.max_swizzle_size);
  }

 public:
  CUTLASS_HOST_DEVICE BandedTileScheduler() {}

  CUTLASS_DEVICE explicit BandedTileScheduler(Params const& params) : params_(params) {
#if defined(__CUDA_ARCH__)
    // The launch grid is CUTLASS's, and so is a CTA's first index and its stride.
    linear_idx_ = params.raster_order_ == RasterOrder::AlongN
                      ? uint64_t(blockIdx.x) + uint64_t(blockIdx.y) * uint64_t(gridDim.x)
                      : uint64_t(blockIdx.x) * uint64_t(gridDim.y) + uint64_t(blockIdx.y);
    grid_size_ = uint64_t(gridDim.x) * uint64_t(gridDim.y) * uint64_t(gridDim.z);
#endif
  }

  template <class ClusterShape>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShape) { return get_current_work(); }

  CUTLASS_DEVICE WorkTileInfo get_current_work() const { return work_for(linear_idx_); }

  CUTLASS_DEVICE void advance_to_next_work(uint32_t advance_count = 1) {
    linear_idx_ += grid_size_ * uint64_t(advance_count);
  }

  CUTLASS_DEVICE bool is_last_tile(WorkTileInfo&, uint32_t advance_count = 1) const {
    return !work_for(linear_idx_ + grid_size_ * uint64_t(advance_count)).is_valid();
  }

  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo) {
    advance_to_next_work();
    return cute::make_tuple(get_current_work(), true);
  }

  template <class Pipeline, class PipelineState>
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work, Pipeline&, PipelineState) {
    return fetch_next_work(work);
  }

 protected:
  // Linear index -> this CTA's tile. The index splits as CUTLASS's does: (batch, cluster, the
  // CTA's offset along the major mode inside the cluster), with the offset along the minor mode
  // taken from the CTA's place in its cluster; only the cluster -> coordinates step differs.
  CUTLASS_DEVICE static WorkTileInfo work_for(Params const& params, uint64_t linear_idx) {
    if (linear_idx >= params.blocks_per_problem_) return WorkTileInfo::invalid_work_tile();
    uint64_t batch, in_batch, cluster, major_offset;
    params.divmod_batch_(batch, in_batch, linear_idx);
    params.divmod_cluster_shape_major_(cluster, major_offset,
                                       params.divmod_cluster_shape_minor_.divide(in_batch));
    const auto [cta_m, cta_n, cta_l] = cute::block_id_in_cluster();
    const bool along_n = params.raster_order_ == RasterOrder::AlongN;
    uint64_t minor, major;
    params.order.coord(cluster, minor, major);
    const auto minor_idx = static_cast<int32_t>(minor * params.divmod_cluster_shape_minor_.divisor +
                                                (along_n ? cta_m : cta_n));
    const auto major_idx = static_cast<int32_t>(major * params.divmod_cluster_shape_major_.divisor +
                                                major_offset);
    return {along_n ? minor_idx : major_idx, along_n ? major_idx : minor_idx,
            static_cast<int32_t>(batch), true};
  }
  CUTLASS_DEVICE WorkTileInfo work_for(uint64_t linear_idx) const {
    return work_for(params_, linear_idx);
  }

  Params params_;
  uint64_t linear_idx_ = 0;
  uint64_t grid_size_ = 0;
};

// Tile scheduler tag: the band order, with the last wave's tiles split along K (TailSplit in
// gemm/tile_order.hpp says how and why).
struct TailSplitScheduler {};

// The tail-split scheduler: BandedTileScheduler's order for the tiles of the full waves, then
// TailSplit's pieces. A work unit carries its k-tile range; CUTLASS's cooperative kernel runs
// the mainloop over get_work_k_tile_start/count(), calls fixup() with the accumulators, and runs
// the epilogue where compute_epilogue() says so (a whole tile, or a reducing piece).
// Flags: one per partial slot (TailSplit::partial_slots() per CTA of a cluster) and consumer warp
// group, raised by the slot's partial piece and, once seen, put back to zero by the reducing
// piece, so a launch leaves every flag zero. They live in a buffer the caller keeps zero between
// launches (Arguments::flags, a buffer per stream: csrc/bw_ops_cuda.cpp) where one is given and
// large enough, and the launch then needs no memset; else at the start of the workspace, zeroed
// before each launch (initialize_workspace; CUDA graph captures take this path). Measured on the
// H200 (docs/results/h200-session24/profile_run107.txt): the memset and the idle gap it adds
// took 2.8 us of a 28 us call at 16 x 4096 x 14336.
// Workspace (only for a call that splits): the flags unless given, then one fp32 tile per slot.
// A warp group's partial sum lies as 16-byte vectors, vector i of thread t at i * 128 + t, so
// every store and load of a warp is 512 contiguous bytes; the stores and loads bypass L1 (the
// data crosses SMs).
template <class TileShape, class ClusterShape>
class TailSplitTileScheduler : public BandedTileScheduler {
  using Base = BandedTileScheduler;
  static constexpr uint32_t kThreads = cutlass::NumThreadsPerWarpGroup;

 public:
  struct Arguments : Base::Arguments {
    bool split_tail = true;  // false: whole tiles only (BandedTileScheduler's schedule)
    int* flags = nullptr;    // the caller's zeroed flags (see above), flags_capacity bytes
    size_t flags_capacity = 0;
  };

  struct WorkTileInfo : Base::WorkTileInfo {
    int32_t k_begin = 0;     // the unit's k-tiles: [k_begin, k_begin + k_count)
    int32_t k_count = 0;
    int32_t slot = 0;        // partial: the CTA slot it writes; reducing: its first peer's slot
    int32_t peers = 0;       // reducing: partial sums to add, from slots slot, slot + stride, ...
                             // (stride: TailSplit::split_tiles CTA slots)
    bool partial = false;    // writes a partial sum and runs no epilogue

    CUTLASS_HOST_DEVICE static WorkTileInfo invalid_work_tile() {
      WorkTileInfo w;
      w.M_idx = w.N_idx = w.L_idx = -1;
      w.is_valid_tile = false;
      return w;
    }
  };

  struct Params : Base::Params {
    TailSplit split;
    int* flags = nullptr;       // the caller's, or the workspace's first flags_bytes(split)
    void* parts = nullptr;      // the partial tiles, in the workspace
  };

  // The split for this problem and launch grid (the same on every host path: workspace size,
  // workspace initialisation, kernel Params). The grid is the persistent one of all SMs, not
  // cut to the problem's tiles: below a wave the split fills the idle SMs (get_grid_shape).
  template <class ProblemShape>
  static TailSplit plan(ProblemShape problem_shape, cutlass::KernelHardwareInfo const& hw_info,
                        Arguments const& arguments, Base::Params& p) {
    auto shape_mnkl = cute::append<4>(problem_shape, 1);
    const dim3 blocks = get_tiled_cta_shape_mnl(shape_mnkl, TileShape{}, ClusterShape{});
    init(p, blocks, ClusterShape{}, hw_info, arguments);
    const dim3 grid = grid_of(blocks, hw_info, p, /*whole_device=*/true);
    const uint32_t grid_ctas = grid.x * grid.y * grid.z;
    const auto k_tiles = static_cast<uint32_t>(
        (cute::get<2>(shape_mnkl) + cute::size<2>(TileShape{}) - 1) / cute::size<2>(TileShape{}));
    return TailSplit::make(p.blocks_per_problem_ / kCtas, grid_ctas / kCtas, k_tiles,
                           arguments.split_tail && hw_info.sm_count > 0);
  }

  template <class ProblemShape, class ElementAccumulator>
  static size_t get_workspace_size(Arguments const& arguments, ProblemShape problem_shape,
                                   cutlass::KernelHardwareInfo const& hw_info,
                                   uint32_t mma_warp_groups, const uint32_t = 1, uint32_t = 1) {
    Base::Params p;
    const TailSplit split = plan(problem_shape, hw_info, arguments, p);
    if (!split.active()) return 0;
    (void)mma_warp_groups;  // a partial sum is the CTA's tile whatever the warp groups
    return workspace_flags_bytes(arguments, split) + size_t{split.partial_slots()} * kCtas *
                                    cute::size<0>(TileShape{}) * cute::size<1>(TileShape{}) *
                                    sizeof(ElementAccumulator);
  }

  template <class ProblemShape, class ElementAccumulator>
  static cutlass::Status initialize_workspace(Arguments const& arguments, void* workspace,
                                              cudaStream_t stream, ProblemShape problem_shape,
                                              cutlass::KernelHardwareInfo const& hw_info,
                                              uint32_t mma_warp_groups, const uint32_t = 1,
                                              uint32_t = 1,
                                              cutlass::CudaHostAdapter* adapter = nullptr) {
    Base::Params p;
    const TailSplit split = plan(problem_shape, hw_info, arguments, p);
    const size_t bytes = workspace_flags_bytes(arguments, split);
    if (bytes == 0) return cutlass::Status::kSuccess;  // no split, or the caller's flags
    (void)mma_warp_groups;
    return cutlass::zero_workspace(workspace, bytes, stream, adapter);
  }

  template <class ProblemShapeMNKL>
  static Params to_underlying_arguments(ProblemShapeMNKL problem_shape_mnkl, TileShape,
                                        ClusterShape, cutlass::KernelHardwareInfo const& hw_info,
                                        Arguments const& arguments, void* workspace = nullptr,
                                        const uint32_t = 1, uint32_t = 1) {
    Params p;
    Arguments args = arguments;
    args.split_tail = arguments.split_tail && workspace != nullptr;
    p.split = plan(problem_shape_mnkl, hw_info, args, p);
    const size_t in_workspace = workspace_flags_bytes(args, p.split);
    p.flags = in_workspace ? static_cast<int*>(workspace) : args.flags;
    p.parts = static_cast<char*>(workspace) + in_workspace;
    return p;
  }

  // The launch grid (CUTLASS's kernels ask the scheduler): the base's, cut to the problem's
  // tiles, unless the plan splits, which deals its units over the grid of all SMs it planned for.
  template <class ProblemShapeMNK, class BlockShape, class ClusterShapeT>
  static dim3 get_grid_shape(Params const& params, ProblemShapeMNK problem_shape_mnk, BlockShape,
                             ClusterShapeT, cutlass::KernelHardwareInfo hw_info,
                             Arguments = Arguments{}, bool = true) {
    auto shape_mnkl = cute::append<4>(problem_shape_mnk, cute::Int<1>{});
    const dim3 blocks = get_tiled_cta_shape_mnl(shape_mnkl, TileShape{}, ClusterShape{});
    return grid_of(blocks, hw_info, params, params.split.active());
  }

  CUTLASS_HOST_DEVICE TailSplitTileScheduler() {}

  // The state is the base's and an item counter; the rest is read from the Params when needed
  // (constants, which ptxas need not hold in registers across the mainloop).
  CUTLASS_DEVICE explicit TailSplitTileScheduler(Params const& params)
      : Base(params), split_(params.split) {}

  template <class ClusterShapeT>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShapeT) { return get_current_work(); }
  CUTLASS_DEVICE WorkTileInfo get_current_work() const { return work(item_); }
  CUTLASS_DEVICE void advance_to_next_work(uint32_t advance_count = 1) { item_ += advance_count; }
  CUTLASS_DEVICE bool is_last_tile(WorkTileInfo&, uint32_t advance_count = 1) const {
    return !work(item_ + advance_count).is_valid();
  }
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo) {
    advance_to_next_work();
    return cute::make_tuple(get_current_work(), true);
  }
  template <class Pipeline, class PipelineState>
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work, Pipeline&, PipelineState) {
    return fetch_next_work(work);
  }

  template <class ProblemShape, class TileShapeT>
  CUTLASS_HOST_DEVICE static int get_work_k_tile_count(WorkTileInfo const& w, ProblemShape,
                                                       TileShapeT) {
    return w.k_count;
  }
  CUTLASS_HOST_DEVICE static uint32_t get_work_k_tile_start(WorkTileInfo const& w) {
    return static_cast<uint32_t>(w.k_begin);
  }
  CUTLASS_HOST_DEVICE static bool compute_epilogue(WorkTileInfo const& w, Params const&) {
    return !w.partial;
  }
  CUTLASS_HOST_DEVICE static bool compute_epilogue(WorkTileInfo const& w) { return !w.partial; }

  // After the unit's mainloop, in each consumer warp group (barrier_idx: which one). A partial
  // piece stores its sums and raises its flag; a reducing piece waits for each peer's flag and
  // adds its sums, in slot order (so the result is the same on every run); anything else is a
  // whole tile and returns at once.
  template <class FrgTensorC>
  CUTLASS_DEVICE static void fixup(Params const& params, WorkTileInfo const& w, FrgTensorC& accum,
                                   uint32_t num_barriers, uint32_t barrier_idx) {
    using T = typename FrgTensorC::value_type;
    static_assert(sizeof(T) == 4, "fp32 or int32 accumulators");
    constexpr int kVectors = cute::size(FrgTensorC{}) / 4;
    static_assert(cute::size(FrgTensorC{}) % 4 == 0, "whole 16-byte vectors");
    if (!w.partial && w.peers == 0) return;
    CUTLASS_ASSERT(num_barriers <= kMaxWarpGroups);
    const uint32_t thread = threadIdx.x % kThreads;
    int* flags = params.flags;
    uint4* parts = static_cast<uint4*>(params.parts);
    auto region = [&](uint32_t slot) {
      return parts + (size_t{slot} * num_barriers + barrier_idx) * kVectors * kThreads + thread;
    };
    auto flag = [&](uint32_t slot) { return flags + slot * kMaxWarpGroups + barrier_idx; };
    union Vec { uint4 raw; T v[4]; };
    if (w.partial) {
      uint4* out = region(static_cast<uint32_t>(w.slot));
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVectors; ++i) {
        Vec x;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < 4; ++j) x.v[j] = accum(4 * i + j);
        __stcg(out + i * kThreads, x.raw);
      }
      warp_group_sync(barrier_idx);
      if (thread == 0) {
        asm volatile("fence.acq_rel.gpu;\n\tred.relaxed.gpu.global.add.s32 [%0], 1;\n"
                     :: "l"(flag(static_cast<uint32_t>(w.slot))) : "memory");
      }
      return;
    }
    for (int p = 0; p < w.peers; ++p) {
      const uint32_t slot = static_cast<uint32_t>(w.slot) + p * params.split.split_tiles * kCtas;
      if (thread == 0) {
        int ready = 0;
        do {
          asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n"
                       : "=r"(ready) : "l"(flag(slot)) : "memory");
        } while (ready == 0);
        // Back to zero for the next launch: the slot's one raise has been seen, and the next
        // launch that reads the flag comes after this kernel (stream order).
        asm volatile("st.relaxed.gpu.global.b32 [%0], 0;\n" :: "l"(flag(slot)) : "memory");
      }
      warp_group_sync(barrier_idx);
      const uint4* in = region(slot);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kVectors; ++i) {
        Vec x;
        x.raw = __ldcg(in + i * kThreads);
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < 4; ++j) accum(4 * i + j) += x.v[j];
      }
    }
  }

 private:
  static constexpr uint32_t kMaxWarpGroups = 2;  // the reserved stream-K named barriers: 2

  // CUTLASS's persistent grid for the unswizzled tile grid `blocks` in p's raster order; all of
  // the device's SMs (in clusters) with whole_device, else no more CTAs than tiles.
  static dim3 grid_of(dim3 blocks, cutlass::KernelHardwareInfo const& hw_info,
                      Base::Params const& p, bool whole_device) {
    return Base::Params::get_grid_shape(
        blocks, cutlass::gemm::to_gemm_coord(ClusterShape{}), hw_info, 1,
        p.raster_order_ == RasterOrder::AlongN ? RasterOrderOptions::AlongN
                                               : RasterOrderOptions::AlongM,
        /*truncate_by_problem_size=*/!whole_device);
  }

  static size_t flags_bytes(TailSplit const& split) {
    const size_t bytes = size_t{split.partial_slots()} * kCtas * kMaxWarpGroups * sizeof(int);
    return (bytes + 127) / 128 * 128;
  }

  // The flags' bytes at the start of the workspace: none without a split or where the caller's
  // buffer holds them.
  static size_t workspace_flags_bytes(Arguments const& arguments, TailSplit const& split) {
    if (!split.active()) return 0;
    const size_t bytes = flags_bytes(split);
    return arguments.flags != nullptr && bytes <= arguments.flags_capacity ? 0 : bytes;
  }

  // The 128 threads of consumer warp group `idx` (CUTLASS reserves two named barriers for this).
  CUTLASS_DEVICE static void warp_group_sync(uint32_t idx) {
    cutlass::arch::NamedBarrier::sync(
        kThreads, static_cast<cutlass::arch::ReservedNamedBarriers>(
                      static_cast<uint32_t>(cutlass::arch::ReservedNamedBarriers::StreamkBarrier0) + idx));
  }

  // The item-th unit of this CTA: whole tiles (every grid-th cluster tile from its cluster's
  // first, as BandedTileScheduler takes them), then its cluster's units of the split tiles
  // (TailSplit::piece). Nothing is split where the launch grid is not the one the host planned
  // for.
  CUTLASS_DEVICE WorkTileInfo work(uint64_t item) const {
    WorkTileInfo w;
    const uint64_t linear = linear_idx_ + item * grid_size_;
    const bool split = split_.active() && grid_size_ == uint64_t{split_.clusters} * kCtas;
    if (!split || linear / kCtas < split_.whole) {
      static_cast<Base::WorkTileInfo&>(w) = work_for(linear);
      w.k_count = static_cast<int32_t>(split_.k_tiles);
      return w;
    }
    const uint64_t cluster = linear_idx_ / kCtas, rank = linear_idx_ % kCtas;
    const TailSplit::Piece piece = split_.piece(cluster, item - split_.whole_waves);
    if (!piece.valid) return WorkTileInfo::invalid_work_tile();
    static_cast<Base::WorkTileInfo&>(w) = work_for(piece.tile * kCtas + rank);
    w.k_begin = static_cast<int32_t>(piece.k_begin);
    w.k_count = static_cast<int32_t>(piece.k_end - piece.k_begin);
    w.partial = piece.partial;
    w.peers = static_cast<int32_t>(piece.peers);
    w.slot = static_cast<int32_t>(piece.slot * kCtas + rank);
    return w;
  }

  static constexpr uint32_t kCtas = cute::size(ClusterShape{});  // CTAs in a cluster
  TailSplit split_;
  uint64_t item_ = 0;
};

}  // namespace bw::gemm::sm90

namespace cutlass::gemm::kernel::detail {

template <class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<bw::gemm::sm90::BandedPersistentScheduler, arch::Sm90, TileShape,
                             ClusterShape, SchedulerPipelineStageCount> {
  using Scheduler = bw::gemm::sm90::BandedTileScheduler;
};

template <class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<bw::gemm::sm90::TailSplitScheduler, arch::Sm90, TileShape,
                             ClusterShape, SchedulerPipelineStageCount> {
  using Scheduler = bw::gemm::sm90::TailSplitTileScheduler<TileShape, ClusterShape>;
};

}  // namespace cutlass::gemm::kernel::detail
