// run, sweep and codesign from Python: the CLI's commands in this process (flows::cmd_run, which
// builds the RunApp; cmd_sweep, the co-design grid searcher over the file's points;
// cmd_codesign), writing the same folder and
// answering the JSON their --json prints (results.json, sweep.json, codesign.json) as Python
// values, with the command's exit code. Keyword options are the commands' flags with '-' as
// '_' (`top_k=3` for --top-k 3); an unknown one or a value of the wrong type is a
// core::SpecError naming the keyword and the value, and the commands refuse values out of range
// as the CLI does. RTL runs go to the RTL worker pool (the executable `verify` uses), so a
// crash in a simulation is a typed verification failure in the record. The GIL is released
// while a command runs; Ctrl-C stops it as it stops the CLI (finished work kept in the
// folder) and raises KeyboardInterrupt.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/sweep.hpp"
#include "mapwright/support/error.hpp"

namespace py = pybind11;
using namespace mapwright::core;

namespace mapwright::python {

namespace {

/// The keyword options of one command: each read into its field once, converted or refused
/// naming the keyword and the value; done() refuses any keyword no field took.
class Kwargs {
 public:
  Kwargs(const py::dict& d, std::string command) : d_(d), command_(std::move(command)) {}

  /// Reads each keyword `key` into its `field` when it was given (pairs key, field).
  template <class T, class... Rest>
  void get(const char* key, T& field, Rest&... rest) {
    one(key, field);
    if constexpr (sizeof...(rest) > 0) get(rest...);
  }

  /// The flags given, as the CLI names them (`top-k`), for a resumed run's check.
  std::set<std::string> flags() const {
    std::set<std::string> out;
    for (std::string k : given_) {
      for (char& c : k)
        if (c == '_') c = '-';
      out.insert(k);
    }
    return out;
  }

  /// Refuses the `required` keywords not given and the keywords no field took.
  void done(std::initializer_list<const char*> required) const {
    for (const char* r : required)
      if (given_.count(r) == 0 || d_[r].cast<std::string>().empty())
        throw SpecError(command_, r, "", std::string("required: give ") + r + "=...");
    for (const auto& [k, v] : d_) {
      const std::string key = py::str(k);
      if (given_.count(key) == 0) {
        std::string all;
        for (const std::string& n : known_) all += (all.empty() ? "" : ", ") + n;
        throw SpecError(command_, key, text(py::reinterpret_borrow<py::object>(v)),
                        "unknown option; expected one of: " + all);
      }
    }
  }

 private:
  /// Reads keyword `key` into `field` when it was given.
  template <class T>
  void one(const char* key, T& field) {
    known_.push_back(key);
    if (!d_.contains(key)) return;
    const py::object v = d_[key];
    try {
      field = v.cast<T>();
    } catch (const py::cast_error&) {
      throw SpecError(command_, key, text(v), "expected " + type_name<T>());
    }
    given_.insert(key);
  }

  static std::string text(const py::object& v) { return py::str(v); }
  template <class T>
  static std::string type_name() {
    if constexpr (std::is_same_v<T, bool>) return "True or False";
    if constexpr (std::is_same_v<T, std::string>) return "a str";
    if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a list of str";
    if constexpr (std::is_floating_point_v<T>) return "a number";
    return "an int";
  }

  const py::dict& d_;               ///< The keywords.
  const std::string command_;       ///< What errors name (the Python function).
  std::vector<std::string> known_;  ///< Every keyword the command takes.
  std::set<std::string> given_;     ///< The keywords read.
};

/// Runs `command(o, out)` with --json and the GIL released and returns (exit code, the JSON
/// it printed); exit code 130 (Ctrl-C) raises KeyboardInterrupt.
template <class Options>
py::tuple call(Options& o, int (*command)(const Options&, std::ostream&)) {
  o.json = true;
  std::ostringstream out;
  int rc = 0;
  {
    py::gil_scoped_release release;
    rc = command(o, out);
  }
  if (rc == 130) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return py::make_tuple(rc, to_python(nlohmann::json::parse(out.str())));
}

/// A command whose options `read` takes from the keywords (after the worker binary is set),
/// the `required` keywords checked and every other keyword refused.
template <class Options, class Read>
py::tuple keyword_command(const py::dict& kw, const char* name,
                          std::initializer_list<const char*> required,
                          int (*command)(const Options&, std::ostream&), Read read) {
  Options o;
  o.worker_exe = worker_exe();
  Kwargs k(kw, name);
  read(k, o);
  k.done(required);
  return call(o, command);
}

py::tuple run(const py::dict& kw) {
  return keyword_command(
      kw, "run", {"out"}, flows::cmd_run, [&kw](Kwargs& k, flows::RunOptions& o) {
        flows::RunSettings& s = o.settings;
        k.get("network", s.network, "layer", s.layer, "input_shape", s.input_shapes, "strict",
              s.strict, "arch", s.arch, "objective", s.objective);
        k.get("searcher", s.searcher, "budget", s.budget, "seed", s.seed, "options",
              s.options_file);
        k.get("time_limit", s.exact.time_limit_s, "gap", s.exact.gap, "threads", s.exact.threads);
        k.get("top_k", s.top_k, "no_rtl", s.no_rtl, "reward", s.reward, "surrogate_warmup",
              s.surrogate_warmup, "jobs", o.jobs, "rtl_watchdog", o.rtl_watchdog_cycles);
        k.get("sim_max_cycles", o.sim_limits.max_cycles, "sim_max_seconds",
              o.sim_limits.max_seconds, "sim_max_memory_mb", o.sim_limits.max_memory_mb);
        k.get("out", o.out_dir, "db", o.db, "resume", o.resume);
        if (kw.contains("layer") && kw.contains("network"))
          throw SpecError("run", "layer", s.layer, "give either layer or network, not both");
        o.given = k.flags();
        o.progress = false;
      });
}

py::tuple sweep(const py::dict& kw) {
  return keyword_command(
      kw, "sweep", {"file", "out"}, flows::cmd_sweep, [](Kwargs& k, flows::SweepOptions& o) {
        k.get("file", o.file, "out", o.out_dir, "resume", o.resume, "jobs", o.jobs);
      });
}

py::tuple codesign(const py::dict& kw) {
  return keyword_command(
      kw, "codesign", {"space", "out"}, flows::cmd_codesign,
      [&kw](Kwargs& k, flows::CodesignOptions& o) {
        k.get("space", o.space, "searcher", o.searcher, "time_limit", o.time_limit_s, "seed",
              o.seed, "budget", o.budget, "options", o.options_file);
        k.get("out", o.out_dir, "rtl", o.rtl, "jobs", o.jobs, "resume", o.resume);
        o.seed_given = kw.contains("seed");
      });
}

}  // namespace

void bind_apps(py::module_& m) {
  m.def("_run", &run, py::arg("options"),
        "`mapwright run` in this process: (exit code, results.json). See mapwright.run.");
  m.def("_sweep", &sweep, py::arg("options"),
        "`mapwright sweep` in this process: (exit code, sweep.json). See mapwright.sweep.");
  m.def("_codesign", &codesign, py::arg("options"),
        "`mapwright codesign` in this process: (exit code, codesign.json). See "
        "mapwright.codesign.");
}

}  // namespace mapwright::python
