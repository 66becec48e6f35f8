// CUDA implementation of bw.gemm_axpby: validate -> plan -> launch a compiled kernel, or run the
// cuBLAS composite with a one-time warning naming the reason. Only built with nvcc present.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/from_blob.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <vector>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "gemm/heuristics.hpp"
#include "gemm/registry.hpp"
#include "ops/gemm_axpby.hpp"
#include "ops/gemm_fused.hpp"
#include "ops/pad_copy.hpp"

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

// Elements of type t in TMA's 16-byte unit: addresses, strides and unit-stride extents are
// multiples of it.
int64_t align_of(at::ScalarType t) { return 16 / static_cast<int64_t>(c10::elementSize(t)); }

// Describes a matrix operand (the last two dims of t, rows x cols) for the kernels: which dim has
// unit stride, its leading stride, its batch stride. Returns why it cannot be described ("" when
// it can). unit_cols_major is the Major of the operand when its columns have unit stride.
std::string describe_matrix(const at::Tensor& t, const char* name, Major unit_cols_major,
                            int64_t l, Operand* op, Major* major) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  const int64_t sr = t.stride(-2), sc = t.stride(-1);
  const int64_t align = align_of(t.scalar_type());
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

// The tail-split kernels' flags for launches on `stream` (gemm::SchedulerArgs::split_flags): a
// buffer per device and stream, zeroed once when made and left zero by every launch, so that a
// launch needs no memset (2.8 us of a 28 us decode call with the memset and the idle gap it
// adds: docs/results/h200-session24/). One per stream, as launches on one stream run one after
// the other, never two at once (PyTorch keeps its cuBLAS workspaces per stream for the same
// reason). Not while the stream captures a CUDA graph (captured_split_flags below). The buffers
// live as long as the process, 128 bytes an SM: a split has at most kMaxSplits - 1 = 15 partial
// slots per CTA of the grid, 2 warp groups each, 4 bytes a flag (gemm/sm90/tile_scheduler.hpp
// checks the capacity and falls back to the workspace beyond it).
size_t split_flags_bytes(int device) {
  return size_t{128} *
         static_cast<size_t>(at::cuda::getDeviceProperties(device)->multiProcessorCount);
}

// The buffer of (device, stream), made (and zeroed, in the stream) when `make` and there is none;
// null where there is none.
void* split_flags_of(int device, cudaStream_t stream, bool make) {
  static std::mutex mu;
  static auto* buffers = new std::map<std::pair<int, cudaStream_t>, void*>();  // never freed
  std::lock_guard<std::mutex> lock(mu);
  auto it = buffers->find({device, stream});
  if (it != buffers->end()) return it->second;
  if (!make) return nullptr;
  const size_t bytes = split_flags_bytes(device);
  void* flags = c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, stream);
  C10_CUDA_CHECK(cudaMemsetAsync(flags, 0, bytes, stream));
  (*buffers)[{device, stream}] = flags;
  return flags;
}

// Flags for launches captured into CUDA graphs. A graph may be replayed on any stream, beside
// other work on the stream it was captured on, so a captured launch cannot use that stream's
// buffer. Each takes a buffer of its own instead (split_flags_bytes, as the streams'), zeroed
// once when made, outside any graph, and left zero by every replay, so the graph holds no memset
// node (until session 25 the flags went in the captured workspace, zeroed by a memset node on
// every replay). The graph owns the buffer through a CUDA user object; CUDA releases it when the
// graph and every executable graph instantiated from it are destroyed, after their launches
// finish, and the release returns the buffer, still zero, to a free list for later captures.
// Nothing is freed (the release may make no CUDA call). Replays of one executable graph run one
// after another (CUDA orders them), so a buffer is in use by one launch at a time, unless two
// executable graphs instantiated from one capture are replayed at once (torch instantiates a
// capture once).
struct CapturedFlagsPool {
  std::mutex mu;
  std::map<int, std::vector<void*>> free;    // per device: zero, owned by no graph
  std::map<int, int64_t> made;               // per device: buffers made
  std::map<int, cudaStream_t> zeroing;       // per device: our stream for the one memset
};

