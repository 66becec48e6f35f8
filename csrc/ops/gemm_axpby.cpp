#include "ops/gemm_axpby.hpp"

#include <c10/util/Exception.h>

#include <sstream>

namespace bw::ops {

namespace {

bool is_supported_dtype(at::ScalarType t) {
  return t == at::kHalf || t == at::kBFloat16 || t == at::kFloat || t == at::kDouble;
}

constexpr const char* kSupported = "torch.float16, torch.bfloat16, torch.float32, torch.float64";

}  // namespace

std::string shape_str(at::IntArrayRef sizes) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? ", " : "") << sizes[i];
  s << "]";
  return s.str();
}

void check_on_device_of_a(const char* op, const char* name, const at::Tensor& t,
                          const at::Tensor& a) {
  TORCH_CHECK(t.device() == a.device(), op, name, " must be on a's device ", a.device(), ", got ",
              name, ".device = ", t.device());
}

void check_float_dtype(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK_VALUE(is_supported_dtype(t.scalar_type()), op, name, ".dtype = ",
                    dtype_str(t.scalar_type()), " is not supported; expected one of ", kSupported);
}

void check_output_shape(const char* op, const char* name, const at::Tensor& t,
                        const GemmAxpbyShape& s) {
  auto expected = s.out_sizes();
  TORCH_CHECK_VALUE(t.sizes() == at::IntArrayRef(expected), op, name,
                    " must have the output's shape ", shape_str(expected),
                    (s.batched ? " (L, M, N)" : " (M, N)"), ", got ", name, ".shape = ",
                    shape_str(t.sizes()));
}

std::string dtype_str(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kBool: return "torch.bool";
    case at::kComplexHalf: return "torch.complex32";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    case at::kFloat8_e4m3fn: return "torch.float8_e4m3fn";
    case at::kFloat8_e5m2: return "torch.float8_e5m2";
    default: return std::string("torch.") + c10::toString(t);
  }
}

GemmAxpbyShape check_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c, double beta,
                                std::optional<at::ScalarType> out_dtype) {
  return check_gemm_operands("bw.gemm_axpby: ", a, b, c, beta, out_dtype);
}

GemmAxpbyShape check_gemm_operands(const char* op, const at::Tensor& a, const at::Tensor& b,
                                   const std::optional<at::Tensor>& c, double beta,
                                   std::optional<at::ScalarType> out_dtype) {
  TORCH_CHECK_VALUE(a.dim() == 2 || a.dim() == 3, op,
                    "a must be 2-D (M, K) or 3-D (L, M, K), got a.dim() = ", a.dim(),
                    " with shape ", shape_str(a.sizes()));
  TORCH_CHECK_VALUE(b.dim() == 2 || b.dim() == 3, op,
                    "b must be 2-D (K, N) or 3-D (L, K, N), got b.dim() = ", b.dim(),
                    " with shape ", shape_str(b.sizes()));
  check_on_device_of_a(op, "b", b, a);
  if (c.has_value()) check_on_device_of_a(op, "c", *c, a);
  check_float_dtype(op, "a", a);
  TORCH_CHECK_VALUE(b.scalar_type() == a.scalar_type(), op, "b.dtype = ",
                    dtype_str(b.scalar_type()), " must equal a.dtype = ",
                    dtype_str(a.scalar_type()));
  const int64_t k = a.size(-1);
  TORCH_CHECK_VALUE(b.size(-2) == k, op, "a and b disagree on K: a.shape[-1] = ", k,
                    " but b.shape[-2] = ", b.size(-2), " (a: ", shape_str(a.sizes()),
                    ", b: ", shape_str(b.sizes()), ")");
  const bool batched = a.dim() == 3 || b.dim() == 3;
  if (a.dim() == 3 && b.dim() == 3) {
    TORCH_CHECK_VALUE(a.size(0) == b.size(0), op,
                      "a and b disagree on the batch size L: a.shape[0] = ", a.size(0),
                      " but b.shape[0] = ", b.size(0));
  }
  GemmAxpbyShape s;
  s.batched = batched;
  s.l = a.dim() == 3 ? a.size(0) : (b.dim() == 3 ? b.size(0) : 1);
  s.m = a.size(-2);
  s.n = b.size(-1);
  s.k = k;
  if (out_dtype.has_value()) {
    TORCH_CHECK_VALUE(is_supported_dtype(*out_dtype), op, "out_dtype = ", dtype_str(*out_dtype),
                      " is not supported; expected None or one of ", kSupported);
  }
  if (c.has_value()) {
    check_float_dtype(op, "c", *c);
    check_output_shape(op, "c", *c, s);
  }
  s.out_dtype = out_dtype.value_or(c.has_value() ? c->scalar_type() : a.scalar_type());
  s.reads_c = c.has_value() && beta != 0.0;
  return s;
}

