// CUDA implementation of bw.gemm_axpby: validate -> plan -> launch a compiled kernel, or run the
// cuBLAS composite with a one-time warning naming the reason. Only built with nvcc present.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <vector>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "gemm/heuristics.hpp"
#include "gemm/registry.hpp"
#include "ops/gemm_axpby.hpp"
#include "ops/gemm_fused.hpp"

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
    case at::kFloat8_e4m3fn: return DType::E4M3;
    case at::kFloat8_e5m2: return DType::E5M2;
    case at::kChar: return DType::I8;
    case at::kInt: return DType::I32;
    default: return DType::F64;  // validation admits no other type
  }
}

// An input's type for the kernels: fp32 inputs are tf32 when torch's float32 matmul precision
// allows it (torch.backends.cuda.matmul.allow_tf32, torch.set_float32_matmul_precision), as for
// torch.mm; otherwise exact fp32, which no kernel takes.
DType input_dtype(at::ScalarType t) {
  if (t == at::kFloat && at::globalContext().allowTF32CuBLAS()) return DType::TF32;
  return to_gemm_dtype(t);
}

// Inputs whose kernels read K-major operands only (see route_operands).
bool k_major_only(DType t) { return gemm::is_8bit(t) || t == DType::TF32; }

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

// The planner's candidates: configs (what gemm::plan ranks) beside their kernels, same order.
struct Candidates {
  std::vector<const gemm::KernelConfig*> configs;
  std::vector<const KernelEntry*> kernels;
  void add(const KernelEntry* e) {
    configs.push_back(&e->config);
    kernels.push_back(e);
  }
};

const Candidates& planner_candidates() {
  static const Candidates all = [] {
    Candidates v;
    // FastAccum kernels (FP8 without promotion, a tuning candidate) only when pinned: their
    // error grows with K beyond what the ops promise for FP8.
    for (const KernelEntry* e : gemm::compiled_kernels()) {
      if (e->config.schedule != gemm::Schedule::Sm90CooperativeFastAccum) v.add(e);
    }
    return v;
  }();
  return all;
}

