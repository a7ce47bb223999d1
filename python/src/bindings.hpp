#pragma once
/// \file bindings.hpp
/// What the binding sources of the Python module share: one registration function per source
/// file, the conversions between nlohmann JSON and Python objects, and how a Python argument
/// becomes a layer, an architecture or a mapping (each through the C++ parsers, so errors carry
/// the CLI's messages).

#include <pybind11/pybind11.h>

#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::python {

/// Registers the exception types and their translators (errors.cpp).
void bind_errors(pybind11::module_& m);
/// Registers Layer, Network, Arch, Mapping and the loaders (specs.cpp).
void bind_specs(pybind11::module_& m);
/// Registers Metrics, evaluate, Space and the batch evaluation (evaluate.cpp).
void bind_evaluate(pybind11::module_& m);
/// Registers exact, search and their result type (solve.cpp).
void bind_solve(pybind11::module_& m);
/// Registers verify and its result type (verify.cpp).
void bind_verify(pybind11::module_& m);
/// Registers the environment's reward (reward.cpp).
void bind_reward(pybind11::module_& m);
/// Registers run, sweep and codesign (apps.cpp).
void bind_apps(pybind11::module_& m);

/// The RTL worker executable: $MAPWRIGHT_RTL_WORKER, else the mapwright-rtl-worker of the build
/// this module comes from (the pool's own default looks beside the running executable, python3).
std::string worker_exe();

/// A JSON value as the equal Python object (dict, list, str, int, float, bool, None).
pybind11::object to_python(const nlohmann::json& j);

/// A layer argument: a core::Layer, or a text as `--layer` takes it (inline, zoo NETWORK:LAYER,
/// YAML file, FILE.onnx:NODE).
core::Layer layer_arg(const pybind11::handle& h);
/// An architecture argument: a core::Arch, or a name under configs/arch or a YAML file.
core::Arch arch_arg(const pybind11::handle& h);
/// A mapping argument as a mapping, unchecked: a core::Mapping, a dict in the mapping YAML's
/// form, the text of a mapping YAML, or a path to a mapping file (text without ':' or a line
/// break). `*at` is set to what errors about it name: `where`, or the file.
core::Mapping parse_mapping(const pybind11::handle& h, const std::string& where, std::string* at);
/// A mapping argument: a core::Mapping, a dict in the mapping YAML's form, the text of a mapping
/// YAML, or a path to a mapping file; refused by check_mapping against the layer and arch as the
/// CLI refuses it. `where` names the argument in errors about a dict or text.
core::Mapping mapping_arg(const pybind11::handle& h, const core::Layer& layer,
                          const core::Arch& arch, const std::string& where = "mapping");

}  // namespace mapwright::python
