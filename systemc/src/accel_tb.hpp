#pragma once
// The SystemC testbench around one Verilated mw_accel model: clock and reset, the command
// driver (pushes the command words with valid/ready), the DRAM model (serves DMA requests with
// the architecture's latency and one beat of BeatBytes per cycle, gathering/scattering the
// tile's strided DRAM segments, optionally withholding beats at random), and a register reader.
// Both processes sleep on events while nothing crosses the boundary (a full command queue, a
// DRAM latency, a long computation), so the per-cycle cost is the model's own evaluation.
// Private to systemc/: never include it from a public header.

#include <systemc.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "mapwright/systemc/command_program.hpp"

namespace mapwright::systemc::detail {

/// Register map of mw_accel (rtl/README.md).
enum Csr : unsigned {
  kCsrRows = 0, kCsrCols, kCsrInBytes, kCsrWtBytes, kCsrAccWords, kCsrBeatBytes, kCsrMagic,
  kCsrStatus, kCsrMacs, kCsrSteps, kCsrFolds, kCsrInRd, kCsrInWr, kCsrWtRd, kCsrWtWr,
  kCsrAccRd, kCsrAccWr, kCsrDramIn, kCsrDramWt, kCsrDramOut, kCsrDramPsumWr, kCsrDramPsumRd,
  kCsrLoadIn, kCsrLoadWt, kCsrReload, kCsrSpill, kCsrStore, kCsrArrayBusy, kCsrArrayStall,
  kCsrDmaBusy, kCsrDramStall, kCsrCycle, kCsrFirst, kCsrLast, kCsrDmaDone, kCsrCmpDone,
  kCsrDmaQueue, kCsrCmpQueue, kCsrDecoder, kNumCsr
};

/// One run handed to the testbench.
struct TbJob {
  const CommandProgram* prog = nullptr;  ///< Commands and DMA segment lists.
  std::vector<uint8_t>* dram = nullptr;  ///< DRAM contents (tensors in DRAM layout).
  int latency = 1;                       ///< DRAM latency, cycles.
  double stall_prob = 0;                 ///< Chance a beat is withheld in a cycle.
  uint64_t seed = 1;                     ///< Stall seed.
  bool drop = false;                     ///< Never answer DRAM requests (stuck-design test).
  bool done = false;                     ///< The driver saw the accelerator idle after the last word.
  std::string failure;                   ///< DRAM-side protocol failure ("" = none).
  std::array<uint64_t, kNumCsr> csr{};   ///< Registers read at the end.
};

inline void to_beat(uint64_t& v, const uint8_t* b, int n) {
  v = 0;
  std::memcpy(&v, b, static_cast<size_t>(std::min(n, 8)));
}
template <int W>
void to_beat(sc_dt::sc_bv<W>& v, const uint8_t* b, int n) {
  for (int w = 0; w < W / 32; ++w) {
    uint32_t x = 0;
    for (int i = 0; i < 4 && 4 * w + i < n; ++i) x |= static_cast<uint32_t>(b[4 * w + i]) << (8 * i);
    v.set_word(w, x);
  }
}
inline void from_beat(const uint64_t& v, uint8_t* b, int n) {
  std::memcpy(b, &v, static_cast<size_t>(std::min(n, 8)));
}
template <int W>
void from_beat(const sc_dt::sc_bv<W>& v, uint8_t* b, int n) {
  for (int w = 0; w < W / 32; ++w) {
    const uint32_t x = v.get_word(w);
    for (int i = 0; i < 4 && 4 * w + i < n; ++i) b[4 * w + i] = static_cast<uint8_t>(x >> (8 * i));
  }
}

/// Walks a segment list as one byte stream.
class SegmentCursor {
 public:
  explicit SegmentCursor(const std::vector<DramSegment>& s) : segs_(s) {}
  /// DRAM address of the next stream byte (advances).
  uint64_t next() {
    while (seg_ < segs_.size() && off_ >= segs_[seg_].len) {
      ++seg_;
      off_ = 0;
    }
    return segs_[seg_].addr + off_++;
  }

