// Python module blackwell_ops._C: loading it registers the ops (TORCH_LIBRARY in bw_ops.cpp) and
// the compiled kernels. The functions below serve `python -m blackwell_ops.info` and the planner
// tests; models never call them.
#include <torch/csrc/Dtype.h>
#include <torch/extension.h>

#include "gemm/heuristics.hpp"
#include "gemm/registry.hpp"
#include "gemm/tile_order.hpp"
#include "ops/gemm_axpby.hpp"
#include "ops/gemm_fused.hpp"


namespace {

using namespace bw::gemm;

py::dict config_dict(const KernelConfig& k) {
  py::dict d;
  d["name"] = k.name;
  d["arch"] = k.arch;
  d["ab"] = dtype_name(k.ab);
  d["b"] = dtype_name(k.b);
  d["cd"] = dtype_name(k.cd);
  d["a_major"] = major_name(k.a_major);
  d["b_major"] = major_name(k.b_major);
  d["tile"] = py::make_tuple(k.tile_m, k.tile_n, k.tile_k);
  d["cluster"] = py::make_tuple(k.cluster_m, k.cluster_n);
  d["preferred_cluster"] = py::make_tuple(k.preferred_cluster_m, k.preferred_cluster_n);
  d["fallback_cluster"] = py::make_tuple(k.fallback_cluster_m, k.fallback_cluster_n);
  d["schedule"] = schedule_name(k.schedule);
  d["scheduler"] = scheduler_name(k.scheduler);
  d["epilogue"] = epilogue_name(k.epilogue);
  d["activation"] = activation_name(k.activation);
  d["presets"] = k.presets;
  d["swap_ab"] = k.swap_ab;
  return d;
}

DType parse_dtype(const std::string& s) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::E4M3, DType::E5M2,
                  DType::I8, DType::I32, DType::TF32}) {
    if (s == dtype_name(t)) return t;
  }
  throw py::value_error("unknown dtype name '" + s + "'");
}

Major parse_major(const std::string& s) {
  if (s == "K") return Major::K;
  if (s == "MN") return Major::MN;
  throw py::value_error("major must be 'K' or 'MN', got '" + s + "'");
}

// plan(problem, device_arch, table) -> (kernel name or None, reason).
// problem: m, n, k, l, ab, d (dtype names), optional c (dtype name; absent = no c), a_major,
// b_major, optional activation (a bw.gemm_fused problem; then optional booleans x and return_y),
// and optional per-operand {"ptr", "ld", "batch"} overrides; defaults describe
// contiguous operands at 256-byte-aligned addresses. table: "compiled" or "all".
py::tuple plan_py(py::dict problem, int device_arch, const std::string& table,
                  bool with_schedule) {
  GemmArgs g;
  g.m = problem["m"].cast<int64_t>();
  g.n = problem["n"].cast<int64_t>();
  g.k = problem["k"].cast<int64_t>();
  g.l = problem.contains("l") ? problem["l"].cast<int64_t>() : 1;
  g.ab = parse_dtype(problem["ab"].cast<std::string>());
  g.b_dtype = problem.contains("b") ? parse_dtype(problem["b"].cast<std::string>()) : g.ab;
  g.d_dtype = problem.contains("d") ? parse_dtype(problem["d"].cast<std::string>()) : g.ab;
  g.has_c = problem.contains("c");
  g.c_dtype = g.has_c ? parse_dtype(problem["c"].cast<std::string>()) : g.d_dtype;
  g.a_major = parse_major(problem.contains("a_major") ? problem["a_major"].cast<std::string>() : "K");
  g.b_major = parse_major(problem.contains("b_major") ? problem["b_major"].cast<std::string>() : "MN");
  if (problem.contains("activation")) {  // a bw.gemm_fused problem
    const std::string act = problem["activation"].cast<std::string>();
    g.epilogue = Epilogue::Fused;
    if (!parse_activation(act, &g.activation)) {
      throw py::value_error("unknown activation '" + act + "'");
    }
    g.has_x = problem.contains("x") && problem["x"].cast<bool>();
    g.has_y = problem.contains("return_y") && problem["return_y"].cast<bool>();
  }
  auto operand = [&](const char* key, int64_t rows, int64_t cols, bool row_major) {
    Operand op;
    op.ptr = reinterpret_cast<const void*>(uintptr_t{1} << 20);
    op.ld = row_major ? cols : rows;
    op.batch = rows * cols;
    if (problem.contains(key)) {
      py::dict o = problem[key].cast<py::dict>();
      if (o.contains("ptr")) op.ptr = reinterpret_cast<const void*>(o["ptr"].cast<uintptr_t>());
      if (o.contains("ld")) op.ld = o["ld"].cast<int64_t>();
      if (o.contains("batch")) op.batch = o["batch"].cast<int64_t>();
    }
    return op;
  };
  g.a = operand("a_operand", g.m, g.k, g.a_major == Major::K);
  g.b = operand("b_operand", g.k, g.n, g.b_major == Major::MN);
  g.c = operand("c_operand", g.m, g.n, true);
  g.d = operand("d_operand", g.m, g.n, true);
  if (g.has_x) g.x = g.d;
  if (g.has_y) g.y = g.d;

  std::vector<const KernelConfig*> candidates;
  if (table == "compiled") {
    for (const KernelEntry* e : compiled_kernels()) candidates.push_back(&e->config);
  } else if (table == "all") {
    for (const KernelConfig& k : kernel_table()) candidates.push_back(&k);
  } else {
    throw py::value_error("table must be 'compiled' or 'all', got '" + table + "'");
  }
  Plan p = plan(g, device_arch, candidates);
  if (p.index < 0) return py::make_tuple(py::none(), p.reason);
  if (with_schedule) {
    py::dict s;
    s["decomposition"] = decomposition_name(p.sched.decomposition);
    s["splits"] = p.sched.splits;
    s["raster"] = p.sched.raster == Raster::AlongM   ? "along_m"
                  : p.sched.raster == Raster::AlongN ? "along_n"
                                                     : "heuristic";
    s["swizzle"] = p.sched.swizzle;
    return py::make_tuple(std::string(candidates[p.index]->name), std::string(), s);
  }
  return py::make_tuple(std::string(candidates[p.index]->name), std::string());
}

