#pragma once
/// \file verify.hpp
/// `mapwright verify` (one mapping on RTL and surrogate, side by side) and `mapwright fidelity`
/// (N random valid mappings through both: functional results, count mismatches, cycle error,
/// rank correlation).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/rtlpool/rtl_pool.hpp"

namespace mapwright::flows {

struct VerifyOptions {
  std::string arch = "default";  ///< Named arch or YAML (compiled-in model, else the cache).
  std::string layer;             ///< --layer.
  std::string mapping;           ///< Mapping YAML or "default".
  std::string trace;             ///< FST waveform file ("" = none).
  uint64_t seed = 1;             ///< Seed of the random tensors.
  bool json = false;             ///< One JSON object.
  /// --harness: "auto" (the decoupled SystemC harness where the architecture has a plain
  /// model and no waveform is asked for, else the pin-level testbench), "systemc" (the
  /// pin-level testbench) or "decoupled".
  std::string harness = "auto";
  rtlpool::SimLimits limits;  ///< --sim-max-cycles, --sim-max-seconds, --sim-max-memory-mb.
};
/// Exit codes: 0 bit-exact and every count equal; 2 bad input (also a limit out of range);
/// 3 invalid mapping; 4 the verification failed, or the run is over a SimLimits bound (the
/// typed "limit: ..." failure is printed, the RTL is not run).
int cmd_verify(const VerifyOptions& o, std::ostream& out);

struct FidelityOptions {
  std::string arch = "default";     ///< Named arch.
  std::vector<std::string> layers;  ///< --layer, repeatable: statistics per layer and overall.
  int samples = 20;                 ///< Random valid mappings per layer.
  uint64_t seed = 1;                ///< Seed of sampling and tensors.
  bool json = false;                ///< One JSON object.
  std::string harness = "auto";     ///< --harness, as for verify.
};
int cmd_fidelity(const FidelityOptions& o, std::ostream& out);

}  // namespace mapwright::flows