 private:
  const std::vector<DramSegment>& segs_;  ///< The segments.
  size_t seg_ = 0;                        ///< Current segment.
  uint64_t off_ = 0;                      ///< Offset inside it.
};

template <class V>
class AccelTb : public sc_core::sc_module {
 public:
  using BeatT =
      typename std::remove_reference_t<decltype(std::declval<V&>().dram_rd_data_i)>::data_type;

  SC_HAS_PROCESS(AccelTb);
  AccelTb(sc_core::sc_module_name nm, int beat_bytes)
      : sc_module(nm), clk("clk", 10, sc_core::SC_NS, 0.5, 0, sc_core::SC_NS, true),
        dut("dut"), beat_bytes_(beat_bytes) {
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
    SC_THREAD(driver_thread);
    SC_THREAD(dram_thread);
  }

  sc_core::sc_clock clk;                 ///< The clock (10 ns; only cycles matter).
  sc_core::sc_signal<bool> rst_n;        ///< Active-low reset, driven by the host.
  sc_core::sc_signal<bool> go;           ///< Rising edge starts a job (host).
  sc_core::sc_signal<bool> abort;        ///< High: processes drop their job (host).
  sc_core::sc_signal<bool> cmd_valid, cmd_ready, cmd_last;
  sc_core::sc_signal<uint64_t> cmd_data;
  sc_core::sc_signal<bool> req_valid, req_write;
  sc_core::sc_signal<uint32_t> req_bytes, req_id;
  sc_core::sc_signal<bool> rd_valid, rd_last;
  sc_core::sc_signal<BeatT> rd_data;
  sc_core::sc_signal<bool> wr_valid, wr_ready, wr_done;
  sc_core::sc_signal<BeatT> wr_data;
  sc_core::sc_signal<uint32_t> csr_addr;
  sc_core::sc_signal<uint64_t> csr_rdata;
  sc_core::sc_signal<bool> idle;
  V dut;                                 ///< The Verilated accelerator.
  TbJob* job = nullptr;                  ///< Current job (set by the host between runs).

 private:
  /// Waits for the next rising edge; false when the job was aborted.
  bool edge() {
    wait(clk.posedge_event());
    return !abort.read();
  }
  bool edges(long long n) {
    for (long long i = 0; i < n; ++i)
      if (!edge()) return false;
    return true;
  }

  void driver_thread() {
    while (true) {
      wait(go.posedge_event());
      if (job && !abort.read()) drive(*job);
      cmd_valid.write(false);
    }
  }

  void drive(TbJob& j) {
    const CommandProgram& p = *j.prog;
    for (size_t i = 0; i < p.words.size(); ++i) {
      cmd_data.write(p.words[i]);
      cmd_last.write(p.last[i] != 0);
      cmd_valid.write(true);
      while (true) {
        if (!edge()) return;
        if (cmd_ready.read()) break;  // sampled at the edge: the word was taken
        // Not taken: sleep until the queue has room, then try at the next edge.
        if (!cmd_ready.read()) {
          wait(cmd_ready.posedge_event() | abort.posedge_event());
          if (abort.read()) return;
        }
      }
    }
    cmd_valid.write(false);
    while (!idle.read()) {
      wait(idle.posedge_event() | abort.posedge_event());
      if (abort.read()) return;
    }
    if (!edge()) return;
    for (unsigned a = 0; a < kNumCsr; ++a) {
      csr_addr.write(a);
      if (!edge()) return;
      j.csr[a] = csr_rdata.read();
    }
    j.done = true;
    sc_core::sc_pause();
  }

  void dram_thread() {
    wr_ready.write(true);
    while (true) {
      wait(req_valid.posedge_event() | abort.posedge_event());
      if (abort.read() || !job) {
        idle_outputs();
        continue;
      }
      if (!edge()) {
        idle_outputs();
        continue;
      }
      if (!serve(*job)) idle_outputs();
    }
  }