std::optional<at::Tensor> optional_tensor(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<at::Tensor>();
}

std::optional<at::ScalarType> optional_dtype(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  if (!THPDtype_Check(o.ptr())) throw py::type_error("out_dtype must be a torch.dtype");
  return reinterpret_cast<THPDtype*>(o.ptr())->scalar_type;
}

std::string explain_fused_py(const at::Tensor& a, const at::Tensor& b, py::object c,
                             py::object bias, py::object x, double alpha, double beta,
                             double x_factor, const std::string& activation, bool return_y,
                             py::object out_dtype, py::object scale_a, py::object scale_b) {
  return bw::ops::explain_gemm_fused(a, b, optional_tensor(c), optional_tensor(bias),
                                     optional_tensor(x), alpha, beta, x_factor, activation,
                                     return_y, optional_dtype(out_dtype), optional_tensor(scale_a),
                                     optional_tensor(scale_b));
}

std::string explain_py(const at::Tensor& a, const at::Tensor& b, py::object c, double alpha,
                       double beta, py::object out_dtype, py::object scale_a, py::object scale_b) {
  return bw::ops::explain_gemm_axpby(a, b, optional_tensor(c), alpha, beta,
                                     optional_dtype(out_dtype), optional_tensor(scale_a),
                                     optional_tensor(scale_b));
}

// {"decomposition": "heuristic"|"data_parallel"|"split_k"|"stream_k", "splits": int,
//  "raster": "heuristic"|"along_m"|"along_n", "swizzle": int}; missing keys keep their defaults.
SchedulerArgs parse_schedule(const py::dict& o) {
  SchedulerArgs s;
  for (auto item : o) {
    const auto key = item.first.cast<std::string>();
    if (key == "decomposition") {
      const auto v = item.second.cast<std::string>();
      bool found = false;
      for (Decomposition d : {Decomposition::Heuristic, Decomposition::DataParallel,
                              Decomposition::SplitK, Decomposition::StreamK}) {
        if (v == decomposition_name(d)) { s.decomposition = d; found = true; }
      }
      if (!found) throw py::value_error("schedule['decomposition']: unknown '" + v + "'");
    } else if (key == "splits") {
      s.splits = item.second.cast<int>();
    } else if (key == "raster") {
      const auto v = item.second.cast<std::string>();
      if (v == "heuristic") s.raster = Raster::Heuristic;
      else if (v == "along_m") s.raster = Raster::AlongM;
      else if (v == "along_n") s.raster = Raster::AlongN;
      else throw py::value_error("schedule['raster']: unknown '" + v + "'");
    } else if (key == "swizzle") {
      s.swizzle = item.second.cast<int>();
    } else {
      throw py::value_error("schedule: unknown key '" + key + "'");
    }
  }
  return s;
}

