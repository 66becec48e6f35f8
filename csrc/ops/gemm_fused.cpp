#include "ops/gemm_fused.hpp"

#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

namespace bw::ops {

namespace {

constexpr const char* kOp = "bw.gemm_fused: ";
Activation parse_activation(const std::string& name) {
  Activation act;
  if (gemm::parse_activation(name, &act)) return act;
  std::string names;
  for (Activation a : gemm::kActivations) {
    names += std::string(names.empty() ? "'" : ", '") + gemm::activation_name(a) + "'";
  }
  TORCH_CHECK_VALUE(false, kOp, "activation = '", name, "' is not supported; expected one of ",
                    names);
}

// p = act(p), in p's (accumulator) type.
void activate_(at::Tensor& p, Activation act) {
  switch (act) {
    case Activation::None: return;
    case Activation::Relu: at::relu_(p); return;
    case Activation::GeluTanh: at::gelu_(p, "tanh"); return;
    case Activation::GeluErf: at::gelu_(p, "none"); return;
    case Activation::Silu: at::silu_(p); return;
  }
}

}  // namespace

GemmFusedShape check_gemm_fused(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c,
                                const std::optional<at::Tensor>& bias,
                                const std::optional<at::Tensor>& x, double alpha, double beta,
                                double x_factor, const std::string& activation, bool return_y,
                                std::optional<at::ScalarType> out_dtype,
                                const std::optional<at::Tensor>& scale_a,
                                const std::optional<at::Tensor>& scale_b) {
  GemmFusedShape s;
  s.gemm = check_gemm_operands(kOp, a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  TORCH_CHECK_VALUE(s.gemm.out_dtype != at::kInt, kOp,
                    "out_dtype = torch.int32 is not supported by the fused epilogue (its "
                    "activations compute in floating point); use bw.gemm_axpby, or a float "
                    "out_dtype");
  s.act = parse_activation(activation);
  s.has_bias = bias.has_value();
  s.reads_x = x.has_value() && x_factor != 0.0;
  s.return_y = return_y;
  if (s.has_bias) {
    check_on_device_of_a(kOp, "bias", *bias, a);
    check_float_dtype(kOp, "bias", *bias);
    TORCH_CHECK_VALUE(bias->dim() == 1 && bias->size(0) == s.gemm.n, kOp, "bias must have shape [",
                      s.gemm.n, "] (N,), got bias.shape = ", shape_str(bias->sizes()));
  }
  if (x.has_value()) {
    check_on_device_of_a(kOp, "x", *x, a);
    check_float_dtype(kOp, "x", *x);
    check_output_shape(kOp, "x", *x, s.gemm);
  }
  return s;
}

std::tuple<at::Tensor, at::Tensor> gemm_fused_composite(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const GemmFusedShape& s) {
  const GemmAxpbyShape& g = s.gemm;
  at::Tensor p = gemm_accumulator(a, b, g);  // fresh: the epilogue runs in place on it
  const at::ScalarType acc_t = p.scalar_type();
  at::Tensor y = s.return_y ? p.to(g.out_dtype, /*non_blocking=*/false, /*copy=*/true)
                            : at::empty({0}, a.options().dtype(g.out_dtype));
  scale_(p, alpha, g);
  if (g.reads_c) p.add_(c->to(acc_t), beta);
  if (s.has_bias) p.add_(bias->to(acc_t));  // (N,) broadcasts over rows and batches
  activate_(p, s.act);
  if (s.reads_x) p.add_(x->to(acc_t), x_factor);
  return {p.to(g.out_dtype).contiguous(), y};
}

#ifndef BW_WITH_CUDA_KERNELS
// Built without nvcc: no kernel, always decline. (With nvcc, bw_ops_cuda.cpp defines these.)
std::optional<std::tuple<at::Tensor, at::Tensor>> gemm_fused_kernel_cuda(
    const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, const std::optional<at::Tensor>&, double, double, double,
    const GemmFusedShape&, std::string* why_not) {
  *why_not = "this build of blackwell_ops has no CUDA kernels (nvcc was not found when it was "
             "built)";
  return std::nullopt;
}

std::string explain_gemm_fused(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c,
                               const std::optional<at::Tensor>& bias,
                               const std::optional<at::Tensor>& x, double alpha, double beta,
                               double x_factor, const std::string& activation, bool return_y,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b) {
  check_gemm_fused(a, b, c, bias, x, alpha, beta, x_factor, activation, return_y, out_dtype,
                   scale_a, scale_b);
  if (!a.is_cuda()) return "composite: ATen on " + a.device().str();
  return "composite (cuBLAS + ATen epilogue): this build has no CUDA kernels";
}
#endif

std::tuple<at::Tensor, at::Tensor> gemm_fused_impl(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const std::string& activation, bool return_y,
    std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b) {
  const GemmFusedShape s = check_gemm_fused(a, b, c, bias, x, alpha, beta, x_factor, activation,
                                            return_y, out_dtype, scale_a, scale_b);
  const c10::DeviceGuard guard(a.device());
  if (a.is_cuda() && !is_degenerate(s.gemm)) {
    std::string why_not;
    auto out = gemm_fused_kernel_cuda(a, b, c, bias, x, alpha, beta, x_factor, s, &why_not);
    if (out.has_value()) return *std::move(out);
    warn_once("bw.gemm_fused: " + why_not + "; running the composite (cuBLAS GEMM, then the "
              "epilogue in ATen: correct, but not fused). Shown once per reason.");
  }
  return gemm_fused_composite(a, b, c, bias, x, alpha, beta, x_factor, s);
}

}  // namespace bw::ops
