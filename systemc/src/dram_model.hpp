#pragma once
// The DRAM model of the testbench, in plain C++: serves DMA requests with the architecture's
// latency and one beat of BeatBytes per cycle, optionally withholding beats at random. Packed
// port: one request per DMA command, gathering/scattering the tile's strided DRAM segments (the
// driver's list). Bursts port: a plain byte-addressed memory serving addressed bursts in order,
// several in flight, knowing nothing about the program. A cycle-stepped state machine like the
// command driver (cmd_driver.hpp): edge() at each rising edge it must see, `due` and `wake`
// for the edges it may skip (it wakes on dram_req_valid rising). Shared by the SystemC
// testbench (accel_tb.hpp) and the plain C++ Verilator harness (plain_harness.hpp).
// Private to systemc/: never include it from a public header.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "dut_io.hpp"

namespace mapwright::systemc::detail {

/// Walks a segment list as one byte stream.
class SegmentCursor {
 public:
  void reset(const std::vector<DramSegment>* s) {
    segs_ = s;
    seg_ = 0;
    off_ = 0;
  }
  /// Copies the next n stream bytes out of mem (gather).
  void gather(const std::vector<uint8_t>& mem, uint8_t* dst, uint64_t n) {
    while (n > 0) {
      skip_empty();
      const DramSegment& s = (*segs_)[seg_];
      const uint64_t k = std::min(n, s.len - off_);
      std::memcpy(dst, mem.data() + s.addr + off_, k);
      dst += k;
      off_ += k;
      n -= k;
    }
  }
  /// Copies n bytes into the next stream positions of mem (scatter).
  void scatter(std::vector<uint8_t>& mem, const uint8_t* src, uint64_t n) {
    while (n > 0) {
      skip_empty();
      const DramSegment& s = (*segs_)[seg_];
      const uint64_t k = std::min(n, s.len - off_);
      std::memcpy(mem.data() + s.addr + off_, src, k);
      src += k;
      off_ += k;
      n -= k;
    }
  }

 private:
  void skip_empty() {
    while (seg_ < segs_->size() && off_ >= (*segs_)[seg_].len) {
      ++seg_;
      off_ = 0;
    }
  }
  const std::vector<DramSegment>* segs_ = nullptr;  ///< The segments.
  size_t seg_ = 0;                                  ///< Current segment.
  uint64_t off_ = 0;                                ///< Offset inside it.
};

/// The DRAM: beats of BeatBytes. Packed port: one DMA request at a time. Bursts port: addressed
/// bursts served in order; a read burst's first beat no earlier than `latency` cycles after its
/// request and after the previous burst's last beat, a write burst acknowledged `latency - 1`
/// cycles after its last beat.
class DramModel {
 public:
  explicit DramModel(int beat_bytes) : bb_(beat_bytes) {}

  void begin(TbJob& j, DutIn& in) {
    job_ = &j;
    served_ = 0;
    bursts_ = j.prog->bursts;
    reads_.clear();
    writes_.clear();
    acks_.clear();
    rng_.seed(j.options.seed ^ 0x9e3779b97f4a7c15ull);
    idle_outputs(in);
  }
  void stop(DutIn& in) {
    job_ = nullptr;
    idle_outputs(in);
  }

  /// Rising edge ending cycle `cycle - 1`; `o` holds that cycle's outputs.
  void edge(uint64_t cycle, const DutOut& o, DutIn& in) {
    if (!job_) return;
    if (bursts_) {
      edge_bursts(cycle, o, in);
      return;
    }
    if (cycle < due && st_ != St::Idle) return;
    switch (st_) {
      case St::Idle:
        if (o.req_valid) start(cycle, o, in);
        return;
      case St::ReadWait:  // first beat (or the empty last beat) in this cycle
        if (d_->bytes == 0) {
          in.rd_valid = true;
          in.rd_last = true;
          in.rd_dirty = true;
          st_ = St::ReadEmpty;
          next_edge(cycle);
          return;
        }
        st_ = St::ReadBeats;
        drive_read_beat(cycle, in);
        return;
      case St::ReadEmpty:
        idle_read(in);
        finish();
        return;
      case St::ReadBeats:
        if (in.rd_valid) ++beat_;  // the beat of the cycle just ended was taken
        if (beat_ == nbeats_) {
          idle_read(in);
          finish();
          return;
        }
        drive_read_beat(cycle, in);
        return;
      case St::Write:
        if (in.wr_ready && o.wr_valid) {
          const uint64_t n = std::min<uint64_t>(left_, static_cast<uint64_t>(bb_));
          cur_.scatter(*job_->dram, reinterpret_cast<const uint8_t*>(o.wr_data), n);
          left_ -= n;
          ++beat_;
        }
        if (beat_ < nbeats_) {
          set_wr_ready(in, !stall());
          next_edge(cycle);
          return;
        }
        set_wr_ready(in, true);
        // Acknowledged latency - 1 cycles after the last beat.
        if (job_->latency - 2 > 0) {
          st_ = St::WriteAck;
          due = cycle + static_cast<uint64_t>(job_->latency - 2);
          wake = Wake::Edge;
          return;
        }
        [[fallthrough]];
      case St::WriteAck:
        in.wr_done = true;
        in.wr_dirty = true;
        st_ = St::WriteDone;
        next_edge(cycle);
        return;
      case St::WriteDone:
        in.wr_done = false;
        in.wr_dirty = true;
        finish();
        return;
    }
  }

