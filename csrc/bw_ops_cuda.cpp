// CUDA implementation of bw.gemm_axpby: validate -> plan -> launch a compiled kernel, or run the
// cuBLAS composite with a one-time warning naming the reason. Only built with nvcc present.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_set>

#include "gemm/heuristics.hpp"
#include "gemm/registry.hpp"
#include "ops/gemm_axpby.hpp"

namespace bw::ops {

namespace {

using gemm::DType;
using gemm::GemmArgs;
using gemm::KernelEntry;
using gemm::Major;
using gemm::Operand;

DType to_gemm_dtype(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return DType::F16;
    case at::kBFloat16: return DType::BF16;
    case at::kFloat: return DType::F32;
    default: return DType::F64;  // validation admits only the four float types
  }
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// Describes a matrix operand (the last two dims of t, rows x cols) for the kernels: which dim has
// unit stride, its leading stride, its batch stride. Returns why it cannot be described ("" when
// it can). unit_cols_major is the Major of the operand when its columns have unit stride.
std::string describe_matrix(const at::Tensor& t, const char* name, Major unit_cols_major,
                            int64_t l, Operand* op, Major* major) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  const int64_t sr = t.stride(-2), sc = t.stride(-1);
  const int64_t align = 16 / static_cast<int64_t>(t.element_size());
  op->ptr = t.data_ptr();
  op->batch = t.dim() == 3 ? t.stride(0) : 0;  // a 2-D operand is shared by every batch
  if (t.dim() == 3 && l == 1) op->batch = round_up(rows, align) * round_up(cols, align);
  // A dim of size 1 has no meaningful stride: treat it as whatever the other layout needs.
  if (sc == 1 || cols == 1) {
    *major = unit_cols_major;
    op->ld = rows == 1 ? round_up(cols, align) : sr;
    if (op->ld < cols) {
      return std::string(name) + " has overlapping rows (stride " + std::to_string(sr) + " < " +
             std::to_string(cols) + ")";
    }
    return "";
  }
  if (sr == 1 || rows == 1) {
    *major = unit_cols_major == Major::K ? Major::MN : Major::K;
    op->ld = cols == 1 ? round_up(rows, align) : sc;
    if (op->ld < rows) {
      return std::string(name) + " has overlapping columns (stride " + std::to_string(sc) +
             " < " + std::to_string(rows) + ")";
    }
    return "";
  }
  std::ostringstream why;
  why << name << " has no unit-stride dimension (strides " << t.strides() << ")";
  return why.str();
}

const std::vector<const gemm::KernelConfig*>& candidate_configs() {
  static const std::vector<const gemm::KernelConfig*> configs = [] {
    std::vector<const gemm::KernelConfig*> v;
    for (const KernelEntry* e : gemm::compiled_kernels()) v.push_back(&e->config);
    return v;
  }();
  return configs;
}

struct Route {
  const KernelEntry* kernel = nullptr;
  std::string reason;  // why no kernel runs (kernel == nullptr)
  GemmArgs args;
};

// Describes one call in the kernels' terms; returns why it cannot be ("" when it can).
// d_ptr: the output's address.
std::string make_args(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
                      double alpha, double beta, const GemmAxpbyShape& s, void* d_ptr,
                      GemmArgs* out) {
  GemmArgs& g = *out;
  const auto* props = at::cuda::getDeviceProperties(a.device().index());
  g.m = s.m; g.n = s.n; g.k = s.k; g.l = s.l;
  g.ab = to_gemm_dtype(a.scalar_type());
  g.d_dtype = to_gemm_dtype(s.out_dtype);
  g.has_c = s.reads_c;
  g.alpha = static_cast<float>(alpha);
  g.beta = static_cast<float>(beta);
  g.device_id = a.device().index();
  g.sm_count = props->multiProcessorCount;
  g.d.ptr = d_ptr;
  g.d.ld = s.n;
  g.d.batch = s.m * s.n;
  std::string why = describe_matrix(a, "a", Major::K, s.l, &g.a, &g.a_major);
  if (why.empty()) why = describe_matrix(b, "b", Major::MN, s.l, &g.b, &g.b_major);
  if (why.empty() && g.has_c) {
    g.c_dtype = to_gemm_dtype(c->scalar_type());
    Major c_major;
    why = describe_matrix(*c, "c", Major::MN, s.l, &g.c, &c_major);
    if (why.empty() && c_major != Major::MN) why = "c is not row-major";
  }
  return why;
}

int device_arch(const at::Tensor& t) {
  const auto* props = at::cuda::getDeviceProperties(t.device().index());
  return props->major * 10 + props->minor;
}

// Chooses the kernel for one call.
Route route(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
            double alpha, double beta, const GemmAxpbyShape& s, void* d_ptr) {
  Route r;
  r.reason = make_args(a, b, c, alpha, beta, s, d_ptr, &r.args);
  if (!r.reason.empty()) return r;
  gemm::Plan p = gemm::plan(r.args, device_arch(a), candidate_configs());
  if (p.index < 0) {
    r.reason = p.reason;
    return r;
  }
  const KernelEntry* entry = gemm::compiled_kernels()[p.index];
  r.args.sched = p.sched;
  gemm::Status st = entry->ops.can_implement(r.args);
  if (!st.ok) {
    r.reason = std::string(entry->config.name) + " rejected the problem: " + st.message;
    return r;
  }
  r.kernel = entry;
  return r;
}

bool log_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BW_LOG");
    return v != nullptr && std::string(v) != "0" && std::string(v) != "";
  }();
  return on;
}

