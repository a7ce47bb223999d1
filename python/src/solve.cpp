// The searches from Python, both through the layer-search engine the CLI's `search` uses
// (flows/explore): `exact` runs the exact mapper (best mapping, proven lower bound, gap, and the
// top-K distinct mappings), `search` a sampling searcher over the layer's compact, raw or gamma
// encoding on the surrogate. The GIL is released while they run; Ctrl-C stops a sampling search
// after its batch in flight and raises KeyboardInterrupt.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/search/clustering.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// What `exact` and `search` return: the engine's LayerSearch, the seed the searcher was given
/// and the exact mapper's top-K distinct mappings.
struct SearchOutcome {
  flows::LayerSearch ls;                         ///< The engine's result.
  uint64_t seed = 0;                             ///< The searcher's seed (layer_seed).
  std::vector<std::pair<Mapping, Metrics>> top;  ///< exact: the K best, the best first.
};

/// Runs one layer search with the GIL released. `keep_going` checks for Ctrl-C after every
/// batch (with the GIL held for that moment); an interrupt raises KeyboardInterrupt.
SearchOutcome run_search(const flows::LayerSearchRequest& rq) {
  SearchOutcome out;
  out.seed = rq.seed;
  bool interrupted = false;
  flows::SearchHooks hooks;
  hooks.keep_going = [&interrupted](const search::SearchProgress&) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      interrupted = true;
    }
    return !interrupted;
  };
  if (rq.searcher == "exact")
    hooks.observe = [&out](const flows::SampleSeen& s) {
      out.top.emplace_back(*s.mapping, *s.metrics);
    };
  {
    py::gil_scoped_release release;
    out.ls = flows::search_layer(rq, hooks);
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return out;
}

/// A key of the exact mapper's record, or None for a sampling search.
py::object exact_field(const SearchOutcome& o, const char* key) {
  return o.ls.exact.is_null() ? py::none() : to_python(o.ls.exact[key]);
}

/// The record of `mapwright search`'s results.json for this layer: searcher, result, exact,
/// reward and best (mapping YAML and metrics).
py::object record(const SearchOutcome& o) {
  nlohmann::json j;
  j["searcher"] = o.ls.searcher;
  j["result"] = o.ls.result.to_json();
  if (!o.ls.exact.is_null()) j["exact"] = o.ls.exact;
  j["reward"] = o.ls.reward;
  if (o.ls.result.found)
    j["best"] = {{"mapping", mapping_to_yaml(o.ls.best)}, {"metrics", o.ls.metrics.to_json()}};
  return to_python(j);
}

/// The encoding argument: "compact", "raw" or "gamma" (ArchGym's 17 GAMMA parameters, the
/// paper's setting; `mapwright search --encoding`).
flows::Encoding encoding_arg(const std::string& encoding) {
  try {
    return flows::encoding_from_name(encoding);
  } catch (const std::invalid_argument&) {
    throw SpecError("encoding", "encoding", encoding, "expected compact, raw or gamma");
  }
}

/// The agents of the multi-agent environment as marl forms them, (names, parameter indices):
/// "per-buffer" (marl.agents: per-buffer): search::buffer_clusters of the engine's problem,
/// each agent named by its buffer group (or its one parameter); "clustered": marl's own initial
/// sample through the engine and its clustering (marl.mode of the options), as `mapwright
/// search --searcher marl --seed S` clusters a single layer, agents named agent_0, agent_1, ...
py::tuple agent_groups(const Layer& l, const Arch& a, flows::Encoding enc,
                       const std::string& agents, const Objective& obj, uint64_t seed,
                       const std::string& options_file) {
  const search::Problem p = flows::search_problem(l, a, enc);
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> clusters;
  if (agents == "per-buffer") {
    clusters = search::buffer_clusters(p).clusters;
    for (const auto& c : clusters) {
      const search::ParamSpec& first = p.params[static_cast<size_t>(c.front())];
      names.push_back(first.group.empty() ? first.name : first.group);
    }
  } else if (agents == "clustered") {
    search::SearchOptions opts = flows::load_options_or_default(options_file);
    opts.marl.agents = "clustered";
    flows::LayerSearchRequest rq{
        l, a, "marl", opts, flows::layer_seed(seed, 0), opts.marl.initial_samples, obj};
    rq.encoding = enc;
    const SearchOutcome o = run_search(rq);
    clusters = o.ls.searcher.at("clustering")
                   .at("cluster_indices")
                   .get<std::vector<std::vector<int64_t>>>();
    for (size_t i = 0; i < clusters.size(); ++i) names.push_back("agent_" + std::to_string(i));
  } else {
    throw SpecError("agents", "agents", agents, "expected per-buffer or clustered");
  }
  return py::make_tuple(names, clusters);
}