  uint64_t due = kNoDue;    ///< Next cycle whose edge it must see.
  Wake wake = Wake::Never;  ///< Otherwise waits for this.

 private:
  enum class St : uint8_t { Idle, ReadWait, ReadEmpty, ReadBeats, Write, WriteAck, WriteDone };

  void next_edge(uint64_t cycle) {
    due = cycle + 1;
    wake = Wake::Edge;
  }
  void finish() {
    st_ = St::Idle;
    due = kNoDue;
    wake = Wake::ReqValid;
  }
  void idle_read(DutIn& in) {
    in.rd_valid = false;
    in.rd_last = false;
    in.rd_dirty = true;
  }
  void set_wr_ready(DutIn& in, bool r) {
    if (in.wr_ready != r) {
      in.wr_ready = r;
      in.wr_dirty = true;
    }
  }
  void idle_outputs(DutIn& in) {
    st_ = St::Idle;
    in.rd_valid = in.rd_last = false;
    in.rd_dirty = true;
    in.wr_ready = true;
    in.wr_done = false;
    in.wr_dirty = true;
    due = kNoDue;
    wake = job_ ? Wake::ReqValid : Wake::Never;
  }
  bool stall() {
    return job_->options.stall_prob > 0 &&
           std::uniform_real_distribution<double>(0, 1)(rng_) < job_->options.stall_prob;
  }

  /// The request was in the cycle that just ended (t0); we drive cycle t0 + 1.
  void start(uint64_t cycle, const DutOut& o, DutIn& in) {
    TbJob& j = *job_;
    const size_t k = served_++;
    const CommandProgram& p = *j.prog;
    if (k >= p.dma.size() || o.req_id != k || o.req_bytes != p.dma[k].bytes ||
        o.req_write != p.dma[k].write) {
      if (j.failure.empty())
        j.failure = "dram: request " + std::to_string(k) + " (id " + std::to_string(o.req_id) +
                    ", " + std::to_string(o.req_bytes) + " bytes) does not match the program";
      idle_outputs(in);
      return;
    }
    if (j.options.drop_dram_responses) return;
    d_ = &p.dma[k];
    nbeats_ = (d_->bytes + static_cast<uint64_t>(bb_) - 1) / static_cast<uint64_t>(bb_);
    beat_ = 0;
    left_ = d_->bytes;
    cur_.reset(&d_->segments);
    if (!d_->write) {
      // A transfer takes latency + ceil(bytes / BeatBytes) cycles from t0 to its completion
      // cycle inclusive: the first beat in cycle t0 + latency, an empty last beat (zero bytes)
      // in cycle t0 + latency - 1.
      const int wait = d_->bytes == 0 ? j.latency - 2 : j.latency - 1;
      st_ = St::ReadWait;
      if (wait > 0) {
        due = cycle + static_cast<uint64_t>(wait);
        wake = Wake::Edge;
        in.rd_valid = false;
        return;
      }
      due = cycle;
      edge(cycle, o, in);  // drive it now
      return;
    }
    // Write: beats from cycle t0 + 1.
    st_ = St::Write;
    set_wr_ready(in, !stall());
    next_edge(cycle);
  }

  void drive_read_beat(uint64_t cycle, DutIn& in) {
    next_edge(cycle);
    if (stall()) {
      if (in.rd_valid) {
        in.rd_valid = false;
        in.rd_dirty = true;
      }
      return;
    }
    const uint64_t n = std::min<uint64_t>(left_, static_cast<uint64_t>(bb_));
    std::array<uint8_t, 4 * kMaxBeatWords> buf{};
    cur_.gather(*job_->dram, buf.data(), n);
    left_ -= n;
    std::memcpy(in.rd_data.data(), buf.data(), static_cast<size_t>(bb_));
    in.rd_data_dirty = true;
    in.rd_valid = true;
    in.rd_last = beat_ + 1 == nbeats_;
    in.rd_dirty = true;
  }

