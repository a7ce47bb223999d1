// Evaluation from Python: the surrogate's Metrics (with the exact access counts) of one mapping,
// and a layer's map space in either search encoding (mapspace/: the compact SearchSpace or the
// raw MapSpace) with its parameters' bounds, decode and encode, and the batch form: a NumPy
// array of encoded mappings decoded and scored by the surrogate with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"
#include "mapwright/core/objective.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapspace/search_space.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// Names of the access counts, in AccessCounts::fields() order.
std::vector<std::string> count_names() {
  std::vector<std::string> out;
  for (const auto& [name, value] : AccessCounts{}.fields()) out.push_back(name);
  return out;
}

void bind_metrics(py::module_& m) {
  py::class_<AccessCounts> counts(m, "AccessCounts", "Exact access counts of one mapping.");
  const std::vector<std::string> names = count_names();
  for (size_t i = 0; i < names.size(); ++i)
    counts.def_property_readonly(names[i].c_str(),
                                 [i](const AccessCounts& c) { return c.fields()[i].second; });
  counts.def_property_readonly("dram_bytes", &AccessCounts::dram_bytes)
      .def("to_dict", [](const AccessCounts& c) { return to_python(counts_to_json(c)); })
      .def("__eq__", [](const AccessCounts& a, const AccessCounts& b) { return a == b; });
  py::class_<EnergyBreakdown>(m, "EnergyBreakdown", "Energy by component, picojoules.")
      .def_readonly("mac", &EnergyBreakdown::mac)
      .def_readonly("input_buf", &EnergyBreakdown::input_buf)
      .def_readonly("weight_buf", &EnergyBreakdown::weight_buf)
      .def_readonly("accum_buf", &EnergyBreakdown::accum_buf)
      .def_readonly("dram", &EnergyBreakdown::dram)
      .def_readonly("pe_static", &EnergyBreakdown::pe_static)
      .def_property_readonly("total", &EnergyBreakdown::total);
  py::class_<Metrics>(m, "Metrics",
                      "The surrogate's result for one mapping; an invalid mapping (a tile that "
                      "does not fit) is a result with `valid` False and a `reason`.")
      .def_readonly("valid", &Metrics::valid)
      .def_property_readonly("invalid",
                             [](const Metrics& x) { return invalid_kind_name(x.invalid); })
      .def_readonly("reason", &Metrics::reason)
      .def_readonly("cycles", &Metrics::cycles)
      .def_readonly("compute_cycles", &Metrics::compute_cycles)
      .def_readonly("dma_cycles", &Metrics::dma_cycles)
      .def_readonly("energy_pj", &Metrics::energy_pj)
      .def_readonly("energy", &Metrics::energy)
      .def_readonly("edp", &Metrics::edp)
      .def_readonly("utilization", &Metrics::utilization)
      .def_readonly("counts", &Metrics::counts)
      .def(
          "to_dict", [](const Metrics& x) { return to_python(x.to_json()); },
          "The metrics' JSON form (the fields of `mapwright eval --json`).")
      .def("__repr__", [](const Metrics& x) {
        return x.valid ? "<mapwright.Metrics cycles=" + std::to_string(x.cycles) +
                             " energy_pj=" + std::to_string(x.energy_pj) + ">"
                       : "<mapwright.Metrics invalid: " + x.reason + ">";
      });
}

/// A layer's map space in one of the two encodings.
class Space {
 public:
  Space(const Layer& layer, const Arch& arch, const std::string& encoding) {
    if (encoding == "compact")
      space_ = std::make_shared<const SearchSpace>(layer, arch);
    else if (encoding == "raw")
      space_ = std::make_shared<const MapSpace>(layer, arch);
    else
      throw SpecError("encoding", "encoding", encoding, "expected compact or raw");
  }
  /// "compact" or "raw".
  std::string encoding() const { return raw() ? "raw" : "compact"; }
  /// The parameters in vector order.
  const std::vector<ParamInfo>& params() const {
    return std::visit([](const auto& s) -> const std::vector<ParamInfo>& { return s->params(); },
                      space_);
  }
  const Layer& layer() const {
    return std::visit([](const auto& s) -> const Layer& { return s->layer(); }, space_);
  }
  const Arch& arch() const {
    return std::visit([](const auto& s) -> const Arch& { return s->arch(); }, space_);
  }
  double log10_size() const {
    return std::visit([](const auto& s) { return s->log10_size(); }, space_);
  }
  Mapping decode(const ParamVector& v) const {
    return std::visit([&v](const auto& s) { return s->decode(v); }, space_);
  }
  ParamVector encode(const Mapping& m) const {
    return std::visit([&m](const auto& s) { return s->encode(m); }, space_);
  }

 private:
  bool raw() const { return std::holds_alternative<std::shared_ptr<const MapSpace>>(space_); }
  /// The encoding's space (shared: the object is immutable).
  std::variant<std::shared_ptr<const SearchSpace>, std::shared_ptr<const MapSpace>> space_;
};

