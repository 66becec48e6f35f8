// The op binding: the only place that defines the bw ops' schemas, and their CPU implementation.
// gemm_axpby's CUDA implementation is in bw_ops_cuda.cpp (kernels) or, in a build without nvcc,
// below; gemm_fused's implementation, for every device, is in ops/gemm_fused.cpp.
#include <torch/extension.h>
#include <torch/library.h>

#include "ops/gemm_axpby.hpp"
#include "ops/gemm_fused.hpp"

namespace bw::ops {

at::Tensor gemm_axpby_cpu(const at::Tensor& a, const at::Tensor& b,
                          const std::optional<at::Tensor>& c, double alpha, double beta,
                          std::optional<at::ScalarType> out_dtype,
                          const std::optional<at::Tensor>& scale_a,
                          const std::optional<at::Tensor>& scale_b) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  return gemm_axpby_composite(a, b, c, alpha, beta, s);
}

#ifndef BW_WITH_CUDA_KERNELS
// Built without nvcc: CUDA tensors still get a correct result, through cuBLAS via ATen.
at::Tensor gemm_axpby_cuda_without_kernels(const at::Tensor& a, const at::Tensor& b,
                                           const std::optional<at::Tensor>& c, double alpha,
                                           double beta, std::optional<at::ScalarType> out_dtype,
                                           const std::optional<at::Tensor>& scale_a,
                                           const std::optional<at::Tensor>& scale_b) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  if (!is_degenerate(s)) {
    warn_once("bw.gemm_axpby: this build of blackwell_ops has no CUDA kernels (nvcc was not "
              "found when it was built); using the cuBLAS composite");
  }
  return gemm_axpby_composite(a, b, c, alpha, beta, s);
}

std::string explain_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c, double alpha, double beta,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b) {
  check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  if (!a.is_cuda()) return "composite: ATen on " + a.device().str();
  return "composite (cuBLAS): this build has no CUDA kernels";
}

std::tuple<std::string, at::Tensor> run_kernel_gemm_axpby(
    const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&, double, double,
    std::optional<at::ScalarType>, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, const std::string& kernel_name, bool,
    const gemm::SchedulerArgs*) {
  TORCH_CHECK(false, "run_kernel: this build has no CUDA kernels (no ", kernel_name, ")");
}

std::tuple<std::string, std::optional<std::tuple<at::Tensor, at::Tensor>>> run_kernel_gemm_fused(
    const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, const std::optional<at::Tensor>&, double, double, double,
    const std::string&, bool, std::optional<at::ScalarType>, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, const std::string& kernel_name, bool,
    const gemm::SchedulerArgs*) {
  TORCH_CHECK(false, "run_kernel_fused: this build has no CUDA kernels (no ", kernel_name, ")");
}

void pin_kernel(const std::string& kernel_name) {
  TORCH_CHECK(false, "pin_kernel: this build has no CUDA kernels (no ", kernel_name, ")");
}

int64_t split_flags_nonzero(const at::Tensor&) {
  TORCH_CHECK(false, "split_flags_nonzero: this build has no CUDA kernels");
}

std::tuple<int64_t, int64_t, int64_t> captured_split_flags_state(const at::Tensor&) {
  TORCH_CHECK(false, "captured_split_flags_state: this build has no CUDA kernels");
}

std::vector<std::string> graph_node_types(int64_t) {
  TORCH_CHECK(false, "graph_node_types: this build has no CUDA kernels");
}
#endif

}  // namespace bw::ops

TORCH_LIBRARY(bw, m) {
  m.def(
      "gemm_axpby(Tensor a, Tensor b, Tensor? c=None, float alpha=1.0, float beta=0.0, "
      "ScalarType? out_dtype=None, Tensor? scale_a=None, Tensor? scale_b=None) -> Tensor");
  // D = alpha * scale_a * scale_b * (a @ b) + beta * c: see ops/gemm_axpby.hpp.
  // D = act(alpha * scale_a * scale_b * a @ b + beta * c + bias) + x_factor * x, Y = a @ b:
  // see ops/gemm_fused.hpp.
  m.def(
      "gemm_fused(Tensor a, Tensor b, Tensor? c=None, Tensor? bias=None, Tensor? x=None, "
      "float alpha=1.0, float beta=0.0, float x_factor=1.0, str activation=\"none\", "
      "bool return_y=False, ScalarType? out_dtype=None, Tensor? scale_a=None, "
      "Tensor? scale_b=None) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(bw, CPU, m) {
  m.impl("gemm_axpby", &bw::ops::gemm_axpby_cpu);
  m.impl("gemm_fused", &bw::ops::gemm_fused_impl);
}

TORCH_LIBRARY_IMPL(bw, CUDA, m) {
#ifndef BW_WITH_CUDA_KERNELS
  m.impl("gemm_axpby", &bw::ops::gemm_axpby_cuda_without_kernels);
#endif
  m.impl("gemm_fused", &bw::ops::gemm_fused_impl);  // composite until a kernel plugs in
}
