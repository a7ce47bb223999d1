// The extension module mapwright._mapwright: registers the bindings of every source file. The
// package's __init__.py re-exports them as `mapwright.*`.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_mapwright, m) {
  m.doc() = "mapwright: DNN layer mappings on a systolic array (C++ bindings)";
  mapwright::python::bind_errors(m);
  mapwright::python::bind_specs(m);
  mapwright::python::bind_evaluate(m);
  mapwright::python::bind_solve(m);
  mapwright::python::bind_verify(m);
  mapwright::python::bind_reward(m);
  mapwright::python::bind_apps(m);
}
