#pragma once
/// \file rtl_failure.hpp
/// Why an RTL run has no result or a failing one: one enum from the RTL evaluator through the
/// worker pool to the run record. The message that goes with it is for people only; code
/// decides on the kind.

#include <string>

namespace mapwright::core {

enum class RtlFailure {
  None,           ///< The run completed (its functional check says whether it matched).
  Invalid,        ///< The mapping is invalid (core::check_valid: capacity, burst descriptor).
  Mapping,        ///< The mapping is malformed for the layer or architecture.
  Arch,           ///< No compiled RTL model for the architecture, or one it cannot run.
  CommandFormat,  ///< The tile program does not fit the command format.
  Watchdog,       ///< The simulation did not finish within its watchdog cycles (a verdict).
  RtlError,       ///< The RTL raised an error flag (a verdict).
  Assertion,      ///< An SVA of the RTL failed (a verdict: the assertion and the cycle).
  Dram,           ///< The DRAM model saw an access outside the program's areas (a verdict).
  Trace,          ///< Waveform tracing was asked for and could not be done.
  Limit,          ///< Over a --sim-max-* limit: not run, or stopped (no verdict).
  Worker,         ///< The worker process died or answered garbage (infrastructure: no verdict).
  Internal,       ///< The worker could not handle the request (a malformed job).
};

/// "none", "invalid", "mapping", "arch", "command_format", "watchdog", "rtl_error", "assertion",
/// "dram", "trace", "limit", "worker", "internal".
const char* rtl_failure_name(RtlFailure k);
/// The kind named by rtl_failure_name; an unknown name is RtlFailure::Internal.
RtlFailure rtl_failure_from_name(const std::string& name);

}  // namespace mapwright::core
