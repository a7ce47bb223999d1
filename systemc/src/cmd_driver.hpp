#pragma once
// The command driver of the testbench, in plain C++: pushes the program's command words with
// valid/ready, waits for the accelerator to become idle, then reads every register (one per
// cycle) and reports the job done. A cycle-stepped state machine: edge() is called at a rising
// clock edge with the DUT outputs sampled in the cycle that edge ends, and sets the DUT inputs
// for the next cycle. It also says when it next needs to see an edge (`due`, an absolute cycle)
// and on which output rising it wakes otherwise (cmd_ready, idle), so an event-driven harness
// may skip the cycles in between; stepping at every edge is always correct too (early calls
// return without changing anything). Shared by the SystemC testbench (accel_tb.hpp) and the
// plain C++ Verilator harness (plain_harness.hpp).
// Private to systemc/: never include it from a public header.

#include <cstddef>
#include <cstdint>

#include "dut_io.hpp"

namespace mapwright::systemc::detail {

/// Pushes the command words, waits for idle, reads the registers.
class CmdDriver {
 public:
  void begin(TbJob& j, uint64_t cycle, DutIn& in) {
    job_ = &j;
    i_ = 0;
    csr_ = 0;
    changed_ = false;
    phase_ = Phase::Words;
    load_word(in);
    due = cycle + 1;
    wake = Wake::CmdReady;
  }
  void stop() {
    job_ = nullptr;
    phase_ = Phase::Off;
    due = kNoDue;
    wake = Wake::Never;
  }
  bool done() const { return phase_ == Phase::Done; }

  /// Rising edge ending cycle `cycle - 1`; `o` holds that cycle's outputs.
  void edge(uint64_t cycle, const DutOut& o, DutIn& in) {
    switch (phase_) {
      case Phase::Words:
        if (!o.cmd_ready) {  // not taken: sleep until the queue has room
          if (job_->options.unheld_command && !changed_) {  // test hook: break the handshake rule
            in.cmd_data ^= 1ull << 63;
            in.cmd_dirty = true;
            changed_ = true;
          }
          due = kNoDue;
          wake = Wake::CmdReady;
          return;
        }
        ++i_;
        load_word(in);
        if (phase_ == Phase::Words) {
          due = cycle + 1;
          wake = Wake::CmdReady;
          return;
        }
        [[fallthrough]];
      case Phase::WaitIdle:
        if (!o.idle) {
          due = kNoDue;
          wake = Wake::Idle;
          return;
        }
        // Idle in the cycle that just ended: read the registers, one per cycle.
        phase_ = Phase::Csr;
        csr_ = 0;
        in.csr_addr = 0;
        in.csr_dirty = true;
        due = cycle + 1;
        wake = Wake::Edge;
        return;
      case Phase::Csr:
        job_->csr[csr_] = o.csr_rdata;
        if (++csr_ < kNumCsr) {
          in.csr_addr = csr_;
          in.csr_dirty = true;
          due = cycle + 1;
          wake = Wake::Edge;
          return;
        }
        job_->done = true;
        phase_ = Phase::Done;
        due = kNoDue;
        wake = Wake::Never;
        return;
      case Phase::Off:
      case Phase::Done:
        return;
    }
  }

 private:
  enum class Phase : uint8_t { Off, Words, WaitIdle, Csr, Done };
  void load_word(DutIn& in) {
    const CommandProgram& p = *job_->prog;
    if (i_ < p.words.size()) {
      in.cmd_data = p.words[i_];
      in.cmd_last = p.last[i_] != 0;
      in.cmd_valid = true;
    } else {
      in.cmd_valid = false;
      phase_ = Phase::WaitIdle;
    }
    in.cmd_dirty = true;
  }

  TbJob* job_ = nullptr;
  Phase phase_ = Phase::Off;
  size_t i_ = 0;          ///< Next word to be taken.
  unsigned csr_ = 0;      ///< Register being read.
  bool changed_ = false;  ///< The unheld_command test hook has changed a word.

 public:
  uint64_t due = kNoDue;  ///< Next cycle whose edge it must see.
  Wake wake = Wake::Never;
};

}  // namespace mapwright::systemc::detail
