// The kernels compiled into this build, and the table of every kernel the generator knows.
//
// Each generated kernel file (csrc/gemm/generated/*.cu) registers itself at load time through a
// static Registrar, so the compiled set is exactly the files the build compiled: there is no
// second list to keep in sync. kernel_table() is the generator's full table (all presets), used
// by the planner's unit tests and by `python -m blackwell_ops.info`.
#pragma once

#include <vector>

#include "gemm/types.hpp"

namespace bw::gemm {

// Host entry points of one compiled kernel. `stream` is a cudaStream_t.
struct KernelOps {
  Status (*can_implement)(const GemmArgs&);
  size_t (*workspace_size)(const GemmArgs&);
  // Builds the kernel arguments (TMA descriptors included) in `workspace`-backed params and,
  // when `launch` is true, enqueues the kernel on `stream`. launch == false is the dry run used
  // to exercise a kernel's host path on a GPU that cannot run it.
  Status (*run)(const GemmArgs&, void* workspace, void* stream, bool launch);
};

struct KernelEntry {
  KernelConfig config;
  KernelOps ops;
};

// Compiled kernels, in registration order sorted by name (deterministic).
const std::vector<const KernelEntry*>& compiled_kernels();

// Every kernel configuration tools/generate_kernels.py defines, compiled or not.
const std::vector<KernelConfig>& kernel_table();

struct Registrar {
  explicit Registrar(const KernelEntry* entry);
};

}  // namespace bw::gemm