void log_choice(const GemmArgs& g, const Route& r) {
  if (!log_enabled()) return;
  std::ostringstream key;
  key << "bw.gemm_axpby M=" << g.m << " N=" << g.n << " K=" << g.k << " L=" << g.l << " "
      << gemm::dtype_name(g.ab) << "->" << gemm::dtype_name(g.d_dtype) << " a:"
      << gemm::major_name(g.a_major) << " b:" << gemm::major_name(g.b_major)
      << (g.has_c ? " +c" : "") << " -> "
      << (r.kernel ? r.kernel->config.name : "composite (" + r.reason + ")");
  static std::mutex mutex;
  static std::unordered_set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(key.str()).second) std::cerr << "[blackwell_ops] " << key.str() << std::endl;
}

}  // namespace

at::Tensor gemm_axpby_cuda(const at::Tensor& a, const at::Tensor& b,
                           const std::optional<at::Tensor>& c, double alpha, double beta,
                           std::optional<at::ScalarType> out_dtype) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, beta, out_dtype);
  const c10::cuda::CUDAGuard guard(a.device());
  if (is_degenerate(s)) return degenerate_result(a, c, beta, s);
  at::Tensor d = at::empty(s.out_sizes(), a.options().dtype(s.out_dtype));
  Route r = route(a, b, c, alpha, beta, s, d.data_ptr());
  log_choice(r.args, r);
  if (r.kernel == nullptr) {
    warn_once("bw.gemm_axpby: no compiled kernel fits: " + r.reason +
              "; running the cuBLAS composite instead (correct, but slower and not fused). "
              "Shown once per reason.");
    return gemm_axpby_composite(a, b, c, alpha, beta, s);
  }
  const size_t ws_bytes = r.kernel->ops.workspace_size(r.args);
  at::Tensor workspace;
  if (ws_bytes > 0) workspace = at::empty({static_cast<int64_t>(ws_bytes)}, a.options().dtype(at::kByte));
  gemm::Status st = r.kernel->ops.run(r.args, ws_bytes ? workspace.data_ptr() : nullptr,
                                      at::cuda::getCurrentCUDAStream(a.device().index()).stream(),
                                      /*launch=*/true);
  TORCH_CHECK(st.ok, "bw.gemm_axpby: kernel ", r.kernel->config.name, " failed: ", st.message);
  return d;
}

std::string explain_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c, double alpha, double beta,
                               std::optional<at::ScalarType> out_dtype) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, beta, out_dtype);
  if (!a.is_cuda()) return "composite: ATen on " + a.device().str();
  if (is_degenerate(s)) return "degenerate: M, N, L or K is 0 (no product)";
  const c10::cuda::CUDAGuard guard(a.device());
  // Any 256-byte-aligned address stands for the output the op would allocate.
  Route r = route(a, b, c, alpha, beta, s, reinterpret_cast<void*>(uintptr_t{1} << 20));
  if (r.kernel) return std::string("kernel: ") + r.kernel->config.name;
  return "composite (cuBLAS): " + r.reason;
}

std::tuple<std::string, at::Tensor> run_kernel_gemm_axpby(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c, double alpha,
    double beta, std::optional<at::ScalarType> out_dtype, const std::string& kernel_name,
    bool launch, const gemm::SchedulerArgs* sched) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, beta, out_dtype);
  TORCH_CHECK(a.is_cuda(), "run_kernel: tensors must be on a CUDA device");
  const c10::cuda::CUDAGuard guard(a.device());
  const KernelEntry* entry = nullptr;
  for (const KernelEntry* e : gemm::compiled_kernels()) {
    if (kernel_name == e->config.name) entry = e;
  }
  TORCH_CHECK(entry != nullptr, "run_kernel: no compiled kernel named ", kernel_name);
  at::Tensor d = at::empty(s.out_sizes(), a.options().dtype(s.out_dtype));
  GemmArgs g;
  std::string why = make_args(a, b, c, alpha, beta, s, d.data_ptr(), &g);
  if (!why.empty()) return {"not describable: " + why, at::Tensor()};
  why = gemm::kernel_precondition_failure(g);
  if (!why.empty()) return {"precondition: " + why, at::Tensor()};
  const gemm::KernelConfig& k = entry->config;
  if (k.ab != g.ab || k.cd != g.d_dtype || k.a_major != g.a_major || k.b_major != g.b_major) {
    return {"mismatch: the kernel's types or layout differ from the problem's", at::Tensor()};
  }
  if (launch && device_arch(a) != k.arch) {
    return {"wrong arch: the kernel is sm_" + std::to_string(k.arch) + "a", at::Tensor()};
  }
  g.sched = sched ? *sched : gemm::schedule_for(g, k);
  gemm::Status st = entry->ops.can_implement(g);
  if (!st.ok) return {"can_implement: " + st.message, at::Tensor()};
  const size_t ws_bytes = entry->ops.workspace_size(g);
  at::Tensor workspace = at::empty({static_cast<int64_t>(std::max<size_t>(ws_bytes, 1))},
                                   a.options().dtype(at::kByte));
  st = entry->ops.run(g, workspace.data_ptr(),
                      at::cuda::getCurrentCUDAStream(a.device().index()).stream(), launch);
  if (!st.ok) return {(launch ? "launch: " : "host path: ") + st.message, at::Tensor()};
  return {"ok: workspace " + std::to_string(ws_bytes) + " bytes", launch ? d : at::Tensor()};
}

}  // namespace bw::ops

TORCH_LIBRARY_IMPL(bw, CUDA, m) { m.impl("gemm_axpby", &bw::ops::gemm_axpby_cuda); }
