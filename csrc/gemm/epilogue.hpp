// Epilogue definitions, shared by the sm90 and sm100 kernels.
//
// "What" the epilogue computes is written once here; "how" is chosen per arch by the epilogue
// CollectiveBuilder, which maps it onto Sm90 or Sm100 callbacks. The only per-arch piece is
// ArchDescriptors below: which CUTLASS helper resolves the shared-memory layout and copy ops of
// the auxiliary load/store nodes (they differ because sm100 reads the accumulator from tensor
// memory). Writing the trees once is what keeps the two arches from growing two copies of the
// same math.
#pragma once

#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/operations.hpp"
#include "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp"
#include "cutlass/epilogue/thread/activation.h"

#include <type_traits>

#include "gemm/types.hpp"

namespace bw::gemm::epilogue {

// alpha * scale_a * scale_b as one scalar node: CUTLASS's scalar broadcast reduces its values
// (each a host value or, when its pointer is set, a device value) by multiplication, the way its
// own FP8 fusions fold per-tensor scales. Slot 0 holds alpha, slots 1 and 2 the scales of A and
// B (1 when absent). Reading the scales on the device keeps them out of the host path: they can
// change between calls (and CUDA graph replays) without a recompile or a sync.
template <class Compute>
using ScaledAlpha =
    cutlass::epilogue::fusion::Sm90ScalarBroadcast<Compute, cute::Stride<cute::_0, cute::_0, cute::_0>, 3>;

template <class Compute, class NodeArgs>
void set_scaled_alpha(NodeArgs& node, const GemmArgs& g) {
  node.scalars[0] = static_cast<Compute>(g.alpha);
  node.scalars[1] = node.scalars[2] = Compute(1);
  if constexpr (std::is_same_v<Compute, float>) {  // an int32 epilogue takes no scales
    node.scalar_ptrs[1] = g.scale_a;
    node.scalar_ptrs[2] = g.scale_b;
  }
}

// alpha * scale_a * scale_b * acc, computed in Compute and written as Out.
template <class Out, class Compute>
using ScaledAcc = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, Out, Compute,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    ScaledAlpha<Compute>, cutlass::epilogue::fusion::Sm90AccFetch>;

// D = alpha * scale_a * scale_b * acc + beta * C, computed in Compute (fp32; int32 for an exact
// int32 D) and rounded once to ElementD. The same tree CUTLASS lowers its LinearCombination to,
// with the alpha node widened to ScaledAlpha; its root keeps the shape CUTLASS specialises
// (Compute<multiply_add>, ScalarBroadcast, SrcFetch, Z), whose is_C_load_needed() is false when
// beta == 0, so C is never read (NaN/Inf in C do not propagate), as torch.addmm documents.
template <class ElementD, class ElementC, class Compute>
struct AxpbyTree {
  static constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;
  using AlphaAcc = ScaledAcc<Compute, Compute>;
  using Root = cutlass::epilogue::fusion::Sm90EVT<
      cutlass::epilogue::fusion::Sm90Compute<cutlass::homogeneous_multiply_add, ElementD, Compute,
                                             kRound>,
      cutlass::epilogue::fusion::Sm90ScalarBroadcast<Compute>,
      cutlass::epilogue::fusion::Sm90SrcFetch<ElementC>, AlphaAcc>;

  template <class Args>
  static void set_arguments(Args& thread, const GemmArgs& g) {
    thread.op_0 = {{static_cast<Compute>(g.has_c ? g.beta : 0.f)}};  // beta (C is op_1)
    set_scaled_alpha<Compute>(thread.op_2.op_0, g);                  // alpha * scales
  }
};

// D = alpha * scale_a * scale_b * acc: AxpbyTree without C, for Epilogue::Scale kernels, which
// CUTLASS builds with a void C. With no C their epilogue's shared memory holds only D's buffers
// (the axpby kernels' C buffers, which D shares, take four subtiles), and CUTLASS issues each
// subtile's TMA store after the next subtile is written to shared memory instead of waiting for
// it (its DelayTmaStore, chosen for a void C). The planner takes one for calls without C.
template <class ElementD, class Compute>
struct ScaleTree {
  using Root = ScaledAcc<ElementD, Compute>;  // AxpbyTree's AlphaAcc, rounded once to ElementD

