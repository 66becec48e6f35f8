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

#include "cutlass/gemm/kernel/tile_scheduler.hpp"
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
    // Swizzle 1: CUTLASS's grid, tile count and raster heuristic on the unpadded tile grid.
    p.initialize(blocks, cutlass::gemm::to_gemm_coord(cluster_shape), hw_info, 1,
                 arguments.raster_order);
    const bool along_n = p.raster_order_ == RasterOrder::AlongN;
    p.order = BandOrder<cutlass::FastDivmodU64>::make(
        along_n ? p.problem_tiles_m_ : p.problem_tiles_n_,   // clusters along the minor mode
        along_n ? p.problem_tiles_n_ : p.problem_tiles_m_, arguments.max_swizzle_size);
    return p;
  }

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

 private:
  // Linear index -> this CTA's tile. The index splits as CUTLASS's does: (batch, cluster, the
  // CTA's offset along the major mode inside the cluster), with the offset along the minor mode
  // taken from the CTA's place in its cluster; only the cluster -> coordinates step differs.
  CUTLASS_DEVICE WorkTileInfo work_for(uint64_t linear_idx) const {
    if (linear_idx >= params_.blocks_per_problem_) return WorkTileInfo::invalid_work_tile();
    uint64_t batch, in_batch, cluster, major_offset;
    params_.divmod_batch_(batch, in_batch, linear_idx);
    params_.divmod_cluster_shape_major_(cluster, major_offset,
                                        params_.divmod_cluster_shape_minor_.divide(in_batch));
    const auto [cta_m, cta_n, cta_l] = cute::block_id_in_cluster();
    const bool along_n = params_.raster_order_ == RasterOrder::AlongN;
    uint64_t minor, major;
    params_.order.coord(cluster, minor, major);
    const auto minor_idx = static_cast<int32_t>(minor * params_.divmod_cluster_shape_minor_.divisor +
                                                (along_n ? cta_m : cta_n));
    const auto major_idx = static_cast<int32_t>(major * params_.divmod_cluster_shape_major_.divisor +
                                                major_offset);
    return {along_n ? minor_idx : major_idx, along_n ? major_idx : minor_idx,
            static_cast<int32_t>(batch), true};
  }

  Params params_;
  uint64_t linear_idx_ = 0;
  uint64_t grid_size_ = 0;
};

}  // namespace bw::gemm::sm90

namespace cutlass::gemm::kernel::detail {

template <class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<bw::gemm::sm90::BandedPersistentScheduler, arch::Sm90, TileShape,
                             ClusterShape, SchedulerPipelineStageCount> {
  using Scheduler = bw::gemm::sm90::BandedTileScheduler;
};

}  // namespace cutlass::gemm::kernel::detail