CapturedFlagsPool& captured_flags_pool() {
  static auto* pool = new CapturedFlagsPool();  // never freed: releases may come at exit
  return *pool;
}

struct CapturedFlags {
  int device;
  void* flags;
};

// The user object's release (a CUDA host callback: no CUDA calls).
void return_captured_flags(void* owned) {
  std::unique_ptr<CapturedFlags> f(static_cast<CapturedFlags*>(owned));
  CapturedFlagsPool& pool = captured_flags_pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  pool.free[f->device].push_back(f->flags);
}

// A zeroed buffer owned by the graph that `stream` captures; null when the capture is not active
// (an invalidated capture fails anyway; its launch keeps the workspace's flags meanwhile).
void* captured_split_flags(int device, cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  cudaGraph_t graph = nullptr;
  C10_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, &id, &graph));
  if (status != cudaStreamCaptureStatusActive || graph == nullptr) return nullptr;
  CapturedFlagsPool& pool = captured_flags_pool();
  void* flags = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    std::vector<void*>& free = pool.free[device];
    if (!free.empty()) {
      flags = free.back();
      free.pop_back();
    } else {
      // As torch's caching allocator allocates during a capture (cudaMallocMaybeCapturing):
      // this thread in relaxed mode may make the calls a global-mode capture forbids, and none
      // of them joins the graph. The memset runs on a stream of ours, which no capture holds.
      const c10::cuda::CUDAStreamCaptureModeGuard relaxed{cudaStreamCaptureModeRelaxed};
      const size_t bytes = split_flags_bytes(device);
      cudaStream_t& zeroing = pool.zeroing[device];
      if (zeroing == nullptr) {
        C10_CUDA_CHECK(cudaStreamCreateWithFlags(&zeroing, cudaStreamNonBlocking));
      }
      C10_CUDA_CHECK(cudaMalloc(&flags, bytes));
      C10_CUDA_CHECK(cudaMemsetAsync(flags, 0, bytes, zeroing));
      C10_CUDA_CHECK(cudaStreamSynchronize(zeroing));
      ++pool.made[device];
    }
  }
  // The user object owns the buffer from here: its release (return_captured_flags) puts it back.
  auto* owned = new CapturedFlags{device, flags};
  cudaUserObject_t object = nullptr;
  const cudaError_t created = cudaUserObjectCreate(&object, owned, return_captured_flags, 1,
                                                   cudaUserObjectNoDestructorSync);
  if (created != cudaSuccess) return_captured_flags(owned);
  C10_CUDA_CHECK(created);
  const cudaError_t retained =
      cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
  if (retained != cudaSuccess) cudaUserObjectRelease(object, 1);
  C10_CUDA_CHECK(retained);
  return flags;
}

void attach_split_flags(GemmArgs& g, const gemm::KernelConfig& k, const at::Tensor& like,
                        cudaStream_t stream) {
  if (k.scheduler != gemm::TileScheduler::TailSplit) return;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  const int device = like.device().index();
  g.sched.split_flags = capture == cudaStreamCaptureStatusNone
                            ? split_flags_of(device, stream, /*make=*/true)
                            : captured_split_flags(device, stream);
  g.sched.split_flags_bytes = g.sched.split_flags ? split_flags_bytes(device) : 0;
}

// Runs kernel `entry` on g on the current stream of like's device (launch == false: the host
// steps only, as a dry run), its workspace from the caching allocator.
gemm::Status enqueue(const KernelEntry& entry, GemmArgs g, const at::Tensor& like, bool launch,
                     size_t* ws_bytes_out = nullptr) {
  make_context_current(like);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(like.device().index()).stream();
  if (launch) attach_split_flags(g, entry.config, like, stream);
  const size_t ws_bytes = entry.ops.workspace_size(g);
  if (ws_bytes_out) *ws_bytes_out = ws_bytes;
  // A dry run always gets a workspace (a byte where the kernel needs none), as CUTLASS's host
  // steps had it when the dry runs of the sm100 kernels were checked on the H200.
  at::Tensor workspace;
  if (ws_bytes > 0 || !launch) {
    workspace = at::empty({static_cast<int64_t>(std::max<size_t>(ws_bytes, 1))},
                          like.options().dtype(at::kByte));
  }
  return entry.ops.run(g, workspace.defined() ? workspace.data_ptr() : nullptr, stream, launch);
}