void bind_outcome(py::module_& m) {
  py::class_<SearchOutcome>(m, "SearchResult",
                            "The result of exact() or search() on one layer (read-only).")
      .def_property_readonly("found", [](const SearchOutcome& o) { return o.ls.result.found; })
      .def_property_readonly("mapping",
                             [](const SearchOutcome& o) {
                               return o.ls.result.found ? py::cast(o.ls.best) : py::none();
                             })
      .def_property_readonly("metrics",
                             [](const SearchOutcome& o) {
                               return o.ls.result.found ? py::cast(o.ls.metrics) : py::none();
                             })
      .def_property_readonly("cost",
                             [](const SearchOutcome& o) {
                               return o.ls.result.found ? py::cast(o.ls.result.best_cost)
                                                        : py::none();
                             })
      .def_property_readonly("lower_bound",
                             [](const SearchOutcome& o) { return exact_field(o, "lower_bound"); })
      .def_property_readonly("gap", [](const SearchOutcome& o) { return exact_field(o, "gap"); })
      .def_property_readonly("optimal",
                             [](const SearchOutcome& o) { return exact_field(o, "optimal"); })
      .def_property_readonly("stop", [](const SearchOutcome& o) { return exact_field(o, "stop"); })
      .def_readonly("top", &SearchOutcome::top)
      .def_readonly("seed", &SearchOutcome::seed)
      .def_property_readonly("samples", [](const SearchOutcome& o) { return o.ls.result.samples; })
      .def_property_readonly("curve",
                             [](const SearchOutcome& o) {
                               const auto& c = o.ls.result.best_so_far;
                               return py::array_t<double>(c.size(), c.data());
                             })
      .def("to_dict", &record,
           "The layer's record as `mapwright search` writes it to results.json (searcher, "
           "result, exact, reward, best).");
}

}  // namespace

void bind_solve(py::module_& m) {
  bind_outcome(m);
  m.def(
      "exact",
      [](const py::object& layer, const py::object& arch, const std::string& objective,
         double time_limit, double gap, int threads, int top_k) {
        const Layer l = layer_arg(layer);
        const Arch a = arch_arg(arch);
        const Objective obj = parse_objective(objective, "objective");
        const flows::ExactOptions ex{time_limit, gap, threads, top_k};
        flows::check_exact_options(ex);
        if (top_k < 1)
          throw SpecError("top_k", "top_k", std::to_string(top_k), "must be at least 1");
        const search::SearchOptions none;
        return run_search({l, a, "exact", none, 0, 1, obj, ex});
      },
      py::arg("layer"), py::arg("arch") = "default", py::arg("objective") = "edp",
      py::arg("time_limit") = 60.0, py::arg("gap") = 0.0, py::arg("threads") = 0,
      py::arg("top_k") = 1,
      "The exact mapper (`search --searcher exact`): the best mapping, the proven lower bound "
      "and the gap; `top` holds the top_k best distinct mappings with their metrics.");
  m.def(
      "search",
      [](const py::object& layer, const py::object& arch, const std::string& searcher,
         int64_t budget, uint64_t seed, const std::string& objective,
         const std::string& options_file, const std::string& encoding) {
        const Layer l = layer_arg(layer);
        const Arch a = arch_arg(arch);
        const Objective obj = parse_objective(objective, "objective");
        flows::require_searcher_kind(searcher, "searcher");
        if (searcher == "exact")
          throw SpecError("searcher", "searcher", searcher, "use mapwright.exact()");
        if (budget < 1)
          throw SpecError("budget", "budget", std::to_string(budget), "must be at least 1");
        const flows::Encoding enc = encoding_arg(encoding);
        const search::SearchOptions opts = flows::load_options_or_default(options_file);
        flows::LayerSearchRequest rq{l, a, searcher, opts, flows::layer_seed(seed, 0), budget, obj};
        rq.encoding = enc;
        return run_search(rq);
      },
      py::arg("layer"), py::arg("arch") = "default", py::arg("searcher") = "marl",
      py::arg("budget") = 1000, py::arg("seed") = 1, py::arg("objective") = "edp",
      py::arg("options_file") = "", py::arg("encoding") = "compact",
      "A sampling searcher on the surrogate, as `mapwright search --layer L --searcher S "
      "--budget B --seed N` searches the layer (its searcher seed is the CLI's for layer 0).");
  m.def(
      "agent_groups",
      [](const py::object& layer, const py::object& arch, const std::string& encoding,
         const std::string& agents, const std::string& objective, uint64_t seed,
         const std::string& options_file) {
        const Layer l = layer_arg(layer);
        const Arch a = arch_arg(arch);
        const flows::Encoding enc = encoding_arg(encoding);
        return agent_groups(l, a, enc, agents, parse_objective(objective, "objective"), seed,
                            options_file);
      },
      py::arg("layer"), py::arg("arch") = "default", py::arg("encoding") = "compact",
      py::arg("agents") = "per-buffer", py::arg("objective") = "edp", py::arg("seed") = 1,
      py::arg("options_file") = "",
      "The parameters of the encoding grouped into agents as the marl searcher groups them: "
      "(agent names, parameter indices per agent).");
  m.def("searcher_kinds", &flows::all_searcher_kinds,
        "The searcher kinds: the sampling searchers and 'exact'.");
}

}  // namespace mapwright::python
