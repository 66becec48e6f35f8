// Epilogue definitions, shared by the sm90 and sm100 kernels.
//
// "What" the epilogue computes is a CUTLASS fusion operation (cutlass/epilogue/fusion/
// operations.hpp); "how" is chosen per arch by the epilogue CollectiveBuilder, which maps the
// operation to Sm90 or Sm100 callbacks. Writing the operation once here is what keeps the two
// arches from growing two copies of the same math.
#pragma once

#include "cutlass/epilogue/fusion/operations.hpp"

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

template <Epilogue E, class ElementD, class ElementC, class ElementCompute>
struct Select;

template <class ElementD, class ElementC, class ElementCompute>
struct Select<Epilogue::Axpby, ElementD, ElementC, ElementCompute> {
  using Operation = Axpby<ElementD, ElementC, ElementCompute>;

  template <class ThreadArgs>
  static void set_arguments(ThreadArgs& thread, const GemmArgs& g) {
    thread.alpha = g.alpha;
    thread.beta = g.has_c ? g.beta : 0.f;
  }
};

}  // namespace bw::gemm::epilogue
