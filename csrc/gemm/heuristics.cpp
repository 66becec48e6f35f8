#include "gemm/heuristics.hpp"

#include <cstdint>
#include <limits>
#include <sstream>

namespace bw::gemm {

namespace {

constexpr int kTmaAlignBytes = 16;  // TMA: global address and strides multiples of 16 bytes

std::string operand_alignment(const char* name, const Operand& op, int64_t contiguous_extent,
                              int64_t l, int elem_bytes) {
  const int64_t align = kTmaAlignBytes / elem_bytes;
  std::ostringstream why;
  if (reinterpret_cast<uintptr_t>(op.ptr) % kTmaAlignBytes != 0) {
    why << name << "'s data pointer is not 16-byte aligned (a storage offset or a sliced view)";
  } else if (contiguous_extent % align != 0) {
    why << name << "'s unit-stride extent " << contiguous_extent << " is not a multiple of "
        << align << " elements (16 bytes)";
  } else if (op.ld % align != 0) {
    why << name << "'s leading stride " << op.ld << " is not a multiple of " << align
        << " elements (16 bytes)";
  } else if (l > 1 && op.batch % align != 0) {
    why << name << "'s batch stride " << op.batch << " is not a multiple of " << align
        << " elements (16 bytes)";
  }
  return why.str();
}

}  // namespace

SchedulerArgs schedule_for(const GemmArgs& g, const KernelConfig& k) {
  (void)g;
  (void)k;
  return SchedulerArgs{};
}

std::string kernel_precondition_failure(const GemmArgs& g) {
  std::ostringstream why;
  if (g.ab != DType::F16 && g.ab != DType::BF16) {
    why << "no kernel takes " << dtype_name(g.ab) << " inputs (kernels take float16, bfloat16)";
    return why.str();
  }
  if (g.d_dtype != g.ab && g.d_dtype != DType::F32) {
    why << "no kernel writes " << dtype_name(g.d_dtype) << " output from " << dtype_name(g.ab)
        << " inputs (kernels write the input type or float32)";
    return why.str();
  }
  if (g.has_c && g.c_dtype != g.d_dtype) {
    why << "no kernel reads c as " << dtype_name(g.c_dtype) << " while writing "
        << dtype_name(g.d_dtype) << " (kernels read c in the output type)";
    return why.str();
  }
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (g.m > kMax || g.n > kMax || g.k > kMax || g.l > kMax) {
    why << "a size exceeds the kernels' 32-bit problem shape (M=" << g.m << ", N=" << g.n
        << ", K=" << g.k << ", L=" << g.l << ")";
    return why.str();
  }
  const int ab = dtype_bytes(g.ab), cd = dtype_bytes(g.d_dtype);
  std::string s = operand_alignment("a", g.a, g.a_major == Major::K ? g.k : g.m, g.l, ab);
  if (s.empty()) s = operand_alignment("b", g.b, g.b_major == Major::K ? g.k : g.n, g.l, ab);
  if (s.empty() && g.has_c) s = operand_alignment("c", g.c, g.n, g.l, cd);
  if (s.empty()) s = operand_alignment("out", g.d, g.n, g.l, cd);
  return s;
}

// Rules, in order. Each names the measurement or fact behind it.
//  1. Kernels are arch-specific ('a' targets): sm_90a code runs on 9.0 only, sm_100a on 10.0
//     only. Anything else takes the cuBLAS composite.
//  2. Preconditions every kernel shares (kernel_precondition_failure): TMA needs 16-byte aligned
//     addresses and strides; the problem shape is 32-bit.
//  3. Exact match on (input type, output type, A majorness, B majorness): a kernel never copies
//     or transposes an input.
//  4. sm100: M <= 128 prefers a 1-SM kernel, since a 256-row 2-SM MMA tile would be at least half
//     empty; larger M prefers 2-SM (each CTA pair shares B, halving its load per SM). Reasoned
//     from the tile shapes, not measured: no Blackwell GPU here.
//  5. Among the remaining matches, the first in table order. Each (arch, types, layout) has one
//     config per schedule: sm90 128x256x64 cooperative cluster 2x1 (on the H200, 2026-11-30:
//     0.98-1.07x the best of cuBLAS and torch.compile at 8192^3, 1.20-1.32x at shallow K, 0.5x at
//     M <= 128 — benchmarks/results/h200/); sm100 256x128x64 2-SM with a run-time 4x1 cluster and
//     128x128x64 1-SM with a run-time 1x2 cluster (both unmeasured). Small-M, stream-K and
//     ping-pong rules for sm90 come with their kernels.
Plan plan(const GemmArgs& g, int device_arch, const std::vector<const KernelConfig*>& candidates) {
  Plan p;
  std::ostringstream why;
  if (device_arch != 90 && device_arch != 100) {
    why << "no kernels for compute capability " << device_arch / 10 << "." << device_arch % 10
        << " (kernels exist for 9.0 with sm_90a and 10.0 with sm_100a)";
    p.reason = why.str();
    return p;
  }
  bool any_arch = false;
  for (const KernelConfig* k : candidates) any_arch |= (k->arch == device_arch);
  if (!any_arch) {
    why << "this build has no sm_" << device_arch << "a kernels (set BW_ARCHS to include "
        << device_arch << "a when building)";
    p.reason = why.str();
    return p;
  }
  p.reason = kernel_precondition_failure(g);
  if (!p.reason.empty()) return p;
  const bool want_1sm = device_arch == 100 && g.m <= 128;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const KernelConfig& k = *candidates[i];
    if (k.arch == device_arch && k.ab == g.ab && k.cd == g.d_dtype && k.a_major == g.a_major &&
        k.b_major == g.b_major) {
      const bool preferred = (k.schedule == Schedule::Sm100_1Sm) == want_1sm;
      if (p.index < 0 || preferred) p.index = static_cast<int>(i);
      if (preferred) break;
    }
  }
  if (p.index >= 0) {
    p.sched = schedule_for(g, *candidates[p.index]);
    return p;
  }
  why << "no compiled sm_" << device_arch << "a kernel for " << dtype_name(g.ab) << " -> "
      << dtype_name(g.d_dtype) << " with a " << major_name(g.a_major) << "-major and b "
      << major_name(g.b_major) << "-major (build with BW_KERNELS=all for every layout)";
  p.reason = why.str();
  return p;
}

}  // namespace bw::gemm