void launch(const Route& r, const at::Tensor& like, const char* op) {
  gemm::Status st = enqueue(*r.kernel, r.args, like, /*launch=*/true);
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

// Routes one call; route_ab(a, b) plans it with the given operands. sm_90a's 8-bit and tf32
// kernels read a and b K-major only: wgmma has no transpose for these types (only 16-bit
// operands may be MN-major in shared memory). sm_100a's UMMA has one, and the build holds the
// other layouts for some of these types' plain products (tools/generate_kernels.py,
// _SM100_QUANT_LAYOUTS), not for the rest or the fused epilogue. When such a call finds no kernel
// and a or b is not K-major, it is planned again on K-major stand-ins (fresh tensors: a row-major
// (M, K), b the transpose of a row-major (N, K)); only when that finds a kernel, and only with
// `copy` (explain plans without), are the operands copied into them.
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
  const std::string why =
      device_arch(a) == 90
          ? " kernels read a and b K-major only (sm_90a's WGMMA has no transpose for 8-bit and "
            "tf32 operands)"
          : " kernels of this build read this call's a and b K-major only (sm_100a's UMMA reads "
            "them MN-major too; python -m blackwell_ops.info lists the layouts built)";
  used->copy_note = std::string(op) + ": " + dtype_str(a.scalar_type()) + why + "; copied " +
                    (copy_a ? (copy_b ? "a and b" : "a") : "b") +
                    " K-major for this call (an extra read and write). Pass a row-major a (M, K) "
                    "and b = W.t() of a row-major W (N, K) to avoid it. Shown once.";
  return rk;
}

// Padded copies, for a call whose sizes or addresses the kernels cannot take as they are: TMA
// reads and writes rows that start at 16-byte aligned addresses and whose unit-stride extent and
// strides are multiples of 16 bytes, so K or N off that grid (4097, a vocabulary of 50257), a
// storage offset or a strided view send the call to the cuBLAS composite, whose kernels for such
// shapes run several times slower (torch.compile pads such GEMMs for the same reason). Instead the
// call runs on a copy of the problem padded to the grid: a (..., M, Kp) row-major; b (..., Kp, Np),
// K-major (or row-major where it is and its type allows); C, X and bias padded in N; D and Y
// written (..., M, Np) and their first N columns copied out. K's pad is zeros in both a and b,
// so every product sum is unchanged; N's padded columns are computed and dropped. Only operands
// that need it are copied. Taken only when the call as it is finds no kernel, and only when the
// padded call finds one.
struct Padded {
  GemmAxpbyShape s;  // the caller's, with N and K rounded up
  at::Tensor a, b;
  std::optional<at::Tensor> c, bias, x;
  at::Tensor d, y;   // where the kernel writes: the caller's outputs when N is not padded
  std::string note;  // the one-time warning ("" when nothing is padded or copied)
  double copied_bytes = 0;  // of every copy made (inputs) or written then copied out (outputs)
};

// Padding pays when the product can hide its copies: cuBLAS's kernels for such shapes lose
// several times over on a compute-bound product (0.17-0.22x torch.compile, which pads, at
// 4095x4097x4096 bf16 in benchmarks/results/h200/default_session13/), but run at memory speed on
// a memory-bound one (few rows: an LM head at decode), where a copy of the weight would double the
// traffic. So the padded call runs when its flops are at least kPadFlopsPerByte per copied byte
// for 16-bit inputs (twice that for 8-bit, half for tf32, as the tensor cores' rate goes): about
// an H200's or a B200's flops-to-bandwidth balance for 16-bit, so the copies (each byte read and
// written) take at most about twice as long as the product, less than what cuBLAS's unaligned
// kernels lose on it. docs/design.md, "Padded calls".
constexpr double kPadFlopsPerByte = 256;

// t's rows can be read as they are: unit stride, aligned address and strides (in elements).
bool rows_aligned(const at::Tensor& t, int64_t align) {
  if (reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 != 0 || t.stride(-1) != 1) return false;
  for (int64_t i = 0; i + 1 < t.dim(); ++i) {
    if (t.size(i) > 1 && t.stride(i) % align != 0) return false;
  }
  return true;
}

