// The specs as Python types (Layer, Network, Arch, Mapping: read-only views of the C++ structs)
// and their loaders: layers and networks as the CLI's --layer and --network take them (inline,
// zoo, YAML, ONNX), architectures by name or file, mappings from dicts, YAML text or files.
// Every loader is the library's parser, so a bad input raises mapwright.Error with the CLI's
// message (the argument's name where the CLI names its flag).
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/frontend/onnx_import.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// A YAML node (of a mapping's YAML) as a Python object: maps, lists, booleans, integers, text.
py::object yaml_to_python(const YAML::Node& n) {
  if (n.IsMap()) {
    py::dict d;
    for (const auto& kv : n) d[py::str(kv.first.Scalar())] = yaml_to_python(kv.second);
    return std::move(d);
  }
  if (n.IsSequence()) {
    py::list l;
    for (const auto& e : n) l.append(yaml_to_python(e));
    return std::move(l);
  }
  const std::string s = n.Scalar();
  if (n.Tag() != "!") {  // plain scalars only: a quoted one stays text
    if (s == "true" || s == "false") return py::bool_(s == "true");
    long long v = 0;
    if (YAML::convert<long long>::decode(n, v)) return py::int_(v);
  }
  return py::str(s);
}

/// A Python dict as the JSON value nlohmann reads (through Python's json module).
nlohmann::json json_of(const py::handle& d) {
  const py::object dumps = py::module_::import("json").attr("dumps");
  const py::object convert = py::module_::import("mapwright._convert").attr("json_default");
  return nlohmann::json::parse(dumps(d, py::arg("default") = convert).cast<std::string>());
}

void bind_layer(py::module_& m) {
  py::class_<Layer>(m, "Layer", "One DNN layer in the 7-loop form (read-only).")
      .def_readonly("name", &Layer::name)
      .def_property_readonly("kind", [](const Layer& l) { return layer_kind_name(l.kind); })
      .def_readonly("n", &Layer::n)
      .def_readonly("g", &Layer::g)
      .def_readonly("k", &Layer::k)
      .def_readonly("c", &Layer::c)
      .def_readonly("h", &Layer::h)
      .def_readonly("w", &Layer::w)
      .def_readonly("r", &Layer::r)
      .def_readonly("s", &Layer::s)
      .def_readonly("stride", &Layer::stride)
      .def_readonly("pad", &Layer::pad)
      .def_readonly("p", &Layer::p)
      .def_readonly("q", &Layer::q)
      .def_property_readonly("macs", &Layer::macs)
      .def("describe", &Layer::describe, "One-line description of the shape.")
      .def(
          "to_dict", [](const Layer& l) { return to_python(layer_to_json(l)); },
          "The layer's JSON form (as in results.json and `eval --json`).")
      .def_static(
          "from_dict", [](const py::dict& d) { return layer_from_json(json_of(d), "layer"); },
          py::arg("d"), "A layer from its to_dict() form, validated.")
      .def("__repr__",
           [](const Layer& l) { return "<mapwright.Layer " + l.name + ": " + l.describe() + ">"; });
  m.def(
      "layer", [](const std::string& text) { return parse_layer_arg(text, "layer"); },
      py::arg("text"),
      "A layer as --layer takes it: 'conv:K=64,C=64,H=56,W=56,R=3,S=3,pad=1', a zoo reference "
      "'resnet50:layer3.0.conv2', a layer .yaml file or 'model.onnx:NODE'.");
}

void bind_network(py::module_& m) {
  py::class_<Network>(m, "Network", "An ordered list of layers (read-only).")
      .def_readonly("name", &Network::name)
      .def_readonly("description", &Network::description)
      .def_readonly("layers", &Network::layers)
      .def_readonly("skipped", &Network::skipped)
      .def_readonly("warnings", &Network::warnings)
      .def_property_readonly("total_macs", &Network::total_macs)
      .def("unique_layers", &Network::unique_layers,
           "Unique layer shapes in first-seen order, each with how many times it occurs.")
      .def("__len__", [](const Network& n) { return n.layers.size(); })
      .def("__repr__", [](const Network& n) {
        return "<mapwright.Network " + n.name + ": " + std::to_string(n.layers.size()) + " layers>";
      });
  m.def(
      "network",
      [](const std::string& arg, const std::vector<std::string>& input_shapes, bool strict) {
        return parse_network_arg(arg, "network", make_onnx_options(input_shapes, strict));
      },
      py::arg("arg"), py::arg("input_shapes") = std::vector<std::string>{},
      py::arg("strict") = false,
      "A network as --network takes it: a zoo name, a network .yaml file or an ONNX file "
      "(input_shapes: ['NAME=D0xD1x...'] as --input-shape; strict: an unsupported compute op "
      "is an error).");
  m.def("zoo_names", &zoo_names, "Names of the built-in networks.");
}