bool is_degenerate(const GemmAxpbyShape& s) {
  return s.m == 0 || s.n == 0 || s.l == 0 || s.k == 0;
}

at::ScalarType acc_dtype(at::ScalarType in) { return in == at::kDouble ? at::kDouble : at::kFloat; }

namespace {
at::Tensor with_c(at::Tensor acc, const std::optional<at::Tensor>& c, double beta,
                  const GemmAxpbyShape& s) {
  if (s.reads_c) acc.add_(c->to(acc.scalar_type()), beta);
  return acc.to(s.out_dtype).contiguous();
}
}  // namespace

at::Tensor degenerate_result(const at::Tensor& a, const std::optional<at::Tensor>& c, double beta,
                             const GemmAxpbyShape& s) {
  // K == 0: the product is an empty sum, so D = beta * c (or zeros).
  auto acc = at::zeros(s.out_sizes(), a.options().dtype(acc_dtype(a.scalar_type())));
  return with_c(acc, c, beta, s);
}

at::Tensor gemm_accumulator(const at::Tensor& a, const at::Tensor& b, const GemmAxpbyShape& s) {
  const at::ScalarType in = a.scalar_type();
  const at::ScalarType acc_t = acc_dtype(in);
  // K == 0: the product is an empty sum.
  if (is_degenerate(s)) return at::zeros(s.out_sizes(), a.options().dtype(acc_t));
  if (a.is_cuda() && (in == at::kHalf || in == at::kBFloat16)) {
    if (s.batched) {
      return at::bmm(a.dim() == 3 ? a : a.expand({s.l, s.m, s.k}),
                     b.dim() == 3 ? b : b.expand({s.l, s.k, s.n}), acc_t);
    }
    return at::mm(a, b, acc_t);
  }
  return at::matmul(a.to(acc_t), b.to(acc_t)).contiguous();
}

at::Tensor gemm_axpby_composite(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c, double alpha, double beta,
                                const GemmAxpbyShape& s) {
  if (is_degenerate(s)) return degenerate_result(a, c, beta, s);
  const at::ScalarType in = a.scalar_type();
  const bool cuda16 = a.is_cuda() && (in == at::kHalf || in == at::kBFloat16);
  if (cuda16 && s.out_dtype == in && (!s.reads_c || c->scalar_type() == in)) {
    // One cuBLAS call with its own epilogue: alpha * acc + beta * C in fp32, rounded once, and C
    // not read when beta == 0 — the op's semantics, without an fp32 intermediate in memory.
    const at::Tensor self = s.reads_c ? *c : at::zeros({}, a.options()).expand(s.out_sizes());
    const double b_eff = s.reads_c ? beta : 0.0;
    at::Tensor d = s.batched ? at::baddbmm(self, a.dim() == 3 ? a : a.expand({s.l, s.m, s.k}),
                                           b.dim() == 3 ? b : b.expand({s.l, s.k, s.n}), b_eff,
                                           alpha)
                             : at::addmm(self, a, b, b_eff, alpha);
    return d.is_contiguous() ? d : d.contiguous();
  }
  at::Tensor acc = gemm_accumulator(a, b, s);
  if (alpha != 1.0) acc.mul_(alpha);
  return with_c(acc, c, beta, s);
}

}  // namespace bw::ops
