// sm_90a epilogue of the project's own: CUTLASS's TMA warp-specialized epilogue, whose producer
// load warp also prefetches into the L2 the part of each tile's C that its shared memory cannot
// stage ahead.
//
// Why: the epilogue's C pipeline holds StagesC subtiles (4 on the sm90 axpby kernels, whose D
// shares C's buffers). The producer load warp fills them while the consumers run the tile's
// mainloop, but a tile of more subtiles (8 of 128x32 on 128x256 tiles) loads the rest only as
// the consumers free buffers in the epilogue itself, each a DRAM round trip the consumers wait
// for, and in a cooperative kernel the tensor cores idle through the epilogue. Prefetched to
// the L2 at the start of the tile's loads (the end of the previous tile's epilogue), those
// subtiles arrive from the L2 instead. Tiles of at most StagesC subtiles (128x128) prefetch
// nothing; calls that do not read C (beta == 0, a Scale kernel) neither.
//
// How: a class derived from the collective the epilogue builder makes, redefining load() only;
// Params, shared storage, the pipelines and the consumers' store() are the base's. It keeps its
// own references to the Params and fusion callbacks (the base's are private), which answer
// whether C is read.
#pragma once

#include <type_traits>

#include "cute/algorithm/prefetch.hpp"
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"

namespace bw::gemm::sm90 {

template <class Base>
struct PrefetchedC : Base {
  using typename Base::LoadPipeline;
  using typename Base::LoadPipelineState;
  using typename Base::Params;
  using typename Base::TensorStorage;
  static constexpr int kStagesC = Base::DispatchPolicy::StagesC;

  CUTLASS_HOST_DEVICE PrefetchedC(Params const& params, TensorStorage& shared_tensors)
      : Base(params, shared_tensors), params_(params),
        callbacks_(params.thread, shared_tensors.thread) {}

  // The base's load() (one warp; it issues the tile's C subtiles into the C pipeline), after
  // one elected lane has prefetched the tile's subtiles past the first kStagesC to the L2.
  template <class ProblemShapeMNKL, class TileShapeMNK, class TileCoordMNKL, class TiledMma>
  CUTLASS_DEVICE auto load(LoadPipeline pipeline, LoadPipelineState state,
                           ProblemShapeMNKL problem_shape_mnkl, TileShapeMNK tile_shape_mnk,
                           TileCoordMNKL tile_coord_mnkl, TiledMma tiled_mma, int thread_idx,
                           TensorStorage& shared_tensors, int subtile_idx = -1) {
    using namespace cute;
    if constexpr (!std::is_void_v<typename Base::ElementC>) {
      const bool elected = elect_one_sync();
      if (elected && subtile_idx == -1 && callbacks_.is_C_load_needed()) {
        auto [M, N, K, L] = problem_shape_mnkl;
        auto [m, n, k, l] = tile_coord_mnkl;
        Tensor g_c = local_tile(params_.tma_load_c.get_tma_tensor(make_shape(M, N, L)),
                                take<0, 2>(typename Base::CtaTileMNK{}), make_coord(m, n, l));
        // (EPI_TILE_M, EPI_TILE_N, EPI_M, EPI_N): the subtiles, in the order load() issues them
        Tensor g_epi = flat_divide(g_c, typename Base::EpilogueTile{});
        Tensor g_tma = params_.tma_load_c.get_slice(Int<0>{}).partition_S(g_epi);
        using Cta = typename Base::CtaTileMNK;
        using Epi = typename Base::EpilogueTile;
        constexpr int kEpiM = size<0>(Cta{}) / size<0>(shape(Epi{}));
        constexpr int kEpiN = size<1>(Cta{}) / size<1>(shape(Epi{}));
        CUTLASS_PRAGMA_UNROLL
        for (int i = kStagesC; i < kEpiM * kEpiN; ++i) {
          prefetch(params_.tma_load_c, g_tma(_, _, _, i % kEpiM, i / kEpiM));
        }
      }
    }
    return Base::load(pipeline, state, problem_shape_mnkl, tile_shape_mnk, tile_coord_mnkl,
                      tiled_mma, thread_idx, shared_tensors, subtile_idx);
  }

 private:
  Params const& params_;
  typename Base::FusionCallbacks callbacks_;
};

}  // namespace bw::gemm::sm90