/// The rows of a batch as an int64 C-contiguous (n, params) array; refuses a non-integer array,
/// a wrong shape and a value outside its parameter's domain, naming the row, the parameter and
/// the value.
py::array_t<int64_t> checked_codes(const Space& space, const py::array& codes) {
  const char kind = codes.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw SpecError("codes", "dtype", py::str(codes.dtype()).cast<std::string>(),
                    "expected an integer array of encoded mappings");
  const auto& params = space.params();
  const ssize_t width = codes.ndim() == 1   ? codes.shape(0)
                        : codes.ndim() == 2 ? codes.shape(1)
                                            : -1;
  if (width != static_cast<ssize_t>(params.size()))
    throw SpecError("codes", "shape", py::str(codes.attr("shape")),
                    "expected (n, " + std::to_string(params.size()) + "): one row per mapping, " +
                        "one column per parameter");
  using Codes = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
  const Codes a(codes.ndim() == 1 ? py::array(codes).reshape({ssize_t{1}, width}) : codes);
  const auto r = a.unchecked<2>();
  for (ssize_t i = 0; i < r.shape(0); ++i)
    for (ssize_t p = 0; p < r.shape(1); ++p)
      if (r(i, p) < 0 || r(i, p) >= params[p].cardinality)
        throw SpecError(
            "codes", "[" + std::to_string(i) + "]." + params[p].name, std::to_string(r(i, p)),
            "outside the parameter's domain 0.." + std::to_string(params[p].cardinality - 1));
  return a;
}

/// The columns of a batch evaluation (NumPy arrays, one entry per row).
struct BatchColumns {
  explicit BatchColumns(ssize_t n, size_t n_counts)
      : valid(n),
        invalid(n),
        cycles(n),
        energy_pj(n),
        edp(n),
        utilization(n),
        cost(n),
        counts({n, static_cast<ssize_t>(n_counts)}) {}
  py::array_t<bool> valid;          ///< The mapping fits (and is servable).
  py::array_t<int8_t> invalid;      ///< core::InvalidKind as a number (0 = valid).
  py::array_t<int64_t> cycles;      ///< End-to-end cycles.
  py::array_t<double> energy_pj;    ///< Energy.
  py::array_t<double> edp;          ///< Energy-delay product.
  py::array_t<double> utilization;  ///< MAC utilization.
  py::array_t<double> cost;         ///< The objective (+inf when invalid).
  py::array_t<int64_t> counts;      ///< Access counts, AccessCounts::fields() order.
};

/// Decodes and scores every row of `codes` with the GIL released (one core).
py::dict evaluate_batch(const Space& space, const py::array& codes, const std::string& objective,
                        bool with_counts) {
  const Objective obj = parse_objective(objective, "objective");
  const py::array_t<int64_t> a = checked_codes(space, codes);
  const ssize_t n = a.shape(0), width = a.shape(1);
  const size_t n_counts = with_counts ? count_names().size() : 0;
  BatchColumns col(n, n_counts);
  {
    const int64_t* in = a.data();
    bool* valid = col.valid.mutable_data();
    int8_t* invalid = col.invalid.mutable_data();
    int64_t* cycles = col.cycles.mutable_data();
    double* energy = col.energy_pj.mutable_data();
    double* edp = col.edp.mutable_data();
    double* util = col.utilization.mutable_data();
    double* cost = col.cost.mutable_data();
    int64_t* counts = col.counts.mutable_data();
    py::gil_scoped_release release;
    model::Surrogate surrogate;
    ParamVector v(width);
    for (ssize_t i = 0; i < n; ++i) {
      v.assign(in + i * width, in + (i + 1) * width);
      const Metrics r = surrogate.evaluate(space.layer(), space.arch(), space.decode(v));
      valid[i] = r.valid;
      invalid[i] = static_cast<int8_t>(r.invalid);
      cycles[i] = r.cycles;
      energy[i] = r.energy_pj;
      edp[i] = r.edp;
      util[i] = r.utilization;
      cost[i] = r.valid ? obj.cost(r) : std::numeric_limits<double>::infinity();
      if (with_counts) {
        const auto fields = r.counts.fields();
        for (size_t c = 0; c < n_counts; ++c) counts[i * n_counts + c] = fields[c].second;
      }
    }
  }
  py::dict out;
  const std::pair<const char*, py::array> columns[] = {
      {"valid", col.valid},   {"invalid", col.invalid},
      {"cycles", col.cycles}, {"energy_pj", col.energy_pj},
      {"edp", col.edp},       {"utilization", col.utilization},
      {"cost", col.cost}};
  for (const auto& [name, column] : columns) out[name] = column;
  if (with_counts) {
    out["counts"] = col.counts;
    out["count_names"] = count_names();
  }
  return out;
}

