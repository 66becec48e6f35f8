#include "ops/gemm_axpby.hpp"

#include <c10/util/Exception.h>

#include <cmath>
#include <sstream>

namespace bw::ops {

namespace {

bool is_supported_dtype(at::ScalarType t) {
  return t == at::kHalf || t == at::kBFloat16 || t == at::kFloat || t == at::kDouble;
}

bool is_input_dtype(at::ScalarType t) {
  return is_supported_dtype(t) || is_float8(t) || t == at::kChar;
}

constexpr const char* kSupported = "torch.float16, torch.bfloat16, torch.float32, torch.float64";
constexpr const char* kInputs =
    "torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn, "
    "torch.float8_e5m2, torch.int8";

void check_scale(const char* op, const char* name, const std::optional<at::Tensor>& t,
                 const at::Tensor& a) {
  if (!t.has_value()) return;
  check_on_device_of_a(op, name, *t, a);
  TORCH_CHECK_VALUE(t->scalar_type() == at::kFloat && t->numel() == 1, op, name,
                    " must be a float32 tensor with one element (a per-tensor scale), got ", name,
                    ".dtype = ", dtype_str(t->scalar_type()), " with shape ",
                    shape_str(t->sizes()));
}

}  // namespace

bool is_float8(at::ScalarType t) { return t == at::kFloat8_e4m3fn || t == at::kFloat8_e5m2; }

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
                                const std::optional<at::Tensor>& c, double alpha, double beta,
                                std::optional<at::ScalarType> out_dtype,
                                const std::optional<at::Tensor>& scale_a,
                                const std::optional<at::Tensor>& scale_b) {
  return check_gemm_operands("bw.gemm_axpby: ", a, b, c, alpha, beta, out_dtype, scale_a,
                             scale_b);
}

GemmAxpbyShape check_gemm_operands(const char* op, const at::Tensor& a, const at::Tensor& b,
                                   const std::optional<at::Tensor>& c, double alpha, double beta,
                                   std::optional<at::ScalarType> out_dtype,
                                   const std::optional<at::Tensor>& scale_a,
                                   const std::optional<at::Tensor>& scale_b) {
  TORCH_CHECK_VALUE(a.dim() == 2 || a.dim() == 3, op,
                    "a must be 2-D (M, K) or 3-D (L, M, K), got a.dim() = ", a.dim(),
                    " with shape ", shape_str(a.sizes()));
  TORCH_CHECK_VALUE(b.dim() == 2 || b.dim() == 3, op,
                    "b must be 2-D (K, N) or 3-D (L, K, N), got b.dim() = ", b.dim(),
                    " with shape ", shape_str(b.sizes()));
  check_on_device_of_a(op, "b", b, a);
  if (c.has_value()) check_on_device_of_a(op, "c", *c, a);
  const at::ScalarType in = a.scalar_type();
  TORCH_CHECK_VALUE(is_input_dtype(in), op, "a.dtype = ", dtype_str(in),
                    " is not supported; expected one of ", kInputs);
  TORCH_CHECK_VALUE(b.scalar_type() == in || (is_float8(in) && is_float8(b.scalar_type())), op,
                    "b.dtype = ", dtype_str(b.scalar_type()), " must equal a.dtype = ",
                    dtype_str(in), is_float8(in) ? " (or be the other float8 type)" : "");
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
  const bool int8 = in == at::kChar;
  // D's type and C's: a supported float type, or int32 (exact) with int8 inputs.
  auto check_output_dtype = [&](const char* what, at::ScalarType t, const char* none_or) {
    TORCH_CHECK_VALUE(is_supported_dtype(t) || (int8 && t == at::kInt), op, what, " = ",
                      dtype_str(t), " is not supported; expected ", none_or, "one of ",
                      kSupported, int8 ? ", torch.int32" : "");
  };
  if (out_dtype.has_value()) check_output_dtype("out_dtype", *out_dtype, "None or ");
  if (c.has_value()) {
    check_output_dtype("c.dtype", c->scalar_type(), "");
    check_output_shape(op, "c", *c, s);
  }
  const at::ScalarType natural = is_float8(in) ? at::kBFloat16 : int8 ? at::kInt : in;
  s.out_dtype = out_dtype.value_or(c.has_value() ? c->scalar_type() : natural);
  TORCH_CHECK_VALUE(s.out_dtype != at::kInt || !c.has_value() || c->scalar_type() == at::kInt, op,
                    "c.dtype = ", dtype_str(c->scalar_type()),
                    " must be torch.int32 with an int32 output (an exact integer result)");
  if (s.out_dtype == at::kInt) {
    TORCH_CHECK_VALUE(alpha == std::nearbyint(alpha) && beta == std::nearbyint(beta), op,
                      "alpha = ", alpha, " and beta = ", beta,
                      " must be integers with an int32 output (an exact integer result; ask for "
                      "a float out_dtype to scale)");
    TORCH_CHECK_VALUE(!scale_a.has_value() && !scale_b.has_value(), op,
                      "scale_a and scale_b are not taken with an int32 output (an exact integer "
                      "result; ask for a float out_dtype to scale)");
  }
  check_scale(op, "scale_a", scale_a, a);
  check_scale(op, "scale_b", scale_b, a);
  s.scale_a = scale_a;
  s.scale_b = scale_b;
  s.reads_c = c.has_value() && beta != 0.0;
  return s;
}

bool is_degenerate(const GemmAxpbyShape& s) {
  return s.m == 0 || s.n == 0 || s.l == 0 || s.k == 0;
}

at::ScalarType acc_dtype(at::ScalarType in) {
  return in == at::kDouble || in == at::kChar ? at::kDouble : at::kFloat;
}

void scale_(at::Tensor& acc, double alpha, const GemmAxpbyShape& s) {
  if (alpha != 1.0) acc.mul_(alpha);
  for (const auto* scale : {&s.scale_a, &s.scale_b}) {
    if (scale->has_value()) acc.mul_((*scale)->to(acc.scalar_type()).reshape({}));
  }
}

namespace {
at::Tensor with_c(at::Tensor acc, const std::optional<at::Tensor>& c, double beta,
                  const GemmAxpbyShape& s) {
  if (s.reads_c) acc.add_(c->to(acc.scalar_type()), beta);
  if (s.out_dtype == at::kInt) acc.round_();  // exact already: integer inputs and factors
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
  const bool scaled = s.scale_a.has_value() || s.scale_b.has_value();
  if (cuda16 && !scaled && s.out_dtype == in && (!s.reads_c || c->scalar_type() == in)) {
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
  scale_(acc, alpha, s);
  return with_c(acc, c, beta, s);
}

}  // namespace bw::ops
