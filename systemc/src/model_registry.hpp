#pragma once
// The model registry: which compiled Verilated model serves an architecture, and the process's
// harness host around it (model_registry.cpp).
// Private to systemc/: never include it from a public header.

#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"
#include "sim_host.hpp"

namespace mapwright::systemc::detail {

/// The process's host of `harness` (Auto resolved) for `arch`. The SystemC one (SystemC or
/// Decoupled) is elaborated on first use and then kept: null with `failure` set ("arch: ...")
/// when the process already elaborated another architecture or harness. The plain C++ one is
/// replaced for another architecture. Null with `failure` set also when no compiled model
/// matches.
SimHost* host_for(const core::Arch& arch, RtlHarness harness, std::string& failure);

}  // namespace mapwright::systemc::detail
