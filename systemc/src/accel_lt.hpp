#pragma once
// The temporally decoupled SystemC harness (loosely timed, TLM-2.0 style): one SystemC thread
// steps a plain (non-SystemC) Verilated mw_accel model cycle by cycle through the plain harness
// (plain_harness.hpp: the same command driver and DRAM model as the pin-level testbench) and
// keeps its local time in a tlm_utils::tlm_quantumkeeper, meeting SystemC time only when the
// quantum is used up and at the end of the job. Other SystemC processes run at those points and
// see the accelerator's time to within one quantum; the job's end is exact (its cycles times the
// clock period). What it gives up against the pin-level testbench (accel_tb.hpp): the
// accelerator's pins are not sc_signals, so no other SystemC process can watch or drive them
// mid-quantum, and there is no waveform. What it gains: no SystemC event per clock edge, so the
// per-cycle cost is the model's own (bench/rtl_bench).
// Private to systemc/: never include it from a public header.

#include <systemc.h>
#include <tlm.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <chrono>
#include <cstddef>

#include "assertion_stop.hpp"
#include "plain_harness.hpp"

namespace mapwright::systemc::detail {

/// Cycles in the quantum the harness sets when nobody has set tlm_global_quantum.
inline constexpr long long kDefaultQuantumCycles = 1000;

template <class V>
class AccelLt : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(AccelLt);
  /// `period`: the accelerator's clock period. Sets the global quantum to
  /// kDefaultQuantumCycles periods if it is still zero (a quantum set by the platform stays).
  AccelLt(sc_core::sc_module_name nm, int beat_bytes, const sc_core::sc_time& period)
      : sc_module(nm), period_(period), h_(beat_bytes) {
    auto& q = tlm::tlm_global_quantum::instance();
    if (q.get() == sc_core::SC_ZERO_TIME)
      q.set(period * static_cast<double>(kDefaultQuantumCycles));
    SC_THREAD(main);
    // The model's evaluation runs on this thread's stack: more room than SystemC's 256 KiB
    // default for the larger arrays' generated code (and for sanitizer-instrumented builds).
    set_stack_size(std::size_t{4} << 20);
  }

  /// Hands `job` to the thread (host, between sc_start calls); it starts at the next sc_start.
  /// Stops after `limit` cycles, or at a quantum boundary once `max_seconds` (> 0) of wall clock
  /// have passed.
  void start(TbJob& job, long long limit, double max_seconds) {
    job_ = &job;
    limit_ = limit;
    max_seconds_ = max_seconds;
    finished_ = false;
    done_ = false;
    wall_clock_ = false;
    start_.notify(sc_core::SC_ZERO_TIME);
  }
  bool finished() const { return finished_; }      ///< The last job ended (any way).
  bool done() const { return done_; }              ///< It ran to the end.
  bool wall_clock() const { return wall_clock_; }  ///< It was stopped by max_seconds.
  /// Reads one register between jobs (no SystemC time passes).
  uint64_t read_csr(unsigned addr) { return h_.read_csr(addr); }

 private:
  void main() {
    for (;;) {
      while (!job_) sc_core::wait(start_);
      TbJob& job = *job_;
      qk_.reset();
      const auto t0 = std::chrono::steady_clock::now();
      done_ = h_.run(job, limit_, [&] {
        qk_.inc(period_);
        if (!qk_.need_sync()) return true;
        qk_.sync();  // other processes run; a failed SVA's sc_pause takes effect here
        if (max_seconds_ <= 0) return true;
        const double spent =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        wall_clock_ = spent > max_seconds_;
        return !wall_clock_;
      });
      qk_.sync();
      job_ = nullptr;
      finished_ = true;
      sc_core::sc_pause();
    }
  }

  sc_core::sc_time period_;
  PlainHarness<V> h_;
  tlm_utils::tlm_quantumkeeper qk_;
  sc_core::sc_event start_;
  TbJob* job_ = nullptr;
  long long limit_ = 0;
  double max_seconds_ = 0;
  bool finished_ = false, done_ = false, wall_clock_ = false;
};

}  // namespace mapwright::systemc::detail
