#pragma once
// The SystemC testbench around one Verilated mw_accel model: clock and reset, and one method
// process that runs the shared command driver and DRAM model (cmd_driver.hpp, dram_model.hpp)
// at the rising edges where either has something to do. Between those edges it sleeps on a timeout
// or on the DUT outputs that can wake it (cmd_ready, idle, dram_req_valid rising), so during a DRAM
// latency, a long computation or a full command queue the per-cycle cost is the model's own
// evaluation; inputs are written only when they change.
// Private to systemc/: never include it from a public header.

#include <systemc.h>

#include <cstdint>
#include <type_traits>

#include "cmd_driver.hpp"
#include "dram_model.hpp"

namespace mapwright::systemc::detail {

inline void to_beat(uint64_t& v, const uint32_t* w, int /*words*/) {
  v = static_cast<uint64_t>(w[0]) | (static_cast<uint64_t>(w[1]) << 32);
}
template <int W>
void to_beat(sc_dt::sc_bv<W>& v, const uint32_t* w, int words) {
  for (int i = 0; i < words; ++i) v.set_word(i, w[i]);
}
inline void from_beat(const uint64_t& v, uint32_t* w, int /*words*/) {
  w[0] = static_cast<uint32_t>(v);
  w[1] = static_cast<uint32_t>(v >> 32);
}
template <int W>
void from_beat(const sc_dt::sc_bv<W>& v, uint32_t* w, int words) {
  for (int i = 0; i < words; ++i) w[i] = v.get_word(i);
}

template <class V>
class AccelTb : public sc_core::sc_module {
 public:
  using BeatT =
      typename std::remove_reference_t<decltype(std::declval<V&>().dram_rd_data_i)>::data_type;

  SC_HAS_PROCESS(AccelTb);
  AccelTb(sc_core::sc_module_name nm, int beat_bytes)
      : sc_module(nm),
        clk("clk", 10, sc_core::SC_NS, 0.5, 0, sc_core::SC_NS, true),
        dut("dut"),
        beat_words_(beat_bytes / 4),
        dram_(beat_bytes) {
    dut.clk_i(clk);
    dut.rst_ni(rst_n);
    dut.cmd_valid_i(cmd_valid);
    dut.cmd_ready_o(cmd_ready);
    dut.cmd_data_i(cmd_data);
    dut.cmd_last_i(cmd_last);
    dut.dram_req_valid_o(req_valid);
    dut.dram_req_write_o(req_write);
    dut.dram_req_bytes_o(req_bytes);
    dut.dram_req_id_o(req_id);
    dut.dram_req_addr_o(req_addr);
    dut.dram_rd_valid_i(rd_valid);
    dut.dram_rd_last_i(rd_last);
    dut.dram_rd_data_i(rd_data);
    dut.dram_wr_valid_o(wr_valid);
    dut.dram_wr_ready_i(wr_ready);
    dut.dram_wr_data_o(wr_data);
    dut.dram_wr_done_i(wr_done);
    dut.csr_addr_i(csr_addr);
    dut.csr_rdata_o(csr_rdata);
    dut.idle_o(idle);
    wakers_ |= go.value_changed_event();
    wakers_ |= cmd_ready.posedge_event();
    wakers_ |= idle.posedge_event();
    wakers_ |= req_valid.posedge_event();
    SC_METHOD(step);
    sensitive << go;
    dont_initialize();
  }

  sc_core::sc_clock clk;           ///< The clock (10 ns; only cycles matter).
  sc_core::sc_signal<bool> rst_n;  ///< Active-low reset, driven by the host.
  sc_core::sc_signal<bool> go;     ///< Toggled by the host to start a job.
  sc_core::sc_signal<bool> cmd_valid, cmd_ready, cmd_last;
  sc_core::sc_signal<uint64_t> cmd_data;
  sc_core::sc_signal<bool> req_valid, req_write;
  sc_core::sc_signal<uint32_t> req_bytes, req_id;
  sc_core::sc_signal<uint64_t> req_addr;
  sc_core::sc_signal<bool> rd_valid, rd_last;
  sc_core::sc_signal<BeatT> rd_data;
  sc_core::sc_signal<bool> wr_valid, wr_ready, wr_done;
  sc_core::sc_signal<BeatT> wr_data;
  sc_core::sc_signal<uint32_t> csr_addr;
  sc_core::sc_signal<uint64_t> csr_rdata;
  sc_core::sc_signal<bool> idle;
  V dut;  ///< The Verilated accelerator.

