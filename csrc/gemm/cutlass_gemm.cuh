// The one CUTLASS 3.x GEMM template behind every generated kernel, for both arches.
//
// sm90 and sm100 kernels differ only in their ArchTag, schedules, tile/cluster shapes and, on
// sm100, a run-time cluster shape: all of which are template arguments here. The per-arch headers
// (sm90/gemm_sm90.cuh, sm100/gemm_sm100.cuh) add the compile-time arch guards and the schedule
// vocabulary; the generator instantiates them, one kernel per .cu file.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <utility>
#include <string>
#include <type_traits>

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

#include "gemm/epilogue.hpp"
#include "gemm/registry.hpp"
#include "gemm/types.hpp"

namespace bw::gemm {

template <Major M> struct LayoutATag;
template <> struct LayoutATag<Major::K>  { using type = cutlass::layout::RowMajor; };
template <> struct LayoutATag<Major::MN> { using type = cutlass::layout::ColumnMajor; };
// CUTLASS's LayoutB describes the (K, N) matrix: ColumnMajor is K-major.
template <Major M> struct LayoutBTag;
template <> struct LayoutBTag<Major::K>  { using type = cutlass::layout::ColumnMajor; };
template <> struct LayoutBTag<Major::MN> { using type = cutlass::layout::RowMajor; };

// A CUTLASS (row, col, batch) stride with one static unit mode, filled from (ld, batch).
template <class Stride>
Stride make_stride_from(const Operand& op) {
  using namespace cute;
  Stride s{};
  if constexpr (is_static_v<tuple_element_t<0, Stride>>) {
    get<1>(s) = op.ld;
  } else {
    get<0>(s) = op.ld;
  }
  get<2>(s) = op.batch;
  return s;
}

inline cutlass::gemm::kernel::detail::RasterOrderOptions to_cutlass(Raster r) {
  using R = cutlass::gemm::kernel::detail::RasterOrderOptions;
  switch (r) {
    case Raster::AlongM: return R::AlongM;
    case Raster::AlongN: return R::AlongN;
    default: return R::Heuristic;
  }
}

inline cutlass::gemm::kernel::detail::DecompositionMode to_cutlass(Decomposition d) {
  using D = cutlass::gemm::kernel::detail::DecompositionMode;
  switch (d) {
    case Decomposition::DataParallel: return D::DataParallel;
    case Decomposition::SplitK: return D::SplitK;
    case Decomposition::StreamK: return D::StreamK;
    default: return D::Heuristic;
  }
}

// Whether a kernel's scheduler arguments have `split_tail` (sm90::TailSplitTileScheduler's).
template <class Args, class = void>
struct HasSplitTail : std::false_type {};
template <class Args>
struct HasSplitTail<Args, std::void_t<decltype(std::declval<Args&>().scheduler.split_tail)>>
    : std::true_type {};

// The mainloop collective as CUTLASS's builder makes it (the default MainloopOf below); a schedule
// may instead name a project collective derived from it (sm90/fp8_overlapped_promotion.hpp).
template <class BuiltCollective>
using BuiltMainloop = BuiltCollective;

// TileSchedulerTag_: void (the arch's persistent scheduler), sm90::BandedPersistentScheduler (the sm90
// kernels' persistent one, gemm/sm90/tile_scheduler.hpp), sm90::TailSplitScheduler (the same with
// the last wave split along K, ibid.) or cutlass::gemm::StreamKScheduler.
template <class ArchTag_,
          class ElementA_, class ElementB_, class ElementCD_,
          Major AMajor, Major BMajor,
          class TileShape_, class ClusterShape_,
          class MainloopSchedule_, class EpilogueSchedule_, class TileSchedulerTag_,
          Epilogue Epi, Activation Act, int PreferredClusterM = 0, int PreferredClusterN = 0,
          int FallbackClusterM = 0, int FallbackClusterN = 0,
          template <class> class MainloopOf = BuiltMainloop,
          class EpilogueTile = cutlass::epilogue::collective::EpilogueTileAuto,
          bool SwapAB = false>
struct CutlassGemm {
  // SwapAB (KernelConfig::swap_ab): CUTLASS computes D^T = B^T A^T, (N, M) column-major, from
  // the call's b as its A and the call's a as its B. Every template argument but the ones built
  // below is in the call's terms; the aliases below are CUTLASS's.
  using ArchTag            = ArchTag_;
  using ElementA           = std::conditional_t<SwapAB, ElementB_, ElementA_>;  // CUTLASS's A, (M, K)
  using ElementB           = std::conditional_t<SwapAB, ElementA_, ElementB_>;  // CUTLASS's B, (K, N)
  // C source of the epilogue; void for a Scale kernel, which has none (epilogue.hpp)
  using ElementC = std::conditional_t<Epi == Epilogue::Scale, void, ElementCD_>;
  using ElementD           = ElementCD_;                       // D output
  // int8 inputs accumulate in int32 (the IGMMA/UMMA accumulator); everything else in fp32. The
  // epilogue computes in fp32, except for an int32 D, which stays exact in int32.
  static constexpr bool kIntegerMma = std::is_same_v<ElementA_, int8_t>;
  using ElementAccumulator = std::conditional_t<kIntegerMma, int32_t, float>;
  using ElementCompute     = std::conditional_t<std::is_same_v<ElementCD_, int32_t>, int32_t, float>;
  // Swapped, the call's b (K, N) is CUTLASS's A (N, K) with the same unit-stride dim (a K-major b
  // is a row-major A), and the call's a CUTLASS's B likewise.
  using LayoutA            = typename LayoutATag<SwapAB ? BMajor : AMajor>::type;
  using LayoutB            = typename LayoutBTag<SwapAB ? AMajor : BMajor>::type;
  // D is allocated row-major: CUTLASS's D^T is column-major over the same memory.
  using LayoutC = std::conditional_t<SwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
  using LayoutD            = LayoutC;
  static constexpr int AlignmentA = 16 / sizeof(ElementA);  // 16-byte TMA granularity
  static constexpr int AlignmentB = 16 / sizeof(ElementB);
  static constexpr int AlignmentCD = 16 / sizeof(ElementCD_);
  template <class S>
  using Transposed = cute::Shape<cute::remove_cvref_t<decltype(cute::get<1>(S{}))>,
                                 cute::remove_cvref_t<decltype(cute::get<0>(S{}))>,
                                 cute::remove_cvref_t<decltype(cute::get<2>(S{}))>>;
  using TileShape = std::conditional_t<SwapAB, Transposed<TileShape_>, TileShape_>;
  using ClusterShape = std::conditional_t<SwapAB, Transposed<ClusterShape_>, ClusterShape_>;
  using EpilogueSelect     = epilogue::Select<Epi, Act, ArchTag, TileShape, EpilogueSchedule_,
                                              ElementD, ElementC, ElementCompute>;
  static constexpr bool kRuntimeCluster = !cute::is_static_v<ClusterShape_>;
  // The fused trees' aux nodes are laid out for CUTLASS's automatic epilogue tile (epilogue.hpp).
  static_assert(std::is_same_v<EpilogueTile, cutlass::epilogue::collective::EpilogueTileAuto> ||
                    Epi == Epilogue::Axpby || Epi == Epilogue::Scale,
                "a fused epilogue takes the automatic epilogue tile");
  // The fused trees' bias is per column of the call's D, which swapped is a row of CUTLASS's.
  static_assert(!SwapAB || Epi == Epilogue::Axpby || Epi == Epilogue::Scale,
                "a swapped kernel has a plain epilogue (alpha, beta and the scales are scalars)");
  static_assert(!SwapAB || !kRuntimeCluster, "swapped kernels are sm90 (a static cluster)");

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      ArchTag, cutlass::arch::OpClassTensorOp,
      TileShape, ClusterShape,
      EpilogueTile,
      ElementAccumulator, ElementCompute,
      ElementC, LayoutC, AlignmentCD,
      ElementD, LayoutD, AlignmentCD,
      EpilogueSchedule_,
      typename EpilogueSelect::Operation>::CollectiveOp;

