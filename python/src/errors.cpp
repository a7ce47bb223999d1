// The module's exceptions and the one translator every C++ exception goes through, so that
// nothing thrown by the libraries reaches the interpreter as a crash:
// - core::SpecError (bad input: file or argument, key, value) -> mapwright.Error, a ValueError
//   carrying the CLI's message and the parts as attributes `where`, `key`, `value`, `why`;
// - std::invalid_argument (bad search options, an unknown searcher; the CLI's exit 2 too) ->
//   mapwright.Error with those attributes None;
// - std::filesystem::filesystem_error -> OSError(errno, message, path);
// - std::bad_alloc -> MemoryError;
// - any other std::exception -> mapwright.InternalError, a RuntimeError (the CLI's exit 70).
// pybind11's own exceptions are passed on to pybind11's translator.
#include <pybind11/pybind11.h>

#include <filesystem>
#include <new>
#include <stdexcept>

#include "bindings.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;

namespace mapwright::python {

namespace {

/// mapwright.Error; created once with the module, never freed (it lives as long as Python).
PyObject* error_type = nullptr;
/// mapwright.InternalError.
PyObject* internal_type = nullptr;

/// Text as a Python str; bytes that are not UTF-8 (a value read from a file) become U+FFFD.
py::object text(const std::string& s) {
  PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!u) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(u);
}

/// Raises mapwright.Error(message) with its where/key/value/why attributes (None when absent).
void raise_error(const char* message, const core::SpecError* spec) {
  py::object err = py::reinterpret_borrow<py::object>(error_type)(text(message));
  const auto part = [&](const std::string& s) { return spec ? text(s) : py::none(); };
  err.attr("where") = part(spec ? spec->where() : "");
  err.attr("key") = part(spec ? spec->key() : "");
  err.attr("value") = part(spec ? spec->value() : "");
  err.attr("why") = part(spec ? spec->why() : "");
  PyErr_SetObject(error_type, err.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const core::SpecError& e) {
    raise_error(e.what(), &e);
  } catch (const std::invalid_argument& e) {
    raise_error(e.what(), nullptr);
  } catch (const std::filesystem::filesystem_error& e) {
    const py::object os_error = py::reinterpret_borrow<py::object>(PyExc_OSError)(
        e.code().value(), text(e.code().message()), text(e.path1().string()));
    PyErr_SetObject(PyExc_OSError, os_error.ptr());
  } catch (const std::bad_alloc& e) {
    PyErr_SetString(PyExc_MemoryError, e.what());
  } catch (const std::exception& e) {
    PyErr_SetObject(internal_type, text(std::string("internal error: ") + e.what()).ptr());
  }
}

}  // namespace

void bind_errors(py::module_& m) {
  error_type = PyErr_NewExceptionWithDoc(
      "mapwright.Error",
      "Bad input (a file, argument, key or value), with the CLI's message; `where`, `key`, "
      "`value` and `why` hold its parts (None for errors that are not about one key).",
      PyExc_ValueError, nullptr);
  internal_type = PyErr_NewExceptionWithDoc(
      "mapwright.InternalError", "An unexpected failure inside mapwright (a bug, not bad input).",
      PyExc_RuntimeError, nullptr);
  if (!error_type || !internal_type) throw py::error_already_set();
  m.attr("Error") = py::handle(error_type);
  m.attr("InternalError") = py::handle(internal_type);
  py::register_exception_translator(&translate);
}

}  // namespace mapwright::python
