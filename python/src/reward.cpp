// The reward of the Python environment (mapwright.env): one mapping at a time, scored by the
// evaluator of the layer-search engine (flows/explore) that `mapwright search --reward ...`
// uses. With the surrogate, the analytical model; with the RTL reward, the surrogate for the
// first `surrogate_warmup` distinct mappings and the Verilated RTL (in a worker process of one
// RTL worker pool that lives as long as the object) for every later mapping the surrogate
// accepts, so a crash, a hang or a mismatch in a simulation is a typed invalid outcome. As in
// the engine, a mapping seen before is answered from a cache (and is no new sample); the
// surrogate reward keeps no cache (its answer does not depend on the sample).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// What the RTL reward is asked for (see flows::RtlRewardOptions).
struct RewardSettings {
  bool rtl = false;               ///< The RTL reward (else the surrogate).
  int64_t surrogate_warmup = 0;   ///< Distinct mappings scored by the surrogate first.
  uint64_t seed = 1;              ///< The search seed the RTL operand seeds derive from.
  double max_seconds = 0;         ///< Wall-clock limit of one simulation (0 = the default).
  long long watchdog_cycles = 0;  ///< Watchdog bound per run (0 = automatic).
};

/// One layer's reward: the engine's evaluator on its own request, options and (RTL) pool. The
/// request refers to the members, so the object never moves (pybind11 holds it by pointer).
class Reward {
 public:
  Reward(Layer layer, Arch arch, const std::string& arch_arg, Objective objective,
         const RewardSettings& s)
      : layer_(std::move(layer)),
        arch_(std::move(arch)),
        objective_(std::move(objective)),
        request_{layer_, arch_, "env", options_, s.seed, 0, objective_},
        rtl_(s.rtl) {
    flows::RtlRewardOptions ro;
    ro.surrogate_warmup = s.surrogate_warmup;
    ro.jobs = 1;
    ro.watchdog_cycles = s.watchdog_cycles;
    if (s.max_seconds > 0) ro.limits.max_seconds = s.max_seconds;
    ro.arch = arch_arg;
    if (rtl_) {
      py::gil_scoped_release release;  // the probe may build the model first
      pool_ = flows::rtl_reward_pool(arch_arg, worker_exe(), 1);
    }
    evaluator_ = flows::reward_evaluator(request_, ro, pool_.get());
  }

  /// The score of `m` as a dict: valid, cost (inf when invalid), reason, failure_class,
  /// source ("surrogate" or "rtl"), sample, repeat, surrogate (Metrics), rtl (Metrics or None)
  /// and, for an RTL-scored mapping, operand_seed and failure_kind ("none" when it ran clean).
  py::dict score(const Mapping& m) {
    if (!evaluator_) throw SpecError("env", "closed", "true", "the environment was closed");
    const std::string key = rtl_ ? mapping_to_yaml(m) : std::string();
    if (rtl_) {
      if (const auto it = seen_.find(key); it != seen_.end()) {
        py::dict again = it->second.attr("copy")();
        again["repeat"] = true;
        return again;
      }
    }
    const int64_t sample = next_sample_++;
    std::vector<flows::Scored> scored;
    {
      py::gil_scoped_release release;
      scored = evaluator_->evaluate({flows::FreshSample{sample, &m}});
    }
    py::dict d = to_dict(scored.at(0), sample);
    if (rtl_) seen_.emplace(key, d);
    return d;
  }

  /// Stops the RTL workers; later calls of score() raise.
  void close() {
    evaluator_.reset();
    py::gil_scoped_release release;
    pool_.reset();
  }

 private:
  py::dict to_dict(const flows::Scored& s, int64_t sample) const {
    const search::Outcome& oc = s.outcome;
    const bool from_rtl = s.rtl.has_value() || oc.failure_class.rfind("rtl:", 0) == 0;
    py::dict d;
    d["valid"] = oc.valid;
    d["cost"] = oc.valid ? oc.cost : std::numeric_limits<double>::infinity();
    d["reason"] = oc.reason;
    d["failure_class"] = oc.failure_class;
    d["source"] = from_rtl ? "rtl" : "surrogate";
    d["sample"] = sample;
    d["repeat"] = false;
    d["surrogate"] = s.surrogate;
    d["rtl"] = s.rtl ? py::cast(*s.rtl) : py::none();
    if (from_rtl) {
      d["operand_seed"] = flows::rtl_operand_seed(request_.seed, sample);
      d["failure_kind"] = oc.valid ? std::string("none") : oc.failure_class.substr(4);
    }
    return d;
  }

  const Layer layer_;                        ///< The layer.
  const Arch arch_;                          ///< Its architecture.
  const Objective objective_;                ///< Cost of a mapping's metrics.
  const search::SearchOptions options_{};    ///< Unused by the evaluators; the request needs one.
  const flows::LayerSearchRequest request_;  ///< What the evaluator serves.
  const bool rtl_;                           ///< The RTL reward.
  std::unique_ptr<rtlpool::RtlWorkerPool> pool_;      ///< The RTL workers (RTL reward only).
  std::unique_ptr<flows::BatchEvaluator> evaluator_;  ///< The engine's evaluator.
  int64_t next_sample_ = 0;                           ///< Distinct mappings so far.
  std::map<std::string, py::dict> seen_;              ///< RTL reward: scores by mapping YAML.
};

}  // namespace

void bind_reward(py::module_& m) {
  py::class_<Reward>(m, "Reward",
                     "The environment's reward: the engine's surrogate or RTL reward for one "
                     "mapping at a time (see mapwright.env.MappingEnv).")
      .def(
          py::init([](const py::object& layer, const py::object& arch, const std::string& objective,
                      const std::string& source, int64_t surrogate_warmup, uint64_t seed,
                      double max_seconds, long long watchdog_cycles) {
            if (source != "surrogate" && source != "rtl")
              throw SpecError("reward_source", "reward_source", source,
                              "expected surrogate or rtl");
            if (source == "rtl" && !py::isinstance<py::str>(arch))
              throw SpecError("arch", "arch", py::str(arch),
                              "the RTL reward takes the architecture's name or YAML file");
            if (surrogate_warmup < 0)
              throw SpecError("surrogate_warmup", "surrogate_warmup",
                              std::to_string(surrogate_warmup), "must be >= 0");
            if (max_seconds < 0)
              throw SpecError("max_seconds", "max_seconds", std::to_string(max_seconds),
                              "must be >= 0");
            const RewardSettings s{source == "rtl", surrogate_warmup, seed, max_seconds,
                                   watchdog_cycles};
            Arch a = arch_arg(arch);
            const std::string name =
                py::isinstance<py::str>(arch) ? arch.cast<std::string>() : a.name;
            return std::make_unique<Reward>(layer_arg(layer), std::move(a), name,
                                            parse_objective(objective, "objective"), s);
          }),
          py::arg("layer"), py::arg("arch") = "default", py::arg("objective") = "edp",
          py::arg("source") = "surrogate", py::arg("surrogate_warmup") = 0, py::arg("seed") = 1,
          py::arg("max_seconds") = 0.0, py::arg("watchdog_cycles") = 0)
      .def("score", &Reward::score, py::arg("mapping"),
           "Scores one mapping (a dict: valid, cost, reason, failure_class, source, sample, "
           "repeat, surrogate, rtl, and for RTL-scored mappings operand_seed and failure_kind).")
      .def("close", &Reward::close, "Stops the RTL workers.");
}

}  // namespace mapwright::python
