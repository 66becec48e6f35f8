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

#include "gemm/types.hpp"

namespace bw::gemm::epilogue {

// D = alpha * acc + beta * C, computed in ElementCompute and rounded once to ElementD.
// CUTLASS lowers LinearCombination to the tree
//   Sm90EVT<Compute<multiply_add>, ScalarBroadcast(beta), SrcFetch(C),
//           Sm90EVT<Compute<multiplies>, ScalarBroadcast(alpha), AccFetch>>
// and that exact shape is the one whose is_C_load_needed() returns false when beta == 0, so C is
// never read (NaN/Inf in C do not propagate) — the semantics torch.addmm documents.
template <class ElementD, class ElementC, class ElementCompute>
using Axpby = cutlass::epilogue::fusion::LinearCombination<ElementD, ElementCompute, ElementC,
                                                           ElementCompute>;

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
//   P = alpha * acc + beta * C + bias      (C skipped when beta == 0, bias 0 when absent)
//   D = act(P) + x_factor * X              (X read only when its pointer is set)
// Everything is computed in fp32 and rounded once to ElementD. X, Y and bias have D's type.
template <class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, Activation Act>
struct FusedTree {
  using Desc = ArchDescriptors<ArchTag, MmaTileShape, EpilogueSchedule, ElementC, ElementD>;
  static constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;
  using F = float;

  template <template <class> class Fn, class Out = F>
  using Compute = cutlass::epilogue::fusion::Sm90Compute<Fn, Out, F, kRound>;
  using MulAdd = Compute<cutlass::homogeneous_multiply_add>;
  using Scalar = cutlass::epilogue::fusion::Sm90ScalarBroadcast<F>;

  using StoreY = cutlass::epilogue::fusion::Sm90AuxStore<
      Desc::AuxStore::Stages, typename Desc::Epi::EpilogueTile, ElementD, kRound, StrideRowMajor,
      typename Desc::AuxStore::SmemLayoutAtom, typename Desc::AuxStore::CopyOpR2S>;
  using LoadX = cutlass::epilogue::fusion::Sm90AuxLoad<
      Desc::AuxLoad::Stages, typename Desc::Epi::EpilogueTile, ElementD, StrideRowMajor,
      typename Desc::AuxLoad::SmemLayoutAtom, typename Desc::AuxLoad::CopyOpS2R>;
  using Bias = cutlass::epilogue::fusion::Sm90RowBroadcast<
      0, typename Desc::CtaTileShape, ElementD, F, StrideBias>;

  using AccY = cutlass::epilogue::fusion::Sm90EVT<StoreY, cutlass::epilogue::fusion::Sm90AccFetch>;
  using AlphaAccBias = cutlass::epilogue::fusion::Sm90EVT<MulAdd, Scalar, AccY, Bias>;
  // beta * C + Z in the shape CUTLASS specialises (Compute<multiply_add>, ScalarBroadcast,
  // SrcFetch, Z): C is not loaded when beta == 0.
  using Pre = cutlass::epilogue::fusion::Sm90EVT<
      MulAdd, Scalar, cutlass::epilogue::fusion::Sm90SrcFetch<ElementC>, AlphaAccBias>;
  using Activated = cutlass::epilogue::fusion::Sm90EVT<
      Compute<ActivationFn<Act>::template Fn>, Pre>;
  using Root = cutlass::epilogue::fusion::Sm90EVT<
      Compute<cutlass::homogeneous_multiply_add, ElementD>, Scalar, LoadX, Activated>;

  template <class Args>
  static void set_arguments(Args& thread, const GemmArgs& g) {
    [[maybe_unused]] auto* y = static_cast<ElementD*>(const_cast<void*>(g.has_y ? g.y.ptr : nullptr));
    [[maybe_unused]] auto* x = static_cast<const ElementD*>(g.has_x ? g.x.ptr : nullptr);
    [[maybe_unused]] auto* bias = static_cast<const ElementD*>(g.has_bias ? g.bias.ptr : nullptr);
    StrideRowMajor sy{}, sx{};
    cute::get<0>(sy) = g.y.ld;
    cute::get<2>(sy) = g.y.batch;
    cute::get<0>(sx) = g.x.ld;
    cute::get<2>(sx) = g.x.batch;
    // Each EVT node's arguments are op_0.. for its children, in order, then its own (empty for
    // Compute and AccFetch).
    thread.op_0 = {{g.has_x ? g.x_factor : 0.f}};             // x_factor
    thread.op_1 = {x, ElementD(0), sx};                       // X
    auto& pre = thread.op_2.op_0;                             // act(P): P
    pre.op_0 = {{g.has_c ? g.beta : 0.f}};                    //   beta (C is op_1)
    auto& alpha_acc_bias = pre.op_2;
    alpha_acc_bias.op_0 = {{g.alpha}};                        //   alpha
    alpha_acc_bias.op_1.op_1 = {y, sy};                       //   acc, stored as Y
    alpha_acc_bias.op_2 = {bias, ElementD(0), {}};            //   bias
  }
};

template <Epilogue E, Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule,
          class ElementD, class ElementC, class ElementCompute>
struct Select;

template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::Axpby, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute> {
  static_assert(A == Activation::None, "the axpby epilogue has no activation");
  using Operation = Axpby<ElementD, ElementC, ElementCompute>;

  template <class ThreadArgs>
  static void set_arguments(ThreadArgs& thread, const GemmArgs& g) {
    thread.alpha = g.alpha;
    thread.beta = g.has_c ? g.beta : 0.f;
  }
};

template <Activation A, class ArchTag, class MmaTileShape, class EpilogueSchedule, class ElementD,
          class ElementC, class ElementCompute>
struct Select<Epilogue::Fused, A, ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC,
              ElementCompute> {
  using Tree = FusedTree<ArchTag, MmaTileShape, EpilogueSchedule, ElementD, ElementC, A>;
  using Operation = typename Tree::Root;

  template <class ThreadArgs>
  static void set_arguments(ThreadArgs& thread, const GemmArgs& g) {
    Tree::set_arguments(thread, g);
  }
};

}  // namespace bw::gemm::epilogue