// The compiled kernel of this name, or nullptr.
const KernelEntry* find_kernel(const std::string& name) {
  for (const KernelEntry* e : gemm::compiled_kernels()) {
    if (name == e->config.name) return e;
  }
  return nullptr;
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
  g.ab = input_dtype(a.scalar_type());
  g.b_dtype = input_dtype(b.scalar_type());
  g.d_dtype = to_gemm_dtype(s.out_dtype);
  g.has_c = s.reads_c;
  g.alpha = static_cast<float>(alpha);
  g.beta = static_cast<float>(beta);
  g.scale_a = s.scale_a ? static_cast<const float*>(s.scale_a->data_ptr()) : nullptr;
  g.scale_b = s.scale_b ? static_cast<const float*>(s.scale_b->data_ptr()) : nullptr;
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

// pin_kernel's kernel: the planner's only candidate while set (tuning). Shared, and read with
// an atomic load, so a call that planned with it keeps its set alive if pin_kernel replaces it
// meanwhile (ops run without the GIL, e.g. on autograd's threads).
std::shared_ptr<const Candidates>& pinned_candidates() {
  static std::shared_ptr<const Candidates> pinned;
  return pinned;
}

// Chooses the kernel for a described call (r.args filled, r.reason empty).
Route plan_route(Route r, int arch) {
  const std::shared_ptr<const Candidates> pinned = std::atomic_load(&pinned_candidates());
  const Candidates& set = pinned ? *pinned : planner_candidates();
  gemm::Plan p = gemm::plan(r.args, arch, set.configs);
  if (p.index < 0) {
    r.reason = pinned ? std::string("pinned to ") + set.configs[0]->name + ": " + p.reason
                      : p.reason;
    return r;
  }
  const KernelEntry* entry = set.kernels[p.index];
  r.args.sched = p.sched;
  gemm::Status st = entry->ops.can_implement(r.args);
  if (!st.ok) {
    r.reason = std::string(entry->config.name) + " rejected the problem: " + st.message;
    return r;
  }
  r.kernel = entry;
  return r;
}

// Chooses the kernel for one gemm_axpby call.
Route route(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
            double alpha, double beta, const GemmAxpbyShape& s, void* d_ptr) {
  Route r;
  r.reason = make_args(a, b, c, alpha, beta, s, d_ptr, &r.args);
  if (!r.reason.empty()) return r;
  return plan_route(std::move(r), device_arch(a));
}

// Enqueues r's kernel on the current stream, its workspace from the caching allocator.
// CUTLASS encodes the TMA descriptors with the driver API (cuTensorMapEncodeTiled), which needs a
// current context on the calling thread. The runtime makes the primary context current lazily, on
// its first call that needs one, and torch's device guard skips cudaSetDevice when the device
// already reads as current. So a thread that has made no such call yet has no current context:
// autograd's device threads, which run the backward. Seen on the 2 x H200 host (rank 0 of
// examples/tp_mlp.py in bf16): "Failed to initialize the TMA descriptor 201"
// (CUDA_ERROR_INVALID_CONTEXT). cudaSetDevice makes the device's primary context current (CUDA
// 12+); it is cheap when it already is.
void make_context_current(const at::Tensor& like) {
  C10_CUDA_CHECK(cudaSetDevice(like.device().index()));
}

void launch(const Route& r, const at::Tensor& like, const char* op) {
  make_context_current(like);
  const size_t ws_bytes = r.kernel->ops.workspace_size(r.args);
  at::Tensor workspace;
  if (ws_bytes > 0) {
    workspace = at::empty({static_cast<int64_t>(ws_bytes)}, like.options().dtype(at::kByte));
  }
  gemm::Status st = r.kernel->ops.run(r.args, ws_bytes ? workspace.data_ptr() : nullptr,
                                      at::cuda::getCurrentCUDAStream(like.device().index()).stream(),
                                      /*launch=*/true);
  TORCH_CHECK(st.ok, op, ": kernel ", r.kernel->config.name, " failed: ", st.message);
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
  const bool fused = g.epilogue == gemm::Epilogue::Fused;
  key << (fused ? "bw.gemm_fused" : "bw.gemm_axpby") << " M=" << g.m << " N=" << g.n << " K=" << g.k << " L=" << g.l << " "
      << gemm::dtype_name(g.ab) << "->" << gemm::dtype_name(g.d_dtype) << " a:"
      << gemm::major_name(g.a_major) << " b:" << gemm::major_name(g.b_major)
      << (g.has_c ? " +c" : "");
  if (fused) {
    key << " act=" << gemm::activation_name(g.activation) << (g.has_bias ? " +bias" : "")
        << (g.has_x ? " +x" : "") << (g.has_y ? " +y" : "");
  }
  key << " -> "
      << (r.kernel ? r.kernel->config.name : "composite (" + r.reason + ")");
  static std::mutex mutex;
  static std::unordered_set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(key.str()).second) std::cerr << "[blackwell_ops] " << key.str() << std::endl;
}

bool is_k_major(const at::Tensor& t, bool is_a) {
  return is_a ? t.stride(-1) == 1 : t.stride(-2) == 1;
}

// The operands a call was routed with (the caller's, or K-major copies of them), kept until its
// launch is enqueued, and the one-time note naming the copy ("" without one).
struct RoutedOperands {
  at::Tensor a, b;
  std::string copy_note;
};

// Routes one call; route_ab(a, b) plans it with the given operands. 8-bit and tf32 kernels read a
// and b K-major only: sm_90a's wgmma has no transpose for these types (only 16-bit operands may
// be MN-major in shared memory), and the default build holds the same layout for sm_100a. When
// such a call finds no kernel and a or b is not K-major, it is planned again on K-major stand-ins
// (fresh tensors: a row-major (M, K), b the transpose of a row-major (N, K)); only when that finds
// a kernel, and only with `copy` (explain plans without), are the operands copied into them.
template <class RouteAB>
Route route_operands(const at::Tensor& a, const at::Tensor& b, const char* op, bool copy,
                     RouteAB&& route_ab, RoutedOperands* used) {
  used->a = a;
  used->b = b;
  Route r = route_ab(a, b);
  if (r.kernel != nullptr || !k_major_only(input_dtype(a.scalar_type()))) return r;
  const bool copy_a = !is_k_major(a, true), copy_b = !is_k_major(b, false);
  if (!copy_a && !copy_b) return r;
  at::Tensor ka = copy_a ? at::empty(a.sizes(), a.options()) : a;
  at::Tensor kb = copy_b ? at::empty(b.mT().sizes(), b.options()).mT() : b;
  Route rk = route_ab(ka, kb);
  if (rk.kernel == nullptr) return r;
  if (copy && copy_a) ka.copy_(a);
  if (copy && copy_b) kb.copy_(b);
  used->a = ka;
  used->b = kb;
  used->copy_note = std::string(op) + ": " + dtype_str(a.scalar_type()) +
                    " kernels read a and b K-major only (sm_90a's WGMMA has no transpose for "
                    "8-bit and tf32 operands); copied " +
                    (copy_a ? (copy_b ? "a and b" : "a") : "b") +
                    " K-major for this call (an extra read and write). Pass a row-major a (M, K) "
                    "and b = W.t() of a row-major W (N, K) to avoid it. Shown once.";
  return rk;
}