// A tensor to plan with, without memory: an aligned address (never read), contiguous strides.
at::Tensor stand_in(at::IntArrayRef sizes, const at::TensorOptions& options) {
  return at::for_blob(reinterpret_cast<void*>(uintptr_t{1} << 20), sizes)
      .options(options)
      .target_device(options.device())  // else make_tensor asks the driver about the address
      .make_tensor();
}

at::Tensor padded_like(const at::Tensor& t, at::IntArrayRef sizes, bool planning) {
  return planning ? stand_in(sizes, t.options()) : at::empty(sizes, t.options());
}

// t (..., rows, cols) copied into a fresh contiguous (..., rows_p, cols_p), zeros around it: one
// launch of the copy kernel (ops/pad_copy.cu) per matrix, which writes every element.
at::Tensor pad_copy(const at::Tensor& t, int64_t rows_p, int64_t cols_p, bool planning) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  const bool matrix = sizes.size() > 1;
  const int64_t rows = matrix ? sizes[sizes.size() - 2] : 1, cols = sizes.back();
  if (matrix) sizes[sizes.size() - 2] = rows_p;
  sizes.back() = cols_p;
  at::Tensor p = padded_like(t, sizes, planning);
  if (planning) return p;
  if ((t.stride(-1) != 1 && cols > 1) || (matrix && rows > 1 && t.stride(-2) < cols)) {
    // No unit-stride rows (a column-major a, say): ATen's strided copy, then the zeros.
    if (cols_p > cols) p.narrow(-1, cols, cols_p - cols).zero_();
    if (matrix && rows_p > rows) p.narrow(-2, rows, rows_p - rows).zero_();
    at::Tensor inner = p.narrow(-1, 0, cols);
    (matrix ? inner.narrow(-2, 0, rows) : inner).copy_(t);
    return p;
  }
  const int64_t es = t.element_size();
  const int64_t src_pitch = (matrix && rows > 1 ? t.stride(-2) : cols) * es;
  const int64_t batches = t.dim() == 3 ? t.size(0) : 1;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(t.device().index()).stream();
  for (int64_t i = 0; i < batches; ++i) {
    const char* src =
        static_cast<const char*>(t.data_ptr()) + (t.dim() == 3 ? i * t.stride(0) * es : 0);
    char* dst = static_cast<char*>(p.data_ptr()) + i * rows_p * cols_p * es;
    C10_CUDA_CHECK(copy_rows_zero_fill(dst, cols_p * es, cols_p, rows_p, src, src_pitch, cols,
                                       rows, static_cast<int>(es), stream));
  }
  return p;
}

