#pragma once
/// \file schedule.hpp
/// The reference schedule: walks every tile-program operation through an in-order DMA engine
/// and an in-order compute engine with per-buffer-half dependencies and an ideal DRAM
/// (fixed latency, fixed bandwidth). It is the exact timing of the hardware's command
/// semantics; the closed-form surrogate approximates it and the RTL is measured against both.

#include "mapwright/core/metrics.hpp"

namespace mapwright::model {

struct ScheduleResult {
  long long cycles = 0;          ///< End of the last operation.
  long long compute_cycles = 0;  ///< Sum of fold times.
  long long dma_cycles = 0;      ///< Sum of DMA transfer times.
};

ScheduleResult simulate_schedule(const core::Layer& layer, const core::Arch& arch,
                                 const core::Mapping& m);

}  // namespace mapwright::model