// explain's answer for a routed call.
std::string explain_route(const Route& r, const RoutedOperands& used, const char* composite) {
  if (r.kernel == nullptr) return std::string(composite) + ": " + r.reason;
  std::string path = std::string("kernel: ") + r.kernel->config.name;
  return used.copy_note.empty() ? path : path + " (after a copy: " + used.copy_note + ")";
}

}  // namespace

at::Tensor gemm_axpby_cuda(const at::Tensor& a, const at::Tensor& b,
                           const std::optional<at::Tensor>& c, double alpha, double beta,
                           std::optional<at::ScalarType> out_dtype,
                           const std::optional<at::Tensor>& scale_a,
                           const std::optional<at::Tensor>& scale_b) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  const c10::cuda::CUDAGuard guard(a.device());
  if (is_degenerate(s)) return degenerate_result(a, c, beta, s);
  at::Tensor d = at::empty(s.out_sizes(), a.options().dtype(s.out_dtype));
  RoutedOperands used;
  Route r = route_operands(a, b, "bw.gemm_axpby", /*copy=*/true,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return route(a_, b_, c, alpha, beta, s, d.data_ptr());
                           }, &used);
  if (!used.copy_note.empty()) warn_once(used.copy_note);
  log_choice(r.args, r);
  if (r.kernel == nullptr) {
    warn_once("bw.gemm_axpby: no compiled kernel fits: " + r.reason +
              "; running the cuBLAS composite instead (correct, but slower and not fused). "
              "Shown once per reason.");
    return gemm_axpby_composite(a, b, c, alpha, beta, s);
  }
  launch(r, a, "bw.gemm_axpby");
  return d;
}

std::string explain_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c, double alpha, double beta,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  if (!a.is_cuda()) return "composite: ATen on " + a.device().str();
  if (is_degenerate(s)) return "degenerate: M, N, L or K is 0 (no product)";
  const c10::cuda::CUDAGuard guard(a.device());
  // Any 256-byte-aligned address stands for the output the op would allocate.
  void* any = reinterpret_cast<void*>(uintptr_t{1} << 20);
  RoutedOperands used;
  Route r = route_operands(a, b, "bw.gemm_axpby", /*copy=*/false,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return route(a_, b_, c, alpha, beta, s, any);
                           }, &used);
  return explain_route(r, used, "composite (cuBLAS)");
}

void pin_kernel(const std::string& kernel_name) {
  std::shared_ptr<Candidates> one;
  if (!kernel_name.empty()) {
    const KernelEntry* found = find_kernel(kernel_name);
    TORCH_CHECK(found != nullptr, "pin_kernel: no compiled kernel named ", kernel_name);
    one = std::make_shared<Candidates>();
    one->add(found);
  }
  std::atomic_store(&pinned_candidates(), std::shared_ptr<const Candidates>(std::move(one)));
}