// The padded call for these operands (planning: stand-ins, nothing allocated or copied).
// d and y are the caller's outputs (y undefined without one).
Padded pad_call(const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c,
                const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& x,
                const GemmAxpbyShape& s, const at::Tensor& d, const at::Tensor& y,
                const char* op, bool planning) {
  Padded p;
  p.s = s;
  const int64_t k_align = align_of(a.scalar_type());
  const bool b_k_major = k_major_only(input_dtype(a.scalar_type())) || is_k_major(b, false);
  int64_t n_align = align_of(s.out_dtype);
  if (s.reads_c) n_align = std::max(n_align, align_of(c->scalar_type()));
  if (!b_k_major) n_align = std::max(n_align, align_of(b.scalar_type()));
  p.s.k = round_up(s.k, k_align);
  p.s.n = round_up(s.n, n_align);
  const bool pad_k = p.s.k != s.k, pad_n = p.s.n != s.n;
  std::vector<std::string> copied;
  auto take = [&](const char* name, at::Tensor t) {
    copied.push_back(name);
    p.copied_bytes += static_cast<double>(t.numel()) * t.element_size();
    return t;
  };
  p.a = a;
  if (pad_k || !rows_aligned(a, k_align)) p.a = take("a", pad_copy(a, s.m, p.s.k, planning));
  p.b = b;
  if (b_k_major && (pad_k || pad_n || !rows_aligned(b.mT(), k_align))) {
    p.b = take("b", pad_copy(b.mT(), p.s.n, p.s.k, planning).mT());
  } else if (!b_k_major && (pad_k || pad_n || !rows_aligned(b, n_align))) {
    p.b = take("b", pad_copy(b, p.s.k, p.s.n, planning));
  }
  p.c = c;
  if (s.reads_c && (pad_n || !rows_aligned(*c, n_align))) {
    p.c = take("c", pad_copy(*c, s.m, p.s.n, planning));
  }
  p.x = x;
  if (x.has_value() && (pad_n || !rows_aligned(*x, n_align))) {
    p.x = take("x", pad_copy(*x, s.m, p.s.n, planning));
  }
  p.bias = bias;
  if (bias.has_value() && (pad_n || !rows_aligned(*bias, n_align))) {
    p.bias = take("bias", pad_copy(*bias, 1, p.s.n, planning));
  }
  p.d = d;
  p.y = y;
  if (pad_n) {
    const std::vector<int64_t> out = p.s.out_sizes();
    p.d = take("d", padded_like(d, out, planning));
    if (y.defined()) p.y = take("y", padded_like(y, out, planning));
  }
  if (copied.empty()) return p;
  std::ostringstream note;
  note << op << ": the kernels read and write rows of whole 16-byte units at 16-byte aligned "
       << "addresses; calls with N = " << s.n << ", K = " << s.k << " and "
       << dtype_str(a.scalar_type()) << " inputs run on copies";
  if (pad_k || pad_n) {
    note << " padded to";
    if (pad_n) note << " N = " << p.s.n;
    if (pad_k) note << (pad_n ? "," : "") << " K = " << p.s.k;
  }
  note << " (of ";
  for (size_t i = 0; i < copied.size(); ++i) note << (i ? ", " : "") << copied[i];
  note << "): extra reads and writes. N and K multiples of " << n_align << " and " << k_align
       << " elements, unit-stride rows and unsliced tensors avoid them. Shown once for each "
       << "such N and K.";
  p.note = note.str();
  return p;
}

// Whether the padded call's copies are worth it (kPadFlopsPerByte); when not, why.
std::string padding_not_worth(const Padded& p, at::ScalarType in) {
  const double flops = 2.0 * p.s.l * p.s.m * p.s.n * p.s.k;
  const double need = kPadFlopsPerByte * 2.0 / static_cast<double>(c10::elementSize(in));
  if (flops >= need * p.copied_bytes) return "";
  // No sizes in the message: it is a one-time warning, once per distinct text.
  return "; padded copies would cost more than this product can hide (fewer than " +
         std::to_string(static_cast<int64_t>(need)) + " flops per copied byte)";
}

// BW_PAD (read at each call, for benchmarks and tests): "0" never pads (the composite runs, as
// before padded calls existed); "1" pads whenever a kernel takes the padded call, whatever the
// cost rule says; unset or anything else: the rule (padding_not_worth).
enum class PadMode { Never, Always, Rule };
PadMode pad_mode() {
  const char* v = std::getenv("BW_PAD");
  if (v != nullptr && std::string(v) == "0") return PadMode::Never;
  if (v != nullptr && std::string(v) == "1") return PadMode::Always;
  return PadMode::Rule;
}

// Plans the call padded (route_p(p) plans one Padded) after it found no kernel as it is: first
// on stand-ins, then, when a kernel takes those, the cost rule allows it and `copy`, on the
// padded copies. Returns the unpadded route r (its reason extended when the rule declined) when
// padding does not help or nothing would be padded.
template <class RouteP>
Route route_padded(Route r, const at::Tensor& a, const at::Tensor& b,
                   const std::optional<at::Tensor>& c, const std::optional<at::Tensor>& bias,
                   const std::optional<at::Tensor>& x, const GemmAxpbyShape& s,
                   const at::Tensor& d, const at::Tensor& y, const char* op, bool copy,
                   RouteP&& route_p, Padded* p) {
  const PadMode mode = pad_mode();
  if (r.kernel != nullptr || mode == PadMode::Never) return r;
  Padded plan = pad_call(a, b, c, bias, x, s, d, y, op, /*planning=*/true);
  if (plan.note.empty()) return r;
  Route rp = route_p(plan);
  if (rp.kernel == nullptr) return r;
  if (std::string why = padding_not_worth(plan, a.scalar_type());
      !why.empty() && mode == PadMode::Rule) {
    r.reason += why;
    return r;
  }
  *p = copy ? pad_call(a, b, c, bias, x, s, d, y, op, /*planning=*/false) : std::move(plan);
  return copy ? route_p(*p) : rp;
}

