#pragma once
/// \file schedule.hpp
/// The reference schedule: walks every tile-program operation through an in-order DMA engine
/// and an in-order compute engine with per-buffer-half dependencies and an ideal DRAM
/// (fixed latency, fixed bandwidth). It is the exact timing of the hardware's command
/// semantics; the closed-form surrogate approximates it and the RTL is measured against both.

#include <functional>

#include "mapwright/core/metrics.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::model {

struct ScheduleResult {
  long long cycles = 0;          ///< End of the last operation.
  long long compute_cycles = 0;  ///< Sum of fold times.
  long long dma_cycles = 0;      ///< Sum of DMA transfer times.
};

/// Each DMA transfer takes core::transfer_cycles (the arch's DRAM port).
ScheduleResult simulate_schedule(const core::Layer& layer, const core::Arch& arch,
                                 const core::Mapping& m);

/// The same schedule with each DMA transfer taking `dma_duration(op)` cycles instead: for
/// studies of other DRAM ports (bench/burst_study).
ScheduleResult simulate_schedule(const core::Layer& layer, const core::Arch& arch,
                                 const core::Mapping& m,
                                 const std::function<long long(const core::TileOp&)>& dma_duration);

}  // namespace mapwright::model
