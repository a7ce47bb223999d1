// Conversions between the libraries' data and Python objects: nlohmann JSON values (the
// libraries' records: metrics, search results) to Python, and the arguments that name a layer,
// an architecture or a mapping to the C++ specs, always through the libraries' own parsers.
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;

namespace mapwright::python {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& e : j) out.append(to_python(e));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return std::move(out);
    }
    default:  // binary and discarded values: the libraries never write them
      return py::none();
  }
}

core::Layer layer_arg(const py::handle& h) {
  if (py::isinstance<core::Layer>(h)) return h.cast<core::Layer>();
  if (!py::isinstance<py::str>(h))
    throw core::SpecError("layer", "layer", py::str(py::repr(h)),
                          "expected a Layer or a layer text (inline, NETWORK:LAYER, a .yaml "
                          "file or FILE.onnx:NODE)");
  return core::parse_layer_arg(h.cast<std::string>(), "layer");
}

core::Arch arch_arg(const py::handle& h) {
  if (py::isinstance<core::Arch>(h)) return h.cast<core::Arch>();
  if (!py::isinstance<py::str>(h))
    throw core::SpecError("arch", "arch", py::str(py::repr(h)),
                          "expected an Arch, an architecture name or a .yaml file");
  return core::load_arch(h.cast<std::string>());
}

namespace {

/// The text of a mapping given as a dict: JSON (a subset of YAML), written by Python's json
/// module; NumPy scalars become their Python values, anything else its repr (which the mapping
/// parser then refuses naming the key).
std::string dict_text(const py::handle& d) {
  const py::object json = py::module_::import("json");
  const py::object convert = py::module_::import("mapwright._convert").attr("json_default");
  return json.attr("dumps")(d, py::arg("default") = convert).cast<std::string>();
}

}  // namespace

core::Mapping parse_mapping(const py::handle& h, const std::string& where, std::string* at) {
  *at = where;
  if (py::isinstance<core::Mapping>(h)) return h.cast<core::Mapping>();
  if (py::isinstance<py::dict>(h)) return core::mapping_from_yaml(dict_text(h), where);
  if (!py::isinstance<py::str>(h))
    throw core::SpecError(where, "mapping", py::str(py::repr(h)),
                          "expected a Mapping, a dict, mapping YAML text or a .yaml file");
  // A path has neither a line break nor a colon; YAML text of a mapping has both or a colon.
  const std::string text = h.cast<std::string>();
  if (text.find('\n') != std::string::npos || text.find(':') != std::string::npos)
    return core::mapping_from_yaml(text, where);
  *at = text;
  return core::load_mapping_file(text);
}

core::Mapping mapping_arg(const py::handle& h, const core::Layer& layer, const core::Arch& arch,
                          const std::string& where) {
  std::string at;
  const core::Mapping m = parse_mapping(h, where, &at);
  core::check_mapping(m, layer, arch, at);
  return m;
}

}  // namespace mapwright::python