namespace {

// run_kernel's steps once the call is described in g: the kernel must fit it (types, layout,
// epilogue, activation; its arch when launching); then can_implement, the workspace and the run
// (launch == false: the host steps only). The message is "ok: ..." or what failed.
gemm::Status run_entry(const KernelEntry& entry, GemmArgs& g, const at::Tensor& a, bool launch,
                       const gemm::SchedulerArgs* sched) {
  using gemm::Status;
  std::string why = gemm::kernel_precondition_failure(g);
  if (!why.empty()) return Status::error("precondition: " + why);
  const gemm::KernelConfig& k = entry.config;
  if (k.ab != g.ab || k.b != g.b_dtype || k.cd != g.d_dtype || k.a_major != g.a_major ||
      k.b_major != g.b_major) {
    return Status::error("mismatch: the kernel's types or layout differ from the problem's");
  }
  if (std::string why = gemm::epilogue_mismatch(k.epilogue, g); !why.empty()) {
    return Status::error("mismatch: " + why);
  }
  if (k.activation != g.activation) {
    return Status::error(std::string("mismatch: the kernel's activation is ") +
                         gemm::activation_name(k.activation) + ", the call's " +
                         gemm::activation_name(g.activation));
  }
  if (launch && device_arch(a) != k.arch) {
    return Status::error("wrong arch: the kernel is sm_" + std::to_string(k.arch) + "a");
  }
  g.sched = sched ? *sched : gemm::schedule_for(g, k);
  Status st = entry.ops.can_implement(g);
  if (!st.ok) return Status::error("can_implement: " + st.message);
  const size_t ws_bytes = entry.ops.workspace_size(g);
  at::Tensor workspace = at::empty({static_cast<int64_t>(std::max<size_t>(ws_bytes, 1))},
                                   a.options().dtype(at::kByte));
  make_context_current(a);
  st = entry.ops.run(g, workspace.data_ptr(),
                     at::cuda::getCurrentCUDAStream(a.device().index()).stream(), launch);
  if (!st.ok) return Status::error((launch ? "launch: " : "host path: ") + st.message);
  return {true, "ok: workspace " + std::to_string(ws_bytes) + " bytes"};
}

const KernelEntry& named_kernel(const at::Tensor& a, const std::string& kernel_name) {
  TORCH_CHECK(a.is_cuda(), "run_kernel: tensors must be on a CUDA device");
  const KernelEntry* entry = find_kernel(kernel_name);
  TORCH_CHECK(entry != nullptr, "run_kernel: no compiled kernel named ", kernel_name);
  return *entry;
}

}  // namespace

std::tuple<std::string, at::Tensor> run_kernel_gemm_axpby(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c, double alpha,
    double beta, std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b, const std::string& kernel_name, bool launch,
    const gemm::SchedulerArgs* sched) {
  const GemmAxpbyShape s = check_gemm_axpby(a, b, c, alpha, beta, out_dtype, scale_a, scale_b);
  const KernelEntry& entry = named_kernel(a, kernel_name);
  const c10::cuda::CUDAGuard guard(a.device());
  at::Tensor d = at::empty(s.out_sizes(), a.options().dtype(s.out_dtype));
  GemmArgs g;
  const std::string why = make_args(a, b, c, alpha, beta, s, d.data_ptr(), &g);
  if (!why.empty()) return {"not describable: " + why, at::Tensor()};
  gemm::Status st = run_entry(entry, g, a, launch, sched);
  return {std::move(st.message), st.ok && launch ? d : at::Tensor()};
}

namespace {

// The fused epilogue's extra operands in the kernels' terms; why they cannot be ("" when they can).
std::string describe_fused(const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x,
                           double x_factor, const GemmFusedShape& s, void* y_ptr,
                           GemmArgs* g) {
  g->epilogue = gemm::Epilogue::Fused;
  g->activation = s.act;
  const at::ScalarType out = s.gemm.out_dtype;
  if (s.has_bias) {
    if (bias->scalar_type() != out) {
      return "bias.dtype = " + dtype_str(bias->scalar_type()) + " differs from the output's " +
             dtype_str(out) + " (fused kernels read bias in the output type)";
    }
    if (bias->stride(0) != 1 && s.gemm.n > 1) return "bias is not contiguous";
    g->has_bias = true;
    g->bias.ptr = bias->data_ptr();
  }
  if (s.reads_x) {
    if (x->scalar_type() != out) {
      return "x.dtype = " + dtype_str(x->scalar_type()) + " differs from the output's " +
             dtype_str(out) + " (fused kernels read x in the output type)";
    }
    Major x_major;
    std::string why = describe_matrix(*x, "x", Major::MN, s.gemm.l, &g->x, &x_major);
    if (!why.empty()) return why;
    if (x_major != Major::MN) return "x is not row-major";
    g->has_x = true;
    g->x_factor = static_cast<float>(x_factor);
  }
  if (s.return_y) {
    g->has_y = true;
    g->y = g->d;  // allocated like D: contiguous, row-major
    g->y.ptr = y_ptr;
  }
  return "";
}

// Chooses the kernel for one gemm_fused call writing D at d_ptr and Y at y_ptr.
Route fused_route(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
                  const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x,
                  double alpha, double beta, double x_factor, const GemmFusedShape& s,
                  void* d_ptr, void* y_ptr) {
  Route r;
  r.reason = make_args(a, b, c, alpha, beta, s.gemm, d_ptr, &r.args);
  if (r.reason.empty()) r.reason = describe_fused(bias, x, x_factor, s, y_ptr, &r.args);
  if (r.reason.empty()) r = plan_route(std::move(r), device_arch(a));
  return r;
}

}  // namespace