// The caller's outputs after a padded launch: the first N columns of what the kernel wrote.
void unpad_outputs(const Padded& p, const at::Tensor& d, const at::Tensor& y) {
  if (p.note.empty()) return;  // not padded
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(d.device().index()).stream();
  for (const auto& [out, padded] : {std::pair{d, p.d}, std::pair{y, p.y}}) {
    if (!out.defined() || padded.is_same(out)) continue;
    // Both contiguous, (..., M, Np) and (..., M, N): every row of every batch in one launch.
    const int64_t es = out.element_size(), n = out.size(-1), rows = out.numel() / n;
    C10_CUDA_CHECK(copy_rows_zero_fill(out.data_ptr(), n * es, n, rows, padded.data_ptr(),
                                       padded.size(-1) * es, n, rows, static_cast<int>(es),
                                       stream));
  }
}

// explain's answer for a routed call.
std::string explain_route(const Route& r, const RoutedOperands& used, const char* composite,
                          const Padded& padded = {}) {
  if (r.kernel == nullptr) return std::string(composite) + ": " + r.reason;
  std::string path = std::string("kernel: ") + r.kernel->config.name;
  if (!padded.note.empty()) return path + " (after padding: " + padded.note + ")";
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
  Padded padded;
  r = route_padded(std::move(r), a, b, c, std::nullopt, std::nullopt, s, d, at::Tensor(),
                   "bw.gemm_axpby", /*copy=*/true, [&](const Padded& p) {
                     return route(p.a, p.b, p.c, alpha, beta, p.s, p.d.data_ptr());
                   }, &padded);
  if (!used.copy_note.empty()) warn_once(used.copy_note);
  if (!padded.note.empty()) warn_once(padded.note);
  log_choice(r.args, r);
  if (r.kernel == nullptr) {
    warn_once("bw.gemm_axpby: no compiled kernel fits: " + r.reason +
              "; running the cuBLAS composite instead (correct, but slower and not fused). "
              "Shown once per reason.");
    return gemm_axpby_composite(a, b, c, alpha, beta, s);
  }
  launch(r, a, "bw.gemm_axpby");
  unpad_outputs(padded, d, at::Tensor());
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
  const at::Tensor d = stand_in(s.out_sizes(), a.options().dtype(s.out_dtype));
  RoutedOperands used;
  Route r = route_operands(a, b, "bw.gemm_axpby", /*copy=*/false,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return route(a_, b_, c, alpha, beta, s, d.data_ptr());
                           }, &used);
  Padded padded;
  r = route_padded(std::move(r), a, b, c, std::nullopt, std::nullopt, s, d, at::Tensor(),
                   "bw.gemm_axpby", /*copy=*/false, [&](const Padded& p) {
                     return route(p.a, p.b, p.c, alpha, beta, p.s, p.d.data_ptr());
                   }, &padded);
  return explain_route(r, used, "composite (cuBLAS)", padded);
}

namespace {

int64_t nonzero_words(void* flags, int device, const at::Tensor& like) {
  const at::Tensor words = at::from_blob(
      flags, {static_cast<int64_t>(split_flags_bytes(device) / sizeof(int))},
      like.options().dtype(at::kInt));
  return words.ne(0).sum().item<int64_t>();
}

}  // namespace

int64_t split_flags_nonzero(const at::Tensor& like) {
  TORCH_CHECK(like.is_cuda(), "split_flags_nonzero: a CUDA tensor names the device");
  const int device = like.device().index();
  void* flags = split_flags_of(
      device, at::cuda::getCurrentCUDAStream(device).stream(), /*make=*/false);
  return flags == nullptr ? -1 : nonzero_words(flags, device, like);
}

