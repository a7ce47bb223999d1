#pragma once
/// \file run_admission.hpp
/// Admission control for RTL runs, on the side that decides to simulate (cheapest check
/// first): before the simulator builds anything, a run's memory is estimated in closed form
/// (systemc::estimate_run_memory over model::closed_form_counts) and, within the memory limit,
/// its cycles are predicted (model::simulate_schedule); a run over a SimLimits bound is not
/// started. The RTL worker admits every job it runs; `mapwright verify` and `fidelity` admit
/// their runs in process the same way (run_admitted). The simulator itself does not depend on
/// the model.

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"

namespace mapwright::rtlpool {

/// The admission of a run of `layer` under `mapping` against `limits` (max_memory_mb, then
/// max_cycles; a bound <= 0 is off). A run that fails the simulator's precheck is not
/// estimated (the simulator reports that failure). A refusal reads "limit: estimated 5120 MB of
/// memory > max_memory_mb 4096 (raise it with --sim-max-memory-mb)" or "limit: predicted 3.1e9
/// cycles > max_cycles 200000000 (raise it with --sim-max-cycles)".
rtl::RunAdmission admit_run(const core::Layer& layer, const core::Arch& arch,
                            const core::Mapping& mapping, const rtl::SimLimits& limits);

/// A run on `evaluator` admitted against options.limits first (admit_run): a refused run comes back
/// as its typed limit result, built and simulated not at all.
rtl::RtlRunResult run_admitted(systemc::RtlEvaluator& evaluator, const core::Layer& layer,
                               const core::Arch& arch, const core::Mapping& mapping,
                               const systemc::RtlRunOptions& options = {});

}  // namespace mapwright::rtlpool