  template <class Args>
  static void set_arguments(Args& thread, const GemmArgs& g) {
    set_scaled_alpha<Compute>(thread.op_0, g);  // alpha * scales
  }
};

// The activation functors of the fused epilogue, from CUTLASS's epilogue/thread/activation.h.
// gelu_tanh is CUTLASS's GELU_taylor (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), the
// form torch.nn.functional.gelu(approximate="tanh") computes; gelu_erf is the exact erf form.
template <Activation A> struct ActivationFn;
template <> struct ActivationFn<Activation::None> {
  template <class T> using Fn = cutlass::epilogue::thread::Identity<T>;
};
template <> struct ActivationFn<Activation::Relu> {
  template <class T> using Fn = cutlass::epilogue::thread::ReLu<T>;
};
template <> struct ActivationFn<Activation::GeluTanh> {
  template <class T> using Fn = cutlass::epilogue::thread::GELU_taylor<T>;
};
template <> struct ActivationFn<Activation::GeluErf> {
  template <class T> using Fn = cutlass::epilogue::thread::GELU<T>;
};
template <> struct ActivationFn<Activation::Silu> {
  template <class T> using Fn = cutlass::epilogue::thread::SiLu<T>;
};

// Row-major (M, N, L) strides of C, D, X and Y; the bias is one row, shared by every batch.
using StrideRowMajor = cutlass::detail::TagToStrideC_t<cutlass::layout::RowMajor>;
using StrideBias = cute::Stride<cute::_0, cute::_1, cute::_0>;

// Per arch: the epilogue tile and the aux load/store node parameters CUTLASS derives for a given
// (mainloop tile, epilogue schedule, element types), so the tree below matches the collective the
// builder makes from the same inputs (both use EpilogueTileAuto).
template <class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementC,
          class ElementD>
struct ArchDescriptors;

template <class MmaTileShape, class EpilogueSchedule, class ElementC, class ElementD>
struct ArchDescriptors<cutlass::arch::Sm90, MmaTileShape, EpilogueSchedule, ElementC, ElementD> {
  using Epi = cutlass::epilogue::collective::detail::EpilogueDescriptor<
      MmaTileShape, cutlass::epilogue::collective::EpilogueTileAuto, ElementC, ElementD,
      EpilogueSchedule>;
  using AuxLoad = cutlass::epilogue::collective::detail::AuxLoadDescriptor<
      Epi, cutlass::layout::RowMajor, ElementD>;
  using AuxStore = cutlass::epilogue::collective::detail::AuxStoreDescriptor<
      Epi, cutlass::layout::RowMajor, ElementD>;
  using CtaTileShape = MmaTileShape;
};

template <class MmaTileShape, class EpilogueSchedule, class ElementC, class ElementD>
struct ArchDescriptors<cutlass::arch::Sm100, MmaTileShape, EpilogueSchedule, ElementC, ElementD> {
  using Epi = cutlass::epilogue::collective::detail::Sm100EpilogueDescriptor<
      cutlass::arch::OpClassTensorOp, MmaTileShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, ElementC, ElementD,
      EpilogueSchedule, StrideRowMajor, StrideRowMajor, /*IsPerColScaleSupported=*/false,
      /*IsBlockScaleSupported=*/false>;
  using AuxLoad = cutlass::epilogue::collective::detail::Sm100AuxLoadDescriptor<
      Epi, cutlass::layout::RowMajor, ElementD>;
  using AuxStore = cutlass::epilogue::collective::detail::Sm100AuxStoreDescriptor<
      Epi, cutlass::layout::RowMajor, ElementD>;
  using CtaTileShape = typename Epi::TileShape;  // a 2-SM MMA tile is two CTA tiles
};

// The fused epilogue, one tree per activation:
//   Y = acc (rounded to ElementD; stored only when its pointer is set)
//   P = alpha * scale_a * scale_b * acc + beta * C + bias   (C skipped when beta == 0, bias 0
//                                                             when absent)
//   D = act(P) + x_factor * X              (X read only when its pointer is set)
// Everything is computed in fp32 and rounded once to ElementD. X, Y and bias have D's type.
// kAux == false builds the lean tree, D = act(P) (Epilogue::FusedLean): no X and Y nodes, so
// the kernel's shared memory holds no buffers for them. Those buffers take about 49 KiB (the
// aux load's and store's stages of the epilogue tile), which on the sm90 FP8 kernels costs
// mainloop stages: 3 instead of 4 on 128x256x128, 4 instead of 6 on 128x128x128. The planner
// takes a lean kernel for calls without x and return_y; its D equals the full tree's (up to
// the sign of a zero: the full tree adds 0 * X) and takes less time (on the H200: 2-9% on
// 128x256, 7-15% on 128x128,
// docs/results/h200-session7/probe_lean.txt and probe_lean2.txt).
template <class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, Activation Act, bool kAux>
struct FusedTree {
  using Desc = ArchDescriptors<ArchTag, MmaTileShape, EpilogueSchedule, ElementC, ElementD>;
  static constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;
  using F = float;

  template <template <class> class Fn, class Out = F>
  using Compute = cutlass::epilogue::fusion::Sm90Compute<Fn, Out, F, kRound>;
  using MulAdd = Compute<cutlass::homogeneous_multiply_add>;
  using Scalar = cutlass::epilogue::fusion::Sm90ScalarBroadcast<F>;
  using Alpha = ScaledAlpha<F>;
  using Acc = cutlass::epilogue::fusion::Sm90AccFetch;