  /// Drops any job and drives idle inputs (host, between sc_start calls).
  void stop() {
    job_ = nullptr;
    starting_ = false;
    drv_.stop();
    dram_.stop(in_);
    in_.cmd_valid = false;
    in_.cmd_dirty = true;
    write_inputs();
  }
  /// Starts `j` at the next rising edge of the next sc_start (host).
  void start(TbJob& j) {
    job_ = &j;
    starting_ = true;
    go.write(!go.read());
  }

  /// Clock edges since the running job started (0 when no job runs).
  long long cycles_since_start() const {
    return job_ && !starting_ ? static_cast<long long>(edge_index() - begin_) : 0;
  }

 private:
  uint64_t edge_index() const {
    return static_cast<uint64_t>(sc_core::sc_time_stamp() / clk.period() + 0.5);
  }

  void step() {
    if (!job_) {
      next_trigger(go.value_changed_event());
      return;
    }
    if (!clk.posedge()) {  // woken between edges: act at the next one
      next_trigger(clk.posedge_event());
      return;
    }
    const uint64_t cycle = edge_index();
    if (starting_) {
      starting_ = false;
      begin_ = cycle;
      dram_.begin(*job_, in_);
      drv_.begin(*job_, cycle, in_);
    } else {
      DutOut o;
      o.cmd_ready = cmd_ready.read();
      o.idle = idle.read();
      o.csr_rdata = csr_rdata.read();
      o.req_valid = req_valid.read();
      o.req_write = req_write.read();
      o.req_bytes = req_bytes.read();
      o.req_id = req_id.read();
      o.req_addr = req_addr.read();
      o.wr_valid = wr_valid.read();
      if (o.wr_valid) {
        from_beat(wr_data.read(), wr_words_, beat_words_);
        o.wr_data = wr_words_;
      }
      drv_.edge(cycle, o, in_);
      dram_.edge(cycle, o, in_);
    }
    write_inputs();
    if (drv_.done()) {
      job_->edges = static_cast<long long>(cycle - begin_);
      job_ = nullptr;
      next_trigger(go.value_changed_event());
      sc_core::sc_pause();
      return;
    }
    const uint64_t due = std::min(drv_.due, dram_.due);
    if (due <= cycle + 1) {
      next_trigger(clk.posedge_event());
    } else if (due == kNoDue) {
      next_trigger(wakers_);
    } else {  // wake half a cycle before the due edge (or earlier on an output rising)
      next_trigger(clk.period() * static_cast<double>(due - cycle) - clk.period() / 2, wakers_);
    }
  }

  void write_inputs() {
    if (in_.cmd_dirty) {
      cmd_valid.write(in_.cmd_valid);
      cmd_last.write(in_.cmd_last);
      cmd_data.write(in_.cmd_data);
      in_.cmd_dirty = false;
    }
    if (in_.csr_dirty) {
      csr_addr.write(in_.csr_addr);
      in_.csr_dirty = false;
    }
    if (in_.rd_dirty) {
      rd_valid.write(in_.rd_valid);
      rd_last.write(in_.rd_last);
      in_.rd_dirty = false;
    }
    if (in_.rd_data_dirty) {
      BeatT v;
      to_beat(v, in_.rd_data.data(), beat_words_);
      rd_data.write(v);
      in_.rd_data_dirty = false;
    }
    if (in_.wr_dirty) {
      wr_ready.write(in_.wr_ready);
      wr_done.write(in_.wr_done);
      in_.wr_dirty = false;
    }
  }

  int beat_words_;         ///< DRAM beat in 32-bit words.
  TbJob* job_ = nullptr;   ///< Current job.
  bool starting_ = false;  ///< The job begins at the next edge.
  uint64_t begin_ = 0;     ///< Edge it began at.
  DutIn in_;               ///< Inputs driven for the next cycle.
  CmdDriver drv_;
  DramModel dram_;
  uint32_t wr_words_[kMaxBeatWords] = {};
  sc_core::sc_event_or_list wakers_;  ///< Outputs that can end a sleep.
};

}  // namespace mapwright::systemc::detail