  using CollectiveMainloop = MainloopOf<typename cutlass::gemm::collective::CollectiveBuilder<
      ArchTag, cutlass::arch::OpClassTensorOp,
      ElementA, LayoutA, AlignmentA,
      ElementB, LayoutB, AlignmentB,
      ElementAccumulator,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<
          static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
      MainloopSchedule_>::CollectiveOp>;

  using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
      cute::Shape<int, int, int, int>,  // (M, N, K, L)
      CollectiveMainloop, CollectiveEpilogue,
      TileSchedulerTag_>;
  static constexpr bool kStreamK = std::is_same_v<TileSchedulerTag_, cutlass::gemm::StreamKScheduler>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

  static typename Gemm::Arguments make_arguments(const GemmArgs& g) {
    using StrideA = typename GemmKernel::StrideA;
    using StrideB = typename GemmKernel::StrideB;
    using StrideC = typename GemmKernel::StrideC;
    using StrideD = typename GemmKernel::StrideD;
    cutlass::KernelHardwareInfo hw;
    hw.device_id = g.device_id;
    hw.sm_count = g.sm_count;
    if constexpr (kRuntimeCluster) {
      hw.cluster_shape = dim3(PreferredClusterM, PreferredClusterN, 1);
      hw.cluster_shape_fallback = dim3(FallbackClusterM, FallbackClusterN, 1);
    }
    // Without C, D's own pointer stands in for C: beta is 0, so the epilogue never reads it, and
    // the TMA descriptor CUTLASS builds for C stays valid.
    const Operand& c = g.has_c ? g.c : g.d;
    // Swapped: CUTLASS's (M, N) is the call's (N, M), its A the call's b and its B the call's a;
    // D and C keep their pointers and strides (ld = the call's N, now the column stride).
    const Operand& a = SwapAB ? g.b : g.a;
    const Operand& b = SwapAB ? g.a : g.b;
    const int64_t m = SwapAB ? g.n : g.m, n = SwapAB ? g.m : g.n;
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {static_cast<int>(m), static_cast<int>(n), static_cast<int>(g.k),
         static_cast<int>(g.l)},
        {static_cast<const ElementA*>(a.ptr), make_stride_from<StrideA>(a),
         static_cast<const ElementB*>(b.ptr), make_stride_from<StrideB>(b)},
        {{},
         static_cast<const ElementC*>(c.ptr), make_stride_from<StrideC>(c),
         static_cast<ElementD*>(const_cast<void*>(g.d.ptr)), make_stride_from<StrideD>(g.d)},
        hw};
    EpilogueSelect::set_arguments(args.epilogue.thread, g);
    if constexpr (std::is_same_v<ArchTag, cutlass::arch::Sm90>) {
      Raster raster = g.sched.raster;
      if (SwapAB && raster != Raster::Heuristic) {
        raster = raster == Raster::AlongM ? Raster::AlongN : Raster::AlongM;
      }
      args.scheduler.raster_order = to_cutlass(raster);
      args.scheduler.max_swizzle_size = g.sched.swizzle;
      if constexpr (HasSplitTail<typename Gemm::Arguments>::value) {
        // the tail-split scheduler (sm90/tile_scheduler.hpp): DataParallel turns the split off
        args.scheduler.split_tail = g.sched.decomposition != Decomposition::DataParallel;
        args.scheduler.flags = static_cast<int*>(g.sched.split_flags);
        args.scheduler.flags_capacity = g.sched.split_flags_bytes;
      }
      if constexpr (kStreamK) {
        args.scheduler.decomposition_mode = to_cutlass(g.sched.decomposition);
        args.scheduler.splits = g.sched.splits;
        // Partial tiles are summed in a fixed order, so results are bitwise repeatable.
        args.scheduler.reduction_mode = cutlass::gemm::kernel::detail::ReductionMode::Deterministic;
      }
    }
    return args;
  }