std::tuple<int64_t, int64_t, int64_t> captured_split_flags_state(const at::Tensor& like) {
  TORCH_CHECK(like.is_cuda(), "captured_split_flags_state: a CUDA tensor names the device");
  const int device = like.device().index();
  std::vector<void*> free;
  int64_t made = 0;
  {
    CapturedFlagsPool& pool = captured_flags_pool();
    std::lock_guard<std::mutex> lock(pool.mu);
    free = pool.free[device];
    made = pool.made[device];
  }
  int64_t nonzero = 0;
  for (void* flags : free) nonzero += nonzero_words(flags, device, like);
  return {made, static_cast<int64_t>(free.size()), nonzero};
}

std::vector<std::string> graph_node_types(int64_t graph_handle) {
  TORCH_CHECK(graph_handle != 0, "graph_node_types: graph is null");
  auto graph = reinterpret_cast<cudaGraph_t>(static_cast<intptr_t>(graph_handle));
  size_t count = 0;
  C10_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) C10_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::vector<std::string> types;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    C10_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    types.push_back(type == cudaGraphNodeTypeKernel   ? "kernel"
                    : type == cudaGraphNodeTypeMemset ? "memset"
                    : type == cudaGraphNodeTypeMemcpy ? "memcpy"
                    : type == cudaGraphNodeTypeEmpty  ? "empty"
                                                      : "other");
  }
  return types;
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
  size_t ws_bytes = 0;
  st = enqueue(entry, g, a, launch, &ws_bytes);
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

// route_padded for a gemm_fused call (y: the caller's Y, undefined without one).
Route route_padded_fused(Route r, const at::Tensor& a, const at::Tensor& b,
                         const std::optional<at::Tensor>& c, const std::optional<at::Tensor>& bias,
                         const std::optional<at::Tensor>& x, double alpha, double beta,
                         double x_factor, const GemmFusedShape& s, const at::Tensor& d,
                         const at::Tensor& y, bool copy, Padded* padded) {
  return route_padded(std::move(r), a, b, c, bias, s.reads_x ? x : std::nullopt, s.gemm, d, y,
                      "bw.gemm_fused", copy, [&](const Padded& p) {
                        GemmFusedShape ps = s;
                        ps.gemm = p.s;
                        void* y_ptr = p.y.defined() ? p.y.data_ptr() : nullptr;
                        return fused_route(p.a, p.b, p.c, p.bias, p.x, alpha, beta, x_factor, ps,
                                           p.d.data_ptr(), y_ptr);
                      }, padded);
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
  const at::Tensor d = stand_in(s.gemm.out_sizes(), a.options().dtype(s.gemm.out_dtype));
  const at::Tensor y = s.return_y ? d : at::Tensor();
  RoutedOperands used;
  Route r = route_operands(a, b, "bw.gemm_fused", /*copy=*/false,
                           [&](const at::Tensor& a_, const at::Tensor& b_) {
                             return fused_route(a_, b_, c, bias, x, alpha, beta, x_factor, s,
                                                d.data_ptr(), d.data_ptr());
                           }, &used);
  Padded padded;
  r = route_padded_fused(std::move(r), a, b, c, bias, x, alpha, beta, x_factor, s, d, y,
                         /*copy=*/false, &padded);
  return explain_route(r, used, "composite (cuBLAS + ATen epilogue)", padded);
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
  Padded padded;
  r = route_padded_fused(std::move(r), a, b, c, bias, x, alpha, beta, x_factor, s, d,
                         s.return_y ? y : at::Tensor(), /*copy=*/true, &padded);
  if (!used.copy_note.empty()) warn_once(used.copy_note);
  if (!padded.note.empty()) warn_once(padded.note);
  log_choice(r.args, r);
  if (r.kernel == nullptr) {
    *why_not = "no compiled kernel fits: " + r.reason;
    return std::nullopt;
  }
  launch(r, a, "bw.gemm_fused");
  unpad_outputs(padded, d, s.return_y ? y : at::Tensor());
  return std::make_tuple(d, y);
}

}  // namespace bw::ops

TORCH_LIBRARY_IMPL(bw, CUDA, m) { m.impl("gemm_axpby", &bw::ops::gemm_axpby_cuda); }