const char* kBatchDoc =
    "Decodes and scores every row of `codes` (an integer NumPy array, one row per mapping, one "
    "column per parameter) with the surrogate, the GIL released. Returns a dict of NumPy arrays: "
    "valid, invalid (the InvalidKind number, 0 when valid), cycles, energy_pj, edp, "
    "utilization, cost (the objective, inf when invalid) and with counts=True counts (n x 19, "
    "columns named by count_names).";

void bind_space(py::module_& m) {
  py::class_<Space>(m, "Space",
                    "The map space of a layer on an architecture in a search encoding: "
                    "'compact' (mapspace/search_space.hpp: every decoded point fits) or 'raw' "
                    "(mapspace/mapspace.hpp: the 16 raw parameters).")
      .def(py::init([](const py::object& layer, const py::object& arch, const std::string& enc) {
             return Space(layer_arg(layer), arch_arg(arch), enc);
           }),
           py::arg("layer"), py::arg("arch") = "default", py::arg("encoding") = "compact")
      .def_property_readonly("encoding", &Space::encoding)
      .def_property_readonly("layer", &Space::layer)
      .def_property_readonly("arch", &Space::arch)
      .def_property_readonly("log10_size", &Space::log10_size)
      .def_property_readonly("names",
                             [](const Space& s) {
                               std::vector<std::string> out;
                               for (const auto& p : s.params()) out.push_back(p.name);
                               return out;
                             })
      .def_property_readonly("cardinalities",
                             [](const Space& s) {
                               std::vector<int64_t> out;
                               for (const auto& p : s.params()) out.push_back(p.cardinality);
                               return py::array_t<int64_t>(out.size(), out.data());
                             })
      .def_property_readonly("bounds",
                             [](const Space& s) {
                               std::vector<std::pair<int64_t, int64_t>> out;
                               for (const auto& p : s.params())
                                 out.emplace_back(0, p.cardinality - 1);
                               return out;
                             })
      .def_property_readonly("ordinal",
                             [](const Space& s) {
                               std::vector<bool> out;
                               for (const auto& p : s.params()) out.push_back(p.ordinal);
                               return out;
                             })
      .def("__len__", [](const Space& s) { return s.params().size(); })
      .def(
          "decode",
          [](const Space& s, const py::array& code) {
            if (code.ndim() != 1)
              throw SpecError("code", "shape", py::str(code.attr("shape")),
                              "expected one encoded mapping (a 1-D array)");
            const auto a = checked_codes(s, code);
            return s.decode(ParamVector(a.data(), a.data() + a.shape(1)));
          },
          py::arg("code"), "The mapping of one encoded vector.")
      .def(
          "encode",
          [](const Space& s, const py::object& mapping) {
            const ParamVector v = s.encode(mapping_arg(mapping, s.layer(), s.arch()));
            const std::vector<int64_t> out(v.begin(), v.end());
            return py::array_t<int64_t>(out.size(), out.data());
          },
          py::arg("mapping"), "The encoded vector of a mapping (see mapspace/ for the rules).")
      .def("evaluate_batch", &evaluate_batch, py::arg("codes"), py::arg("objective") = "edp",
           py::arg("counts") = false, kBatchDoc);
  m.def("count_names", &count_names, "Names of the access counts, in the batch form's order.");
}

}  // namespace

void bind_evaluate(py::module_& m) {
  bind_metrics(m);
  py::class_<Objective>(m, "Objective", "What a search minimizes: cycles^latency * energy^energy.")
      .def(py::init([](const std::string& text) { return parse_objective(text, "objective"); }),
           py::arg("text") = "edp",
           "Parses 'edp', 'latency', 'energy' or 'mix:latency=W,energy=W' as --objective does.")
      .def_readonly("name", &Objective::name)
      .def_readonly("latency", &Objective::latency)
      .def_readonly("energy", &Objective::energy)
      .def("cost", py::overload_cast<const Metrics&>(&Objective::cost, py::const_),
           py::arg("metrics"), "The cost of valid metrics.");
  bind_space(m);
  m.def(
      "evaluate",
      [](const py::object& layer, const py::object& mapping, const py::object& arch) {
        const Layer l = layer_arg(layer);
        const Arch a = arch_arg(arch);
        const Mapping x = mapping_arg(mapping, l, a);
        return model::Surrogate().evaluate(l, a, x);
      },
      py::arg("layer"), py::arg("mapping"), py::arg("arch") = "default",
      "The surrogate's Metrics of one mapping (what `mapwright eval` prints).");
  m.def(
      "refined_cycles",
      [](const py::object& layer, const py::object& mapping, const py::object& arch) {
        const Layer l = layer_arg(layer);
        const Arch a = arch_arg(arch);
        return model::refined_cycles(l, a, mapping_arg(mapping, l, a)).cycles;
      },
      py::arg("layer"), py::arg("mapping"), py::arg("arch") = "default",
      "The refined cycle estimate (`eval --json`'s refined_cycles; docs/timing.md).");
}

}  // namespace mapwright::python
