// Reference schedule: every tile-program operation through an in-order DMA engine and an
// in-order compute engine, with per-buffer-half dependencies (docs/timing.md).
#include "mapwright/model/schedule.hpp"

#include <algorithm>

#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/core/dram_layout.hpp"

namespace mapwright::model {

using namespace mapwright::core;

ScheduleResult simulate_schedule(const Layer& layer, const Arch& arch, const Mapping& m) {
  return simulate_schedule(layer, arch, m,
                           [&](const TileOp& op) { return transfer_cycles(layer, arch, op); });
}

ScheduleResult simulate_schedule(const Layer& layer, const Arch& arch, const Mapping& m,
                                 const std::function<long long(const TileOp&)>& dma_duration) {
  ScheduleResult r;
  long long dma_free = 0, cmp_free = 0;
  long long in_free[2] = {0, 0}, wt_free[2] = {0, 0};  // last compute end per half
  long long in_ready = 0, wt_ready = 0;                // load end of the resident tile
  int in_half = 0, wt_half = 0;
  long long acc_free[2] = {0, 0};      // store/spill end of the tile that left each half
  long long acc_last_cmp[2] = {0, 0};  // last compute end per accumulator half
  long long acc_reload = 0;            // reload end of the resident output tile (0: none)
  long long end = 0;
  auto dma = [&](long long dep, const TileOp& op) {
    const long long start = std::max(dma_free, dep);
    const long long d = dma_duration(op);
    r.dma_cycles += d;
    dma_free = start + d;
    end = std::max(end, dma_free);
    return dma_free;
  };
  OpBankCycles bank_cycles(layer, m, arch.buffer_banks);  // 0 per op when unbanked
  walk_tile_program(layer, arch, m, [&](const TileOp& op) {
    switch (op.kind) {
      case OpKind::LoadInput:
        in_ready = dma(in_free[op.half], op);
        in_half = op.half;
        break;
      case OpKind::LoadWeight:
        wt_ready = dma(wt_free[op.half], op);
        wt_half = op.half;
        break;
      case OpKind::SpillPsum:
      case OpKind::StoreOutput:
        acc_free[op.half] = dma(acc_last_cmp[op.half], op);
        break;
      case OpKind::LoadPsum:
        acc_reload = dma(acc_free[op.half], op);
        break;
      case OpKind::Compute: {
        // A fresh tile may start once the previous occupant of its half has left.
        const long long acc_dep_dma = op.accumulate ? acc_reload : acc_free[op.half];
        long long dur = 0;
        const TileBox& b = op.box;
        const long long stream = stream_length(m.dataflow, b);
        for_each_fold(m, b, [&](long long, long long, long long ru, long long, long long cu) {
          dur += fold_cycles(m.dataflow, stream, ru, cu);
        });
        // Banked buffers: first-row reads and the bank stalls the mesh waits for.
        dur += bank_cycles.op_cycles(b);
        // DMA completions reach the compute engine through a register: a compute that waits
        // for a transfer starts one cycle after its end (docs/timing.md).
        const long long start =
            std::max(cmp_free, std::max({in_ready, wt_ready, acc_dep_dma}) + kDmaToCompute);
        cmp_free = start + dur;
        r.compute_cycles += dur;
        in_free[in_half] = cmp_free;
        wt_free[wt_half] = cmp_free;
        acc_last_cmp[op.half] = cmp_free;
        end = std::max(end, cmp_free);
        break;
      }
    }
  });
  r.cycles = end;
  return r;
}

}  // namespace mapwright::model