  void idle_outputs() {
    rd_valid.write(false);
    rd_last.write(false);
    wr_ready.write(true);
    wr_done.write(false);
  }

  /// Serves the request sampled at this edge; false when aborted or on a protocol failure.
  bool serve(TbJob& j) {
    const size_t k = served_++;
    const CommandProgram& p = *j.prog;
    if (k >= p.dma.size() || req_id.read() != k || req_bytes.read() != p.dma[k].bytes ||
        req_write.read() != p.dma[k].write) {
      if (j.failure.empty())
        j.failure = "dram: request " + std::to_string(k) + " (id " +
                    std::to_string(req_id.read()) + ", " + std::to_string(req_bytes.read()) +
                    " bytes) does not match the program";
      return false;
    }
    if (j.drop) return true;
    const DmaJob& d = p.dma[k];
    const int bb = beat_bytes_;
    const uint64_t nb = (d.bytes + bb - 1) / bb;
    SegmentCursor cur(d.segments);
    std::vector<uint8_t> buf(static_cast<size_t>(bb));
    std::vector<uint8_t>& mem = *j.dram;
    // We are at the start of cycle t0 + 1 (the request was in cycle t0). A transfer takes
    // latency + ceil(bytes / BeatBytes) cycles from t0 to its completion cycle inclusive.
    if (!d.write) {
      if (nb == 0) {  // completion (an empty last beat) in cycle t0 + latency - 1
        if (!edges(std::max(0, j.latency - 2))) return false;
        rd_valid.write(true);
        rd_last.write(true);
        if (!edge()) return false;
        rd_valid.write(false);
        rd_last.write(false);
        return true;
      }
      if (!edges(std::max(0, j.latency - 1))) return false;  // first beat in cycle t0 + latency
      uint64_t left = d.bytes;
      for (uint64_t b = 0; b < nb; ++b) {
        while (j.stall_prob > 0 && stall(j)) {
          rd_valid.write(false);
          if (!edge()) return false;
        }
        const int n = static_cast<int>(std::min<uint64_t>(left, bb));
        std::fill(buf.begin(), buf.end(), 0);
        for (int i = 0; i < n; ++i) buf[i] = mem[cur.next()];
        left -= n;
        BeatT v;
        to_beat(v, buf.data(), bb);
        rd_data.write(v);
        rd_valid.write(true);
        rd_last.write(b + 1 == nb);
        if (!edge()) return false;
      }
      rd_valid.write(false);
      rd_last.write(false);
      return true;
    }
    // Write: beats from cycle t0 + 1; acknowledged latency - 1 cycles after the last beat.
    uint64_t got = 0, left = d.bytes;
    while (got < nb) {
      const bool st = j.stall_prob > 0 && stall(j);
      wr_ready.write(!st);
      if (!edge()) return false;
      if (!st && wr_valid.read()) {
        const int n = static_cast<int>(std::min<uint64_t>(left, bb));
        from_beat(wr_data.read(), buf.data(), bb);
        for (int i = 0; i < n; ++i) mem[cur.next()] = buf[i];
        left -= n;
        ++got;
      }
    }
    wr_ready.write(true);
    if (!edges(std::max(0, j.latency - 2))) return false;
    wr_done.write(true);
    if (!edge()) return false;
    wr_done.write(false);
    return true;
  }

  bool stall(TbJob& j) {
    return std::uniform_real_distribution<double>(0, 1)(rng_) < j.stall_prob;
  }

 public:
  /// Prepares the DRAM side for a new job.
  void begin(TbJob& j) {
    job = &j;
    served_ = 0;
    rng_.seed(j.seed ^ 0x9e3779b97f4a7c15ull);
  }

 private:
  int beat_bytes_;           ///< DRAM bytes per beat.
  size_t served_ = 0;        ///< DMA requests served in this job.
  std::mt19937_64 rng_;      ///< Stall decisions.
};

}  // namespace mapwright::systemc::detail
