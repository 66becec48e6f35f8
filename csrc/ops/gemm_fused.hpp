// gemm_fused: the extended epilogue,
//   acc = a @ b                                  (fp32 accumulation, fp64 for fp64 inputs)
//   P   = alpha * scale_a * scale_b * acc + beta * c + bias
//                                                (scales: optional one-element fp32 tensors)
//                  (bias: (N,), broadcast over rows and batches)
//   D   = act(P) + x_factor * x                   (act: none, relu, gelu_tanh, gelu_erf, silu)
//   Y   = acc rounded to D's dtype                (when return_y; else an empty (0,) tensor)
// Validation (the one authority; blackwell_ops/fused.py mirrors it for fake tensors with the same
// messages) and the ATen composite that is the CPU implementation and, until a fused CUTLASS
// kernel exists, the CUDA one. a, b, c and out_dtype follow gemm_axpby exactly (shared checks).
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <tuple>

#include "gemm/types.hpp"
#include "ops/gemm_axpby.hpp"

namespace bw::ops {

using gemm::Activation;  // the kernels' enum: one list of activations and names

struct GemmFusedShape {
  GemmAxpbyShape gemm;  // a, b, c, out_dtype as gemm_axpby validates them
  Activation act;
  bool has_bias;
  bool reads_x;  // x given and x_factor != 0
  bool return_y;
};

// Throws ValueError/RuntimeError naming the argument, its value and what was expected.
GemmFusedShape check_gemm_fused(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c,
                                const std::optional<at::Tensor>& bias,
                                const std::optional<at::Tensor>& x, double alpha, double beta,
                                double x_factor, const std::string& activation, bool return_y,
                                std::optional<at::ScalarType> out_dtype,
                                const std::optional<at::Tensor>& scale_a,
                                const std::optional<at::Tensor>& scale_b);

// The reference composite: acc from gemm_accumulator, the whole epilogue in acc's type (fp32, or
// fp64 for fp64 inputs), one rounding of D (and of Y) to out_dtype; contiguous outputs. c is not
// read when beta == 0, nor x when x_factor == 0 (NaN/Inf in them do not propagate).
std::tuple<at::Tensor, at::Tensor> gemm_fused_composite(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const GemmFusedShape& s);

// The op's implementation on every device, with the schema's arguments (registered for CPU and
// CUDA in csrc/bw_ops.cpp): validate; on CUDA offer the call to gemm_fused_kernel_cuda and, when
// it declines, warn once with its reason; then the composite.
std::tuple<at::Tensor, at::Tensor> gemm_fused_impl(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const std::string& activation, bool return_y,
    std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b);

// Where a fused CUDA kernel plugs in. Called with a validated, non-degenerate call on a CUDA
// device (current device set): runs it on a kernel and returns (D, Y) (Y empty (0,) unless
// s.return_y), or returns nothing and sets *why_not, which the one-time warning names. Defined in
// bw_ops_cuda.cpp (plan -> fused CUTLASS kernel); a build without nvcc (no BW_WITH_CUDA_KERNELS)
// gets the definition in gemm_fused.cpp, which always declines.
std::optional<std::tuple<at::Tensor, at::Tensor>> gemm_fused_kernel_cuda(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const GemmFusedShape& s, std::string* why_not);

// run_kernel_gemm_axpby (ops/gemm_axpby.hpp) for the fused-epilogue kernels: runs the compiled
// kernel `kernel_name` on a gemm_fused call, bypassing the planner; launch == false runs its host
// steps only (a dry run). Returns ("ok: ...", (D, Y) when launched) or (what failed, nothing).
// For tests and tuning; CUDA builds only.
std::tuple<std::string, std::optional<std::tuple<at::Tensor, at::Tensor>>> run_kernel_gemm_fused(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const std::string& activation, bool return_y,
    std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b, const std::string& kernel_name, bool launch,
    const gemm::SchedulerArgs* sched);

// Which path gemm_fused would take for these arguments: "kernel: <name>", "composite ...: <why>".
std::string explain_gemm_fused(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c,
                               const std::optional<at::Tensor>& bias,
                               const std::optional<at::Tensor>& x, double alpha, double beta,
                               double x_factor, const std::string& activation, bool return_y,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b);

}  // namespace bw::ops
