#include "gemm/registry.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace bw::gemm {

namespace {
std::vector<const KernelEntry*>& mutable_registry() {
  static std::vector<const KernelEntry*> entries;
  return entries;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

Registrar::Registrar(const KernelEntry* entry) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& entries = mutable_registry();
  auto pos = std::lower_bound(entries.begin(), entries.end(), entry,
                              [](const KernelEntry* x, const KernelEntry* y) {
                                return std::strcmp(x->config.name, y->config.name) < 0;
                              });
  entries.insert(pos, entry);
}

const std::vector<const KernelEntry*>& compiled_kernels() { return mutable_registry(); }

const std::vector<KernelConfig>& kernel_table() {
  static const std::vector<KernelConfig> table = {
#define BW_KERNEL(...) KernelConfig{__VA_ARGS__},
#include "gemm/generated/kernel_table.inc"
#undef BW_KERNEL
  };
  return table;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
    case DType::F32: return "float32";
    case DType::F64: return "float64";
    case DType::E4M3: return "float8_e4m3fn";
    case DType::E5M2: return "float8_e5m2";
    case DType::I8: return "int8";
    case DType::I32: return "int32";
    case DType::TF32: return "tf32";
  }
  return "?";
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::E4M3: case DType::E5M2: case DType::I8: return 1;
    case DType::F16: case DType::BF16: return 2;
    case DType::F32: case DType::I32: case DType::TF32: return 4;
    case DType::F64: return 8;
  }
  return 0;
}

const char* major_name(Major m) { return m == Major::K ? "K" : "MN"; }

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::Sm90Cooperative: return "sm90_cooperative";
    case Schedule::Sm90Pingpong: return "sm90_pingpong";
    case Schedule::Sm90CooperativeFp8Overlap: return "sm90_cooperative_fp8overlap";
    case Schedule::Sm90CooperativeFastAccum: return "sm90_cooperative_fastaccum";
    case Schedule::Sm90CooperativeStreamedA: return "sm90_cooperative_streamed_a";
    case Schedule::Sm90CooperativeFp8OverlapStreamedB: return "sm90_cooperative_fp8overlap_streamed_b";
    case Schedule::Sm90PingpongFp8Overlap: return "sm90_pingpong_fp8overlap";
    case Schedule::Sm100_1Sm: return "sm100_1sm";
    case Schedule::Sm100_2Sm: return "sm100_2sm";
  }
  return "?";
}

const char* scheduler_name(TileScheduler s) {
  switch (s) {
    case TileScheduler::StreamK: return "stream_k";
    case TileScheduler::TailSplit: return "tail_split";
    default: return "persistent";
  }
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::None: return "none";
    case Activation::Relu: return "relu";
    case Activation::GeluTanh: return "gelu_tanh";
    case Activation::GeluErf: return "gelu_erf";
    case Activation::Silu: return "silu";
  }
  return "?";
}

const char* epilogue_name(Epilogue e) {
  switch (e) {
    case Epilogue::Axpby: return "axpby";
    case Epilogue::Fused: return "fused";
    case Epilogue::FusedLean: return "lean";
    case Epilogue::Scale: return "scale";
  }
  return "?";
}

bool parse_activation(const std::string& name, Activation* out) {
  for (Activation a : kActivations) {
    if (name == activation_name(a)) {
      *out = a;
      return true;
    }
  }
  return false;
}

const char* decomposition_name(Decomposition d) {
  switch (d) {
    case Decomposition::Heuristic: return "heuristic";
    case Decomposition::DataParallel: return "data_parallel";
    case Decomposition::SplitK: return "split_k";
    case Decomposition::StreamK: return "stream_k";
  }
  return "?";
}

}  // namespace bw::gemm