  using StoreY = cutlass::epilogue::fusion::Sm90AuxStore<
      Desc::AuxStore::Stages, typename Desc::Epi::EpilogueTile, ElementD, kRound, StrideRowMajor,
      typename Desc::AuxStore::SmemLayoutAtom, typename Desc::AuxStore::CopyOpR2S>;
  using LoadX = cutlass::epilogue::fusion::Sm90AuxLoad<
      Desc::AuxLoad::Stages, typename Desc::Epi::EpilogueTile, ElementD, StrideRowMajor,
      typename Desc::AuxLoad::SmemLayoutAtom, typename Desc::AuxLoad::CopyOpS2R>;
  using Bias = cutlass::epilogue::fusion::Sm90RowBroadcast<
      0, typename Desc::CtaTileShape, ElementD, F, StrideBias>;

  using AccY = cutlass::epilogue::fusion::Sm90EVT<StoreY, Acc>;
  using AlphaAccBias =
      cutlass::epilogue::fusion::Sm90EVT<MulAdd, Alpha, std::conditional_t<kAux, AccY, Acc>, Bias>;
  // beta * C + Z in the shape CUTLASS specialises (Compute<multiply_add>, ScalarBroadcast,
  // SrcFetch, Z): C is not loaded when beta == 0.
  using Pre = cutlass::epilogue::fusion::Sm90EVT<
      MulAdd, Scalar, cutlass::epilogue::fusion::Sm90SrcFetch<ElementC>, AlphaAccBias>;
  template <class Out>
  using Activated = cutlass::epilogue::fusion::Sm90EVT<
      Compute<ActivationFn<Act>::template Fn, Out>, Pre>;
  using Root = std::conditional_t<
      kAux,
      cutlass::epilogue::fusion::Sm90EVT<Compute<cutlass::homogeneous_multiply_add, ElementD>,
                                         Scalar, LoadX, Activated<F>>,
      Activated<ElementD>>;

  template <class Args>
  static void set_arguments(Args& thread, const GemmArgs& g) {
    // Each EVT node's arguments are op_0.. for its children, in order, then its own (empty for
    // Compute and AccFetch).
    auto set_pre = [&g](auto& pre) {                          // P
      pre.op_0 = {{g.has_c ? g.beta : 0.f}};                  //   beta (C is op_1)
      set_scaled_alpha<F>(pre.op_2.op_0, g);                  //   alpha * scales
      auto* bias = static_cast<const ElementD*>(g.has_bias ? g.bias.ptr : nullptr);
      pre.op_2.op_2 = {bias, ElementD(0), {}};                //   bias
    };
    if constexpr (kAux) {
      auto* y = static_cast<ElementD*>(const_cast<void*>(g.has_y ? g.y.ptr : nullptr));
      auto* x = static_cast<const ElementD*>(g.has_x ? g.x.ptr : nullptr);
      StrideRowMajor sy{}, sx{};
      cute::get<0>(sy) = g.y.ld;
      cute::get<2>(sy) = g.y.batch;
      cute::get<0>(sx) = g.x.ld;
      cute::get<2>(sx) = g.x.batch;
      thread.op_0 = {{g.has_x ? g.x_factor : 0.f}};           // x_factor
      thread.op_1 = {x, ElementD(0), sx};                     // X
      set_pre(thread.op_2.op_0);                              // act(P)
      thread.op_2.op_0.op_2.op_1.op_1 = {y, sy};              // acc, stored as Y
    } else {
      set_pre(thread.op_0);                                   // act(P)
    }
  }
};

// The epilogue of a kernel: the tree of its Epilogue kind (Operation, for the collective builder)
// and how a call's arguments fill it.
template <class TreeT>
struct SelectTree {
  using Tree = TreeT;
  using Operation = typename Tree::Root;

  template <class ThreadArgs>
  static void set_arguments(ThreadArgs& thread, const GemmArgs& g) {
    Tree::set_arguments(thread, g);
  }
};

template <Epilogue E, Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule,
          class ElementD, class ElementC, class ElementCompute>
struct Select;

template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::Axpby, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute> : SelectTree<AxpbyTree<ElementD, ElementC, ElementCompute>> {
  static_assert(A == Activation::None, "the axpby epilogue has no activation");
};

template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::Scale, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute> : SelectTree<ScaleTree<ElementD, ElementCompute>> {
  static_assert(A == Activation::None, "the scale epilogue has no activation");
};

// Fused and FusedLean: the fused tree with or without its X and Y nodes.
template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::Fused, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute>
    : SelectTree<FusedTree<ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC, A, true>> {};

template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::FusedLean, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute>
    : SelectTree<FusedTree<ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC, A, false>> {};

}  // namespace bw::gemm::epilogue
