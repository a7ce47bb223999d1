#pragma once
// The harness hosts, one template per harness over the Verilated model type V: SimHostT (the
// pin-level SystemC testbench, accel_tb.hpp; the only one that traces), PlainHostT (the plain
// C++ Verilator harness, plain_harness.hpp) and DecoupledHostT (the temporally decoupled
// SystemC harness, accel_lt.hpp). Each resets the design before a job and reports how it ended.
// Instantiated once per compiled model by the model registry (model_registry.cpp).
// Private to systemc/: never include it from a public header.

#include <verilated.h>
// Waveform tracing is compiled in only for a traced build of the models (MAPWRIGHT_RTL_TRACE;
// the model cache makes one for `verify --trace`). Verilator's trace headers trip
// -Wnon-virtual-dtor; they are third-party code.
#if MAPWRIGHT_RTL_TRACE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
#include <verilated_fst_sc.h>
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "accel_lt.hpp"
#include "accel_tb.hpp"
#include "assertion_stop.hpp"
#include "plain_harness.hpp"
#include "sim_host.hpp"

namespace mapwright::systemc::detail {

/// The accelerator's clock period, in ns of SystemC time.
constexpr double kPeriodNs = 10.0;

/// Simulated cycles between two looks at the wall clock (SimLimits::max_seconds).
constexpr long long kSliceCycles = 1 << 16;

#if !MAPWRIGHT_RTL_TRACE
/// The Trace failure of a waveform asked of a model built without tracing.
constexpr const char* kUntracedModel =
    "trace: this RTL model is built without tracing (the model cache builds a traced one for "
    "`mapwright verify --trace`)";
#endif

/// The pin-level SystemC testbench (accel_tb.hpp) around model type V.
template <class V>
class SimHostT final : public SimHost {
 public:
  explicit SimHostT(int beat_bytes) {
#if MAPWRIGHT_RTL_TRACE
    Verilated::traceEverOn(true);
#endif
    tb_ = std::make_unique<AccelTb<V>>("tb", beat_bytes);
    tb_->rst_n.write(false);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
#if MAPWRIGHT_RTL_TRACE
  ~SimHostT() override {
    if (tfp_) tfp_->close();
  }
#endif

  RunEnd run(TbJob& job, long long limit, double max_seconds, const std::string& trace_file,
             std::string& trace_error) override {
    // Drop whatever a previous (possibly aborted) job left, and reset the design.
    clear_assertion_stop();
    tb_->stop();
    tb_->rst_n.write(false);
    cycles(3);
    tb_->rst_n.write(true);
    cycles(1);
    if (!trace_file.empty()) {
#if MAPWRIGHT_RTL_TRACE
      if (traced_) {
        trace_error = "trace: only one traced run per process (the model is traced once)";
      } else {
        tfp_ = std::make_unique<VerilatedFstSc>();
        tb_->dut.trace(tfp_.get(), 99);
        tfp_->open(trace_file.c_str());
        traced_ = true;
      }
#else
      trace_error = kUntracedModel;
#endif
    }
    tb_->start(job);
    // Slices of simulated time (the testbench pauses the kernel when the job is done), with a
    // look at the wall clock between them.
    const auto t0 = std::chrono::steady_clock::now();
    RunEnd end = RunEnd::Watchdog;
    for (long long left = limit; left > 0 && !job.done;) {
      const long long slice = max_seconds > 0 ? std::min(left, kSliceCycles) : left;
      cycles(slice);
      left -= slice;
      if (assertion_stop().hit) {  // vl_stop paused the kernel
        job.edges = tb_->cycles_since_start();
        end = RunEnd::Assertion;
        break;
      }
      const double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!job.done && max_seconds > 0 && spent > max_seconds) {
        end = RunEnd::WallClock;
        break;
      }
    }
#if MAPWRIGHT_RTL_TRACE
    if (tfp_) {
      tfp_->close();
      tfp_.reset();
    }
#endif
    return job.done && end != RunEnd::Assertion ? RunEnd::Done : end;
  }

  uint64_t read_csr(unsigned addr) override {
    tb_->csr_addr.write(addr);
    cycles(1);
    return tb_->csr_rdata.read();
  }

 private:
  /// Simulates `n` clock cycles.
  void cycles(long long n) {
    sc_core::sc_start(sc_core::sc_time(kPeriodNs * static_cast<double>(n), sc_core::SC_NS));
  }
  std::unique_ptr<AccelTb<V>> tb_;  ///< The testbench.
#if MAPWRIGHT_RTL_TRACE
  std::unique_ptr<VerilatedFstSc> tfp_;  ///< Open waveform, if any.
  bool traced_ = false;                  ///< A trace was attached (only once per process).
#endif
};

/// A plain C++ (non-SystemC) harness of one model type.
template <class V>
class PlainHostT final : public SimHost {
 public:
  explicit PlainHostT(int beat_bytes) : h_(beat_bytes) {}
  /// The plain harness runs to completion or `limit` (it does not look at the wall clock).
  RunEnd run(TbJob& job, long long limit, double /*max_seconds*/, const std::string& trace_file,
             std::string& trace_error) override {
    if (!trace_file.empty()) trace_error = "trace: the plain C++ harness does not trace";
    clear_assertion_stop();
    const bool done = h_.run(job, limit);
    if (assertion_stop().hit) return RunEnd::Assertion;
    return done ? RunEnd::Done : RunEnd::Watchdog;
  }
  uint64_t read_csr(unsigned addr) override { return h_.read_csr(addr); }

 private:
  PlainHarness<V> h_;  ///< The harness.
};

/// The temporally decoupled SystemC harness (accel_lt.hpp) around a plain model.
template <class V>
class DecoupledHostT final : public SimHost {
 public:
  explicit DecoupledHostT(int beat_bytes) {
    lt_ =
        std::make_unique<AccelLt<V>>("lt", beat_bytes, sc_core::sc_time(kPeriodNs, sc_core::SC_NS));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  RunEnd run(TbJob& job, long long limit, double max_seconds, const std::string& trace_file,
             std::string& trace_error) override {
    if (!trace_file.empty())
      trace_error = "trace: the decoupled SystemC harness does not trace (its model is plain C++)";
    clear_assertion_stop();
    lt_->start(job, limit, max_seconds);
    // The thread pauses the kernel when the job ends; a failed SVA pauses it earlier.
    while (!lt_->finished() && sc_core::sc_pending_activity()) sc_core::sc_start();
    if (assertion_stop().hit) return RunEnd::Assertion;
    if (lt_->wall_clock()) return RunEnd::WallClock;
    return lt_->done() ? RunEnd::Done : RunEnd::Watchdog;
  }
  uint64_t read_csr(unsigned addr) override { return lt_->read_csr(addr); }

 private:
  std::unique_ptr<AccelLt<V>> lt_;  ///< The harness module.
};

}  // namespace mapwright::systemc::detail