void bind_arch(py::module_& m) {
  py::class_<Arch>(m, "Arch", "An accelerator architecture (read-only).")
      .def_readonly("name", &Arch::name)
      .def_readonly("rows", &Arch::rows)
      .def_readonly("cols", &Arch::cols)
      .def_property_readonly("dataflows",
                             [](const Arch& a) {
                               std::vector<std::string> out;
                               for (Dataflow d : a.dataflows) out.push_back(dataflow_name(d));
                               return out;
                             })
      .def_readonly("input_buf_bytes", &Arch::input_buf_bytes)
      .def_readonly("weight_buf_bytes", &Arch::weight_buf_bytes)
      .def_readonly("accum_buf_bytes", &Arch::accum_buf_bytes)
      .def_readonly("buffer_banks", &Arch::buffer_banks)
      .def_readonly("dram_bytes_per_cycle", &Arch::dram_bytes_per_cycle)
      .def_readonly("dram_latency_cycles", &Arch::dram_latency_cycles)
      .def_property_readonly("dram_port", [](const Arch& a) { return dram_port_name(a.dram_port); })
      .def_readonly("clock_mhz", &Arch::clock_mhz)
      .def("__repr__", [](const Arch& a) {
        return "<mapwright.Arch " + a.name + ": " + std::to_string(a.rows) + "x" +
               std::to_string(a.cols) + ">";
      });
  m.def(
      "arch", [](const std::string& name) { return load_arch(name); }, py::arg("name") = "default",
      "An architecture by name (configs/arch) or .yaml file.");
  m.def("arch_names", &arch_names, "Names of the architectures in configs/arch.");
}

void bind_mapping(py::module_& m) {
  py::class_<Mapping>(m, "Mapping", "A mapping of one layer onto the array (read-only).")
      .def_property_readonly("dataflow", [](const Mapping& x) { return dataflow_name(x.dataflow); })
      .def_property_readonly("tiles",
                             [](const Mapping& x) {
                               py::dict d;
                               for (int i = 0; i < kNumDims; ++i)
                                 d[dim_name(static_cast<Dim>(i))] = x.tile[i];
                               return d;
                             })
      .def_property_readonly("order",
                             [](const Mapping& x) {
                               std::vector<std::string> out;
                               for (Dim d : x.order) out.push_back(dim_name(d));
                               return out;
                             })
      .def_property_readonly("fold_order",
                             [](const Mapping& x) { return fold_order_name(x.fold_order); })
      .def_readonly("pe_rows", &Mapping::pe_rows)
      .def_readonly("pe_cols", &Mapping::pe_cols)
      .def_readonly("db_input", &Mapping::db_input)
      .def_readonly("db_weight", &Mapping::db_weight)
      .def_readonly("db_accum", &Mapping::db_accum)
      .def("to_yaml", &mapping_to_yaml, "The mapping YAML (what `eval --mapping` reads).")
      .def(
          "to_dict",
          [](const Mapping& x) { return yaml_to_python(YAML::Load(mapping_to_yaml(x))); },
          "The mapping YAML's content as a dict (mapping() reads it back).")
      .def(py::self == py::self)
      .def("__repr__",
           [](const Mapping& x) { return "<mapwright.Mapping\n" + mapping_to_yaml(x) + ">"; });
  m.def(
      "mapping",
      [](const py::object& spec, const py::object& layer, const py::object& arch) {
        if (layer.is_none() != arch.is_none())
          throw SpecError("mapping", layer.is_none() ? "layer" : "arch", "None",
                          "give both the layer and the architecture to check the mapping, or "
                          "neither");
        if (!layer.is_none()) return mapping_arg(spec, layer_arg(layer), arch_arg(arch));
        std::string at;
        return parse_mapping(spec, "mapping", &at);
      },
      py::arg("spec"), py::arg("layer") = py::none(), py::arg("arch") = py::none(),
      "A mapping from a dict (the mapping YAML's keys), YAML text or a .yaml file; checked "
      "against the layer and architecture when they are given, as `eval` checks it.");
  m.def(
      "default_mapping",
      [](const py::object& layer, const py::object& arch) {
        return default_mapping(layer_arg(layer), arch_arg(arch));
      },
      py::arg("layer"), py::arg("arch") = "default",
      "The greedy default mapping (`eval --mapping default`).");
}

}  // namespace

void bind_specs(py::module_& m) {
  bind_layer(m);
  bind_network(m);
  bind_arch(m);
  bind_mapping(m);
}

}  // namespace mapwright::python
