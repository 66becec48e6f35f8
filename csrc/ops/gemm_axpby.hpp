// gemm_axpby pieces shared by the CPU and CUDA implementations: argument validation (the one
// authority on what is a valid call; blackwell_ops/ops.py mirrors it for fake tensors and a test
// keeps the two messages identical), degenerate sizes, and the ATen composite that is the CPU
// implementation and the CUDA fallback.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "gemm/types.hpp"

namespace bw::ops {

struct GemmAxpbyShape {
  bool batched;  // output is (L, M, N) rather than (M, N)
  int64_t l, m, n, k;
  at::ScalarType out_dtype;
  bool reads_c;  // c given and beta != 0
  // Per-tensor scales (validated: one float32 element each, on a's device); the product is
  // alpha * scale_a * scale_b * (a @ b). Absent: 1.
  std::optional<at::Tensor> scale_a, scale_b;
  std::vector<int64_t> out_sizes() const {
    return batched ? std::vector<int64_t>{l, m, n} : std::vector<int64_t>{m, n};
  }
};

// Throws ValueError/RuntimeError naming the argument, its value and what was expected.
GemmAxpbyShape check_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c, double alpha, double beta,
                                std::optional<at::ScalarType> out_dtype,
                                const std::optional<at::Tensor>& scale_a,
                                const std::optional<at::Tensor>& scale_b);

// The checks every bw GEMM op shares (a, b, c, alpha/beta for an int32 output, out_dtype, the
// scales: check_gemm_axpby's), with messages starting with `op` ("bw.gemm_axpby: ", ...).
//   a, b: float16, bfloat16, float32 or float64 (b the same); float8_e4m3fn / float8_e5m2 (any
//         pairing); int8 (b too).
//   out_dtype: a float type, or int32 for int8 inputs. Default: c's dtype, else a's (bfloat16
//         for float8 inputs, int32 for int8).
//   int32 output: exact, so alpha and beta must be integers and no scales are taken.
GemmAxpbyShape check_gemm_operands(const char* op, const at::Tensor& a, const at::Tensor& b,
                                   const std::optional<at::Tensor>& c, double alpha, double beta,
                                   std::optional<at::ScalarType> out_dtype,
                                   const std::optional<at::Tensor>& scale_a,
                                   const std::optional<at::Tensor>& scale_b);

bool is_float8(at::ScalarType t);

// Single-argument checks shared by the ops' validation; each names the argument `name`.
void check_on_device_of_a(const char* op, const char* name, const at::Tensor& t,
                          const at::Tensor& a);          // RuntimeError
void check_float_dtype(const char* op, const char* name, const at::Tensor& t);  // ValueError
void check_output_shape(const char* op, const char* name, const at::Tensor& t,
                        const GemmAxpbyShape& s);        // ValueError: t must have D's shape
std::string shape_str(at::IntArrayRef sizes);            // "[4, 3]", as Python prints a shape

// M, N, L or K is 0: the result without any product.
bool is_degenerate(const GemmAxpbyShape& s);
at::Tensor degenerate_result(const at::Tensor& a, const std::optional<at::Tensor>& c, double beta,
                             const GemmAxpbyShape& s);

// The composite's accumulator and epilogue type: fp32 for 16-bit, fp32 and float8 inputs (their
// products are exact in fp32), fp64 for fp64 and for int8 (exact int32 semantics: every int8
// product sum a GEMM can form is exact in fp64).
at::ScalarType acc_dtype(at::ScalarType in);

// acc * alpha * scale_a * scale_b in place (no host sync: the scales stay tensors).
void scale_(at::Tensor& acc, double alpha, const GemmAxpbyShape& s);

// a @ b in acc_dtype, contiguous, in the output's shape (zeros when K == 0). On CUDA, 16-bit
// inputs use cuBLAS with an fp32 output (aten::mm.dtype / bmm.dtype) so no input is upcast.
at::Tensor gemm_accumulator(const at::Tensor& a, const at::Tensor& b, const GemmAxpbyShape& s);

// The reference composite: fp32 (fp64 for fp64 inputs) accumulation and epilogue, one rounding
// to out_dtype, contiguous output. On CUDA, 16-bit inputs use cuBLAS with an fp32 output
// (aten::mm.dtype / bmm.dtype) so no input is upcast.
at::Tensor gemm_axpby_composite(const at::Tensor& a, const at::Tensor& b,
                                const std::optional<at::Tensor>& c, double alpha, double beta,
                                const GemmAxpbyShape& s);

// Which path the op would take for these arguments: "kernel: <name>", "composite ...: <why>".
std::string explain_gemm_axpby(const at::Tensor& a, const at::Tensor& b,
                               const std::optional<at::Tensor>& c, double alpha, double beta,
                               std::optional<at::ScalarType> out_dtype,
                               const std::optional<at::Tensor>& scale_a,
                               const std::optional<at::Tensor>& scale_b);

// Runs the compiled kernel `kernel_name` on these arguments, bypassing the planner: with
// launch == false only its host steps (can_implement, workspace, Params with TMA descriptors), so a
// GPU can exercise the host path of another arch's kernels (sm100 on Hopper). sched: the run-time
// scheduling (nullptr: the planner's choice for this problem). Returns ("ok: ...", D or an
// undefined tensor) or (what failed, undefined). For tests and tuning; CUDA builds only.
std::tuple<std::string, at::Tensor> run_kernel_gemm_axpby(
    const at::Tensor& a, const at::Tensor& b, const std::optional<at::Tensor>& c, double alpha,
    double beta, std::optional<at::ScalarType> out_dtype, const std::optional<at::Tensor>& scale_a,
    const std::optional<at::Tensor>& scale_b, const std::string& kernel_name, bool launch,
    const gemm::SchedulerArgs* sched);

// Pins the planner of both ops to the compiled kernel `kernel_name` ("" unpins): a call it does
// not fit takes the composite, as when no kernel fits. For timing a kernel through the op
// (benchmarks/tune.py's fused cases). Process-wide: other threads' calls are pinned too. CUDA
// builds only.
void pin_kernel(const std::string& kernel_name);

// The tail-split flags of the current stream of like's device (csrc/bw_ops_cuda.cpp,
// attach_split_flags): how many are not zero, in stream order after the work queued so far
// (every launch leaves them zero), or -1 where the stream has none yet. For tests; CUDA builds
// only.
int64_t split_flags_nonzero(const at::Tensor& like);

// The flags buffers of launches captured into CUDA graphs on like's device (bw_ops_cuda.cpp,
// captured_split_flags): (made so far, free now: owned by no graph, flags not zero in the free
// ones, read on the current stream). For tests; CUDA builds only.
std::tuple<int64_t, int64_t, int64_t> captured_split_flags_state(const at::Tensor& like);

// The type of each node of a CUDA graph (a cudaGraph_t as an integer, as
// torch.cuda.CUDAGraph(keep_graph=True).raw_cuda_graph() gives it): "kernel", "memset", "memcpy",
// "empty" or "other". For tests; CUDA builds only.
std::vector<std::string> graph_node_types(int64_t graph_handle);

// "torch.float16" etc., as Python prints a dtype.
std::string dtype_str(at::ScalarType t);

// Emits a Python UserWarning the first time a given message is seen in this process.
void warn_once(const std::string& message);

// Forgets which messages warn_once has shown, so each warns again (for tests that check a
// one-time warning, whichever test showed it first).
void forget_warnings();

}  // namespace bw::ops