  static Status can_implement(const GemmArgs& g) {
    // The lean fused tree has no X and Y nodes: it would drop them silently (the planner and
    // run_kernel_fused check epilogue_fits first; this keeps any other caller honest).
    if (std::string why = epilogue_mismatch(Epi, g); !why.empty()) {
      return Status::error("the kernel's epilogue does not fit the call: " + why);
    }
    auto args = make_arguments(g);
    cutlass::Status s = Gemm::can_implement(args);
    if (s != cutlass::Status::kSuccess) {
      return Status::error(std::string("CUTLASS can_implement: ") + cutlassGetStatusString(s));
    }
    return Status::success();
  }

  static size_t workspace_size(const GemmArgs& g) {
    return Gemm::get_workspace_size(make_arguments(g));
  }

  static Status run(const GemmArgs& g, void* workspace, void* stream, bool launch) {
    auto args = make_arguments(g);
    auto cuda_stream = static_cast<cudaStream_t>(stream);
    if (!launch) {
      // Dry run: every host step of a launch that does not touch the kernel image (which a GPU
      // of another arch cannot load): the workspace initialisation and the kernel's Params,
      // TMA descriptors included. Used to exercise sm100 kernels' host path on Hopper.
      cutlass::Status s = GemmKernel::initialize_workspace(args, workspace, cuda_stream);
      if (s != cutlass::Status::kSuccess) {
        return Status::error(std::string("CUTLASS initialize_workspace: ") +
                             cutlassGetStatusString(s));
      }
      auto params = GemmKernel::to_underlying_arguments(args, workspace);
      dim3 grid = GemmKernel::get_grid_shape(params);
      if (grid.x * grid.y * grid.z == 0) return Status::error("empty launch grid");
      return Status::success();
    }
    Gemm gemm;
    cutlass::Status s = gemm.initialize(args, workspace, cuda_stream);
    if (s != cutlass::Status::kSuccess) {
      return Status::error(std::string("CUTLASS initialize: ") + cutlassGetStatusString(s));
    }
    s = gemm.run(cuda_stream);
    if (s != cutlass::Status::kSuccess) {
      cudaError_t e = cudaGetLastError();
      return Status::error(std::string("CUTLASS run: ") + cutlassGetStatusString(s) + " (" +
                           cudaGetErrorString(e) + ")");
    }
    return Status::success();
  }

  // What every CTA of this kernel needs; the planner and the SASS report check it fits.
  static constexpr size_t kSharedStorageBytes = GemmKernel::SharedStorageSize;
  static_assert(kSharedStorageBytes <= 232448, "shared memory per CTA exceeds 227 KiB");

  static constexpr KernelOps ops() { return {&can_implement, &workspace_size, &run}; }
};

}  // namespace bw::gemm

// Used by the generated kernel files: defines the kernel's registry entry and registers it when
// the extension loads.
#define BW_REGISTER_KERNEL(ident, KernelType, ...)                                   \
  namespace bw::gemm::generated {                                                    \
  static const ::bw::gemm::KernelEntry entry_##ident{::bw::gemm::KernelConfig{__VA_ARGS__}, \
                                                     KernelType::ops()};             \
  static const ::bw::gemm::Registrar registrar_##ident{&entry_##ident};              \
  }