  /// One burst of the bursts port.
  struct Burst {
    uint64_t addr = 0, bytes = 0, off = 0;  ///< First byte, length, bytes moved.
    uint64_t t = 0;                         ///< Cycle of its request.
  };

  void fail(const std::string& what) {
    if (job_->failure.empty()) job_->failure = what;
  }

  /// Bursts port. Takes the cycle that just ended (a write beat, a request), then drives the
  /// next one; sees every edge while a burst or an acknowledgement is pending.
  void edge_bursts(uint64_t cycle, const DutOut& o, DutIn& in) {
    TbJob& j = *job_;
    const uint64_t now = cycle - 1;  // the cycle whose outputs `o` holds
    const uint64_t lat = static_cast<uint64_t>(j.latency);
    if (in.wr_ready && o.wr_valid) {  // a write beat was taken
      if (writes_.empty()) {
        fail("dram: a write beat without a write burst requested");
      } else {
        Burst& w = writes_.front();
        const uint64_t n = std::min<uint64_t>(w.bytes - w.off, static_cast<uint64_t>(bb_));
        std::memcpy(j.dram->data() + w.addr + w.off, o.wr_data, n);
        w.off += n;
        if (w.off == w.bytes) {
          acks_.push_back(now + lat - 1);
          writes_.pop_front();
        }
      }
    }
    if (o.req_valid && !j.options.drop_dram_responses) {
      if (o.req_addr + o.req_bytes > j.dram->size()) {
        fail("dram: a burst of " + std::to_string(o.req_bytes) + " bytes at address " +
             std::to_string(o.req_addr) + " lies outside the " + std::to_string(j.dram->size()) +
             "-byte memory");
      } else if (o.req_write) {
        if (o.req_bytes == 0)
          acks_.push_back(now + lat - 1);
        else
          writes_.push_back({o.req_addr, o.req_bytes, 0, now});
      } else {
        reads_.push_back({o.req_addr, o.req_bytes, 0, now});
      }
    }
    // Drive the read beat of this cycle, if the head burst has one due.
    bool rd = false, last = false;
    if (!reads_.empty()) {
      Burst& r = reads_.front();
      if (r.bytes == 0) {
        rd = last = cycle + 1 >= r.t + lat;  // an empty last beat, latency - 1 after the request
      } else if (cycle >= r.t + lat && !stall()) {
        const uint64_t n = std::min<uint64_t>(r.bytes - r.off, static_cast<uint64_t>(bb_));
        std::array<uint8_t, 4 * kMaxBeatWords> buf{};
        std::memcpy(buf.data(), j.dram->data() + r.addr + r.off, n);
        std::memcpy(in.rd_data.data(), buf.data(), static_cast<size_t>(bb_));
        in.rd_data_dirty = true;
        r.off += n;
        rd = true;
        last = r.off == r.bytes;
        if (j.options.misflag_burst_last && !last &&
            r.off == n) {  // test hook: a wrong last flag, once
          j.options.misflag_burst_last = false;
          in.rd_last = true;
          in.rd_valid = true;
          in.rd_dirty = true;
          next_edge(cycle);
          return;
        }
      }
      if (last) reads_.pop_front();
    }
    if (in.rd_valid != rd || in.rd_last != last) {
      in.rd_valid = rd;
      in.rd_last = last;
      in.rd_dirty = true;
    }
    set_wr_ready(in, writes_.empty() || !stall());
    const bool ack = !acks_.empty() && acks_.front() == cycle;
    if (ack) acks_.pop_front();
    if (in.wr_done != ack) {
      in.wr_done = ack;
      in.wr_dirty = true;
    }
    if (!reads_.empty() || !writes_.empty() || !acks_.empty() || rd || ack) {
      next_edge(cycle);
    } else {
      due = kNoDue;
      wake = Wake::ReqValid;
    }
  }

  int bb_;                            ///< DRAM bytes per beat.
  bool bursts_ = false;               ///< Bursts port (else packed).
  std::deque<Burst> reads_, writes_;  ///< Requested bursts not yet served, in order.
  std::deque<uint64_t> acks_;         ///< Cycles of the pending write acknowledgements.
  TbJob* job_ = nullptr;
  St st_ = St::Idle;
  size_t served_ = 0;          ///< DMA requests served in this job.
  const DmaJob* d_ = nullptr;  ///< Request being served.
  uint64_t nbeats_ = 0, beat_ = 0, left_ = 0;
  SegmentCursor cur_;
  std::mt19937_64 rng_;  ///< Stall decisions.
};

}  // namespace mapwright::systemc::detail
