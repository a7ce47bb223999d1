#pragma once
/// \file rtl_job.hpp
/// One job of the RTL worker pool and what comes back from it.

#include <cstdint>
#include <string>

#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"
#include "mapwright/rtlpool/sim_limits.hpp"

namespace mapwright::rtlpool {

/// One RTL run (or, with `probe`, only a check that the architecture has a compiled model).
struct RtlJob {
  std::string arch;               ///< Named architecture or YAML file (as load_arch takes it).
  core::Layer layer;              ///< The layer.
  core::Mapping mapping;          ///< The mapping (must pass check_mapping).
  uint64_t seed = 1;              ///< Seed of the random operands.
  long long watchdog_cycles = 0;  ///< 0 = the evaluator's automatic bound.
  SimLimits limits;               ///< Cycles and memory (checked in the worker), wall clock (pool).
  bool probe = false;             ///< Only elaborate the model and read its parameters.
  /// FST waveform of the run ("" = none); needs a traced model (ModelCacheOptions::traced).
  std::string trace_file;
};

/// What came back from a worker: the run's result as the simulator made it (rtl_api), or a
/// failure the pool made itself (RtlFailure::Worker when the worker died on every try or
/// answered garbage, Limit when the pool stopped it at SimLimits::max_seconds), with the number
/// of crash retries.
using RtlJobResult = rtl::RtlRunResult;

}  // namespace mapwright::rtlpool
