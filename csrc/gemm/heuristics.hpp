// Planning: (problem, device arch, compiled kernels) -> one kernel, or the reason none fits.
//
// A pure host function: no CUDA, no torch, no global state, so it is unit-tested on CPU for any
// arch (tests/test_planner.py through blackwell_ops._C.plan). The rules and the measurement behind
// each are in heuristics.cpp; docs/design.md summarises them.
#pragma once

#include <string>
#include <vector>

#include "gemm/types.hpp"

namespace bw::gemm {

struct Plan {
  int index = -1;       // into the candidate list; -1: no kernel fits
  std::string reason;   // why no kernel fits (empty when index >= 0)
  SchedulerArgs sched;  // run-time scheduling for the chosen kernel
};

// device_arch: compute capability as major * 10 + minor (90 for H100/H200, 100 for B200).
Plan plan(const GemmArgs& g, int device_arch, const std::vector<const KernelConfig*>& candidates);

// The run-time scheduling (decomposition, splits, raster, swizzle) of problem g on kernel k.
SchedulerArgs schedule_for(const GemmArgs& g, const KernelConfig& k);

// The precondition a problem breaks for every kernel (dtype, size, alignment), or "" if none.
// Exposed for error messages and tests; plan() calls it first.
std::string kernel_precondition_failure(const GemmArgs& g);

}  // namespace bw::gemm
