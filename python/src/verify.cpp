// verify from Python: one mapping run on the RTL in a worker process of the RTL worker pool
// (rtlpool/), as `mapwright verify` runs a model from the model cache, so a crash or a hang in
// a simulation comes back as a typed result and never takes the interpreter down. The result
// holds the RTL's run (rtl_api's RtlRunResult: functional check, cycles, hardware counters,
// failure kind and message) next to the surrogate's Metrics of the same mapping.
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <string>

#include "bindings.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/protocol.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// The RTL run and the surrogate's metrics of one mapping.
struct Verification {
  rtl::RtlRunResult rtl;  ///< What the worker (or the pool) answered.
  Metrics surrogate;      ///< The surrogate's metrics of the same mapping.
};

Verification verify(const Layer& layer, const Mapping& mapping, const std::string& arch,
                    uint64_t seed, double max_seconds) {
  Verification v;
  v.surrogate = model::Surrogate().evaluate(layer, load_arch(arch), mapping);
  rtlpool::RtlJob job;
  job.arch = arch;
  job.layer = layer;
  job.mapping = mapping;
  job.seed = seed;
  if (max_seconds > 0) job.limits.max_seconds = max_seconds;
  py::gil_scoped_release release;
  rtlpool::RtlWorkerPool pool(worker_exe(), 1);
  pool.enable_model_cache(rtlpool::ModelCacheOptions{});
  if (const std::string why = pool.check_arch(arch); !why.empty())
    throw SpecError("arch", "arch", arch, why);
  v.rtl = pool.run_one(std::move(job));
  return v;
}

}  // namespace

std::string worker_exe() {
  const char* env = std::getenv("MAPWRIGHT_RTL_WORKER");
  return env && *env ? env : MAPWRIGHT_RTL_WORKER_EXE;
}

void bind_verify(py::module_& m) {
  py::class_<Verification>(m, "Verification",
                           "One mapping on the RTL (in a worker process) next to the surrogate.")
      .def_property_readonly("ok", [](const Verification& v) { return v.rtl.ok(); })
      .def_property_readonly("functional_ok",
                             [](const Verification& v) { return v.rtl.functional_ok; })
      .def_property_readonly("failure_kind",
                             [](const Verification& v) { return rtl_failure_name(v.rtl.kind); })
      .def_property_readonly("failure", [](const Verification& v) { return v.rtl.failure; })
      .def_property_readonly(
          "metrics", [](const Verification& v) { return v.rtl.metrics; },
          "The RTL's Metrics: cycles, counts and energy of the run.")
      .def_property_readonly("counts", [](const Verification& v) { return v.rtl.counts; })
      .def_property_readonly("harness", [](const Verification& v) { return v.rtl.harness; })
      .def_readonly("surrogate", &Verification::surrogate)
      .def(
          "to_dict",
          [](const Verification& v) {
            nlohmann::json j = rtlpool::result_to_json(0, v.rtl);
            j.erase("id");
            j["surrogate"] = v.surrogate.to_json();
            return to_python(j);
          },
          "The RTL result as the worker protocol writes it, with the surrogate's metrics.");
  m.def(
      "verify",
      [](const py::object& layer, const py::object& mapping, const std::string& arch, uint64_t seed,
         double max_seconds) {
        const Layer l = layer_arg(layer);
        const Mapping x = mapping_arg(mapping, l, load_arch(arch));
        return verify(l, x, arch, seed, max_seconds);
      },
      py::arg("layer"), py::arg("mapping"), py::arg("arch") = "default", py::arg("seed") = 1,
      py::arg("max_seconds") = 0.0,
      "Runs the mapping on the RTL of `arch` (a name or .yaml file; a model without a "
      "compiled-in one comes from the model cache, built first when absent) in a worker "
      "process: a failure (mismatch, watchdog, worker crash, a limit) is a typed result.");
}

}  // namespace mapwright::python
