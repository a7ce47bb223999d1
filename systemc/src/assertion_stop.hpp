#pragma once
// A failed SVA of the Verilated RTL as a typed result instead of an abort.
//
// Verilator calls vl_stop() when an assertion fails (models built with --assert); its default
// prints and aborts the process (fatalOnError). mapwright_systemc is compiled with
// VL_USER_STOP and defines vl_stop (assertion_stop.cpp): it records the first failure of the
// run (file, line, and the assertion's label read from the source line when the RTL sources
// are where Verilator saw them), pauses the SystemC kernel (sc_pause) so the run ends at once,
// and lets the evaluator report RtlFailure::Assertion with the cycle.

#include <string>

namespace mapwright::systemc::detail {

/// The first assertion failure since the last clear.
struct AssertionStop {
  bool hit = false;   ///< An assertion failed.
  std::string file;   ///< Source file (base name).
  int line = 0;       ///< Source line.
  std::string label;  ///< The assertion's label, if the source could be read.
};

/// The process's record (the simulation runs on one thread).
AssertionStop& assertion_stop();
/// Clears the record and Verilator's error/finish flags before a run.
void clear_assertion_stop();
/// "assertion <label> failed (<file>:<line>)".
std::string describe(const AssertionStop& s);

}  // namespace mapwright::systemc::detail
