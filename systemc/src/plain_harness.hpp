#pragma once
// The plain C++ Verilator harness around one non-SystemC Verilated mw_accel model: the same
// command driver and DRAM model as the SystemC testbench (cmd_driver.hpp, dram_model.hpp),
// stepped at every rising edge by a loop that drives the clock itself. Used to measure what the
// SystemC boundary costs (bench/rtl_bench), as a second, independent harness in the tests, and
// as the stepping loop of the temporally decoupled SystemC harness (accel_lt.hpp), which passes
// a per-cycle tick.
// Private to systemc/: never include it from a public header.

#include "assertion_stop.hpp"
#include <cstdint>
#include <cstring>
#include <memory>

#include "cmd_driver.hpp"
#include "dram_model.hpp"

namespace mapwright::systemc::detail {

/// The tick of a harness that answers to nobody between cycles.
struct NoTick {
  bool operator()() const { return true; }
};

template <class V>
class PlainHarness {
 public:
  explicit PlainHarness(int beat_bytes)
      : dut_(std::make_unique<V>()), beat_words_(beat_bytes / 4), dram_(beat_bytes) {
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    apply();
    dut_->eval();
  }

  /// Resets the design and runs `job` for at most `limit` cycles; true if it completed. After
  /// every cycle of the job `tick()` is called; returning false stops the run there (false).
  template <class Tick = NoTick>
  bool run(TbJob& job, long long limit, Tick&& tick = Tick{}) {
    drv_.stop();
    dram_.stop(in_);
    in_.cmd_valid = false;
    apply();
    dut_->rst_ni = 0;
    cycles(3);
    dut_->rst_ni = 1;
    cycles(1);
    dram_.begin(job, in_);
    drv_.begin(job, 0, in_);
    apply();
    for (long long c = 1; c <= limit; ++c) {
      dut_->clk_i = 0;
      dut_->eval();  // the cycle's inputs settle
      DutOut o;
      o.cmd_ready = dut_->cmd_ready_o;
      o.idle = dut_->idle_o;
      o.csr_rdata = dut_->csr_rdata_o;
      o.req_valid = dut_->dram_req_valid_o;
      o.req_write = dut_->dram_req_write_o;
      o.req_bytes = dut_->dram_req_bytes_o;
      o.req_id = dut_->dram_req_id_o;
      o.req_addr = dut_->dram_req_addr_o;
      o.wr_valid = dut_->dram_wr_valid_o;
      if (o.wr_valid) {
        copy_out(dut_->dram_wr_data_o);
        o.wr_data = wr_words_;
      }
      dut_->clk_i = 1;
      dut_->eval();                // rising edge
      if (assertion_stop().hit) {  // a failed SVA (vl_stop, assertion_stop.hpp)
        job.edges = c;
        return false;
      }
      const uint64_t cycle = static_cast<uint64_t>(c);
      drv_.edge(cycle, o, in_);
      dram_.edge(cycle, o, in_);
      apply();
      const bool go_on = tick();
      if (drv_.done()) {
        job.edges = c;
        return true;
      }
      if (!go_on) {
        job.edges = c;
        return false;
      }
    }
    return false;
  }

  /// Reads one register (combinational port).
  uint64_t read_csr(unsigned addr) {
    dut_->csr_addr_i = addr;
    dut_->eval();
    return dut_->csr_rdata_o;
  }

 private:
  void cycles(int n) {
    for (int i = 0; i < n; ++i) {
      dut_->clk_i = 0;
      dut_->eval();
      dut_->clk_i = 1;
      dut_->eval();
    }
  }
  // Beats up to 64 bits are a QData port, wider ones a VlWide.
  void copy_out(uint64_t v) {
    wr_words_[0] = static_cast<uint32_t>(v);
    wr_words_[1] = static_cast<uint32_t>(v >> 32);
  }
  template <class W>
  void copy_out(const W& v) {
    for (int i = 0; i < beat_words_; ++i) wr_words_[i] = v[i];
  }
  void copy_in(uint64_t& v) {
    v = static_cast<uint64_t>(in_.rd_data[0]) | (static_cast<uint64_t>(in_.rd_data[1]) << 32);
  }
  template <class W>
  void copy_in(W& v) {
    for (int i = 0; i < beat_words_; ++i) v[i] = in_.rd_data[i];
  }
  void apply() {
    if (in_.cmd_dirty) {
      dut_->cmd_valid_i = in_.cmd_valid;
      dut_->cmd_last_i = in_.cmd_last;
      dut_->cmd_data_i = in_.cmd_data;
      in_.cmd_dirty = false;
    }
    if (in_.csr_dirty) {
      dut_->csr_addr_i = in_.csr_addr;
      in_.csr_dirty = false;
    }
    if (in_.rd_dirty) {
      dut_->dram_rd_valid_i = in_.rd_valid;
      dut_->dram_rd_last_i = in_.rd_last;
      in_.rd_dirty = false;
    }
    if (in_.rd_data_dirty) {
      copy_in(dut_->dram_rd_data_i);
      in_.rd_data_dirty = false;
    }
    if (in_.wr_dirty) {
      dut_->dram_wr_ready_i = in_.wr_ready;
      dut_->dram_wr_done_i = in_.wr_done;
      in_.wr_dirty = false;
    }
  }

  std::unique_ptr<V> dut_;
  int beat_words_;
  DutIn in_;
  CmdDriver drv_;
  DramModel dram_;
  uint32_t wr_words_[kMaxBeatWords] = {};
};

}  // namespace mapwright::systemc::detail
