#pragma once
// The harness host interface: the process's simulation of one Verilated model type behind one
// virtual run (SimHostT, PlainHostT and DecoupledHostT in harness_hosts.hpp implement it; the
// model registry, model_registry.hpp, elaborates them).
// Private to systemc/: never include it from a public header.

#include <cstdint>
#include <string>

#include "dut_io.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"

namespace mapwright::systemc::detail {

/// How a simulation ended.
enum class RunEnd { Done, Watchdog, WallClock, Assertion };

/// The process's simulation: one testbench around one model type.
class SimHost {
 public:
  virtual ~SimHost() = default;
  /// Runs a job to completion, for at most `limit` cycles or (if `max_seconds` > 0) about that
  /// many seconds of wall clock, whichever comes first.
  virtual RunEnd run(TbJob& job, long long limit, double max_seconds, const std::string& trace_file,
                     std::string& trace_error) = 0;
  /// Reads one register between runs.
  virtual uint64_t read_csr(unsigned addr) = 0;
  std::string arch;                          ///< Name of the architecture it was elaborated for.
  RtlParams params;                          ///< Compiled parameters.
  RtlHarness harness = RtlHarness::SystemC;  ///< What it is.
};

}  // namespace mapwright::systemc::detail