std::tuple<std::string, std::optional<std::tuple<at::Tensor, at::Tensor>>> run_kernel_gemm_fused(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const std::string& activation, bool return_y,
    std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b, const std::string& kernel_name, bool launch,
    const gemm::SchedulerArgs* sched) {
  const GemmFusedShape s = check_gemm_fused(a, b, c, bias, x, alpha, beta, x_factor, activation,
                                            return_y, out_dtype, scale_a, scale_b);
  const KernelEntry& entry = named_kernel(a, kernel_name);
  const c10::cuda::CUDAGuard guard(a.device());
  const GemmAxpbyShape& gs = s.gemm;
  at::Tensor d = at::empty(gs.out_sizes(), a.options().dtype(gs.out_dtype));
  at::Tensor y = s.return_y ? at::empty(gs.out_sizes(), a.options().dtype(gs.out_dtype))
                            : at::empty({0}, a.options().dtype(gs.out_dtype));
  GemmArgs g;
  std::string why = make_args(a, b, c, alpha, beta, gs, d.data_ptr(), &g);
  if (why.empty()) why = describe_fused(bias, x, x_factor, s, y.data_ptr(), &g);
  if (!why.empty()) return {"not describable: " + why, std::nullopt};
  gemm::Status st = run_entry(entry, g, a, launch, sched);
  return {std::move(st.message),
          st.ok && launch ? std::make_optional(std::make_tuple(d, y)) : std::nullopt};
}

std::string explain_gemm_fused(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c,
                               const std::optional<at::Tensor>& bias,
                               const std::optional<at::Tensor>& x, double alpha, double beta,
                               double x_factor, const std::string& activation, bool return_y,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b) {
  const GemmFusedShape s = check_gemm_fused(a, b, c, bias, x, alpha, beta, x_factor, activation,
                                            return_y, out_dtype, scale_a, scale_b);
  if (!a.is_cuda()) return "composite: ATen on " + a.device().str();
  if (is_degenerate(s.gemm)) return "degenerate: M, N, L or K is 0 (no product)";
  const c10::cuda::CUDAGuard guard(a.device());
  // Any 256-byte-aligned addresses stand for the outputs the op would allocate.
  void* any = reinterpret_cast<void*>(uintptr_t{1} << 20);
  RoutedOperands used;
  Route r = route_operands(a, b, "bw.gemm_fused", /*copy=*/false,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return fused_route(a_, b_, c, bias, x, alpha, beta, x_factor, s,
                                                any, any);
                           }, &used);
  return explain_route(r, used, "composite (cuBLAS + ATen epilogue)");
}

std::optional<std::tuple<at::Tensor, at::Tensor>> gemm_fused_kernel_cuda(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x, double alpha,
    double beta, double x_factor, const GemmFusedShape& s, std::string* why_not) {
  const GemmAxpbyShape& gs = s.gemm;
  at::Tensor d = at::empty(gs.out_sizes(), a.options().dtype(gs.out_dtype));
  at::Tensor y = s.return_y ? at::empty(gs.out_sizes(), a.options().dtype(gs.out_dtype))
                            : at::empty({0}, a.options().dtype(gs.out_dtype));
  RoutedOperands used;  // holds any K-major copies until the launch is enqueued
  Route r = route_operands(a, b, "bw.gemm_fused", /*copy=*/true,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return fused_route(a_, b_, c, bias, x, alpha, beta, x_factor, s,
                                                d.data_ptr(), s.return_y ? y.data_ptr() : nullptr);
                           }, &used);
  if (!used.copy_note.empty()) warn_once(used.copy_note);
  log_choice(r.args, r);
  if (r.kernel == nullptr) {
    *why_not = "no compiled kernel fits: " + r.reason;
    return std::nullopt;
  }
  launch(r, a, "bw.gemm_fused");
  return std::make_tuple(d, y);
}

}  // namespace bw::ops

TORCH_LIBRARY_IMPL(bw, CUDA, m) { m.impl("gemm_axpby", &bw::ops::gemm_axpby_cuda); }