py::tuple run_kernel_py(const at::Tensor& a, const at::Tensor& b, py::object c, double alpha,
                        double beta, py::object out_dtype, const std::string& kernel, bool launch,
                        py::object schedule, py::object scale_a, py::object scale_b) {
  std::optional<SchedulerArgs> sched;
  if (!schedule.is_none()) sched = parse_schedule(schedule.cast<py::dict>());
  auto [message, d] = bw::ops::run_kernel_gemm_axpby(
      a, b, optional_tensor(c), alpha, beta, optional_dtype(out_dtype), optional_tensor(scale_a),
      optional_tensor(scale_b), kernel, launch, sched ? &*sched : nullptr);
  return py::make_tuple(message, d.defined() ? py::cast(d) : py::none());
}

py::tuple run_kernel_fused_py(const at::Tensor& a, const at::Tensor& b, py::object c,
                              py::object bias, py::object x, double alpha, double beta,
                              double x_factor, const std::string& activation, bool return_y,
                              py::object out_dtype, const std::string& kernel, bool launch,
                              py::object schedule, py::object scale_a, py::object scale_b) {
  std::optional<SchedulerArgs> sched;
  if (!schedule.is_none()) sched = parse_schedule(schedule.cast<py::dict>());
  auto [message, dy] = bw::ops::run_kernel_gemm_fused(
      a, b, optional_tensor(c), optional_tensor(bias), optional_tensor(x), alpha, beta, x_factor,
      activation, return_y, optional_dtype(out_dtype), optional_tensor(scale_a),
      optional_tensor(scale_b), kernel, launch, sched ? &*sched : nullptr);
  return py::make_tuple(message, dy ? py::cast(*dy) : py::none());
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "blackwell_ops native module: registers torch.ops.bw.* and the compiled kernels";
  m.def("build_info", [] {
    py::dict d;
#ifdef BW_WITH_CUDA_KERNELS
    d["cuda_kernels"] = true;
#else
    d["cuda_kernels"] = false;
#endif
    return d;
  });
  m.def("compiled_kernels", [] {
    py::list out;
    for (const KernelEntry* e : compiled_kernels()) out.append(config_dict(e->config));
    return out;
  });
  m.def("kernel_table", [] {
    py::list out;
    for (const KernelConfig& k : kernel_table()) out.append(config_dict(k));
    return out;
  });
  m.def("explain", &explain_py, py::arg("a"), py::arg("b"), py::arg("c") = py::none(),
        py::arg("alpha") = 1.0, py::arg("beta") = 0.0, py::arg("out_dtype") = py::none(),
        py::arg("scale_a") = py::none(), py::arg("scale_b") = py::none(),
        "Which path torch.ops.bw.gemm_axpby takes for these arguments, and why.");
  m.def("explain_fused", &explain_fused_py, py::arg("a"), py::arg("b"), py::arg("c") = py::none(),
        py::arg("bias") = py::none(), py::arg("x") = py::none(), py::arg("alpha") = 1.0,
        py::arg("beta") = 0.0, py::arg("x_factor") = 1.0, py::arg("activation") = "none",
        py::arg("return_y") = false, py::arg("out_dtype") = py::none(),
        py::arg("scale_a") = py::none(), py::arg("scale_b") = py::none(),
        "Which path torch.ops.bw.gemm_fused takes for these arguments, and why.");
  m.def("pin_kernel", &bw::ops::pin_kernel, py::arg("kernel"),
        "Restrict both ops' planner to one compiled kernel by name ('' lifts it); calls that "
        "kernel does not fit take the composite. For tuning fused-epilogue kernels; process-wide.");
  m.def("split_flags_nonzero", &bw::ops::split_flags_nonzero, py::arg("like"),
        "How many of the tail-split kernels' flags of the current stream of like's device are "
        "not zero (each launch leaves them zero), or -1 where the stream has none yet. For "
        "tests.");
  m.def("captured_split_flags_state", &bw::ops::captured_split_flags_state, py::arg("like"),
        "The tail-split flags buffers of launches captured into CUDA graphs on like's device: "
        "(made, free: owned by no graph, flags not zero in the free ones). For tests.");
  m.def("graph_node_types", &bw::ops::graph_node_types, py::arg("graph"),
        "The type of each node of a CUDA graph (torch.cuda.CUDAGraph(keep_graph=True)"
        ".raw_cuda_graph()): 'kernel', 'memset', 'memcpy', 'empty' or 'other'. For tests.");
  m.def("run_kernel", &run_kernel_py, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha"),
        py::arg("beta"), py::arg("out_dtype"), py::arg("kernel"), py::arg("launch"),
        py::arg("schedule") = py::none(), py::arg("scale_a") = py::none(),
        py::arg("scale_b") = py::none(),
        "Run one named compiled kernel, bypassing the planner; launch=False runs only its host "
        "steps (a dry run, for another arch's kernels). schedule: a dict overriding the "
        "planner's run-time scheduling. Returns (message, D or None). For tests and tuning.");
  m.def("run_kernel_fused", &run_kernel_fused_py, py::arg("a"), py::arg("b"), py::arg("c"),
        py::arg("bias"), py::arg("x"), py::arg("alpha"), py::arg("beta"), py::arg("x_factor"),
        py::arg("activation"), py::arg("return_y"), py::arg("out_dtype"), py::arg("kernel"),
        py::arg("launch"), py::arg("schedule") = py::none(), py::arg("scale_a") = py::none(),
        py::arg("scale_b") = py::none(),
        "run_kernel for the fused-epilogue kernels: gemm_fused's arguments. Returns (message, "
        "(D, Y) or None); Y is an empty (0,) tensor unless return_y.");
  m.def("_warn_once", &bw::ops::warn_once, py::arg("message"),
        "The one-time warning the ops use (exposed for tests).");
  m.def("_forget_warnings", &bw::ops::forget_warnings,
        "Forget which one-time warnings were shown, so each shows again (for tests).");
  m.def("sm90_band_order",
        [](uint64_t clusters_minor, uint64_t clusters_major, int band_limit) {
          const auto order = BandOrder<PlainDivmod>::make(clusters_minor, clusters_major, band_limit);
          py::list out;
          for (uint64_t c = 0; c < clusters_minor * clusters_major; ++c) {
            uint64_t minor, major;
            order.coord(c, minor, major);
            out.append(py::make_tuple(minor, major));
          }
          return py::make_tuple(1 << order.log_band, out);
        },
        py::arg("clusters_minor"), py::arg("clusters_major"), py::arg("band_limit"),
        "The sm90 kernels' tile order (gemm/tile_order.hpp) over a grid of clusters: (rows in a "
        "band, [(minor, major) of cluster index 0, 1, ...]). For tests.");
  m.def("sm90_tail_split",
        [](uint64_t tiles, uint32_t clusters, uint32_t k_tiles, bool enable) {
          const auto split = TailSplit::make(tiles, clusters, k_tiles, enable);
          py::list runs;
          for (uint64_t g = 0; split.active() && g < clusters; ++g) {
            py::list pieces;
            for (uint64_t j = 0;; ++j) {
              const auto p = split.piece(g, j);
              if (!p.valid) break;
              pieces.append(py::make_tuple(p.tile, p.k_begin, p.k_end, p.peers, p.partial, p.slot));
            }
            runs.append(pieces);
          }
          return py::make_tuple(split.whole, split.split_tiles, split.splits, runs);
        },
        py::arg("tiles"), py::arg("clusters"), py::arg("k_tiles"), py::arg("enable") = true,
        "The sm90 tail-split scheduler's plan (gemm/tile_order.hpp, TailSplit) for `tiles` cluster "
        "tiles of `k_tiles` k-tiles on `clusters` clusters: (tiles taken whole, tiles split, "
        "k-ranges a split tile, [per cluster, after its whole tiles: [(tile, k_begin, k_end, "
        "peers, partial, slot), ...]]). For tests.");
  m.def("plan", &plan_py, py::arg("problem"), py::arg("device_arch"), py::arg("table") = "compiled",
        py::arg("with_schedule") = false,
        "The planner's choice: (kernel name or None, reason) [+ the run-time schedule dict].");
}
