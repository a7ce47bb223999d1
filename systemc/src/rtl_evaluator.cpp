// The RTL evaluator: owns the process's one SystemC simulation (elaborated on first use for the
// Verilated model matching the architecture, reset between runs), turns a layer + mapping into
// a command program, fills DRAM with random operands, runs the testbench under a watchdog, and
// returns the hardware's cycles and counters and the bit-exact check against the C++ reference.
// Before anything is built it checks that the mapping fits the layer, the architecture and the
// harness; the run's limits are checked before that by the caller's admission
// (rtlpool::admit_run), whose estimates it takes (estimate_run_memory is the memory's).
#include "mapwright/systemc/rtl_evaluator.hpp"

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
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <sstream>

#include "accel_tb.hpp"
#include "assertion_stop.hpp"
#include "accel_lt.hpp"
#include "plain_harness.hpp"
#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/support/error.hpp"
#include "mw_models.h"

namespace mapwright::systemc {

using detail::TbJob;
using rtl::RtlRunResult;
using rtl::SimLimits;

namespace {

constexpr double kPeriodNs = 10.0;

/// CPU time of the calling thread (wall time on a shared machine includes other jobs).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Simulated cycles between two looks at the wall clock (SimLimits::max_seconds).
constexpr long long kSliceCycles = 1 << 16;

#if !MAPWRIGHT_RTL_TRACE
constexpr const char* kUntracedModel =
    "trace: this RTL model is built without tracing (the model cache builds a traced one for "
    "`mapwright verify --trace`)";
#endif

/// How a simulation ended.
enum class RunEnd { Done, Watchdog, WallClock, Assertion };

/// The process's simulation: one testbench around one model type.
class SimHost {
 public:
  virtual ~SimHost() = default;
  /// Runs a job to completion, for at most `limit` cycles or (if `max_seconds` > 0) about that
  /// many seconds of wall clock, whichever comes first.
  virtual RunEnd run(TbJob& job, long long limit, double max_seconds, const std::string& trace_file,
                     std::string& trace_error) = 0;
  /// Reads one register between runs.
  virtual uint64_t read_csr(unsigned addr) = 0;
  std::string arch;                          ///< Name of the architecture it was elaborated for.
  RtlParams params;                          ///< Compiled parameters.
  RtlHarness harness = RtlHarness::SystemC;  ///< What it is.
};

template <class V>
class SimHostT final : public SimHost {
 public:
  explicit SimHostT(int beat_bytes) {
#if MAPWRIGHT_RTL_TRACE
    Verilated::traceEverOn(true);
#endif
    tb_ = std::make_unique<detail::AccelTb<V>>("tb", beat_bytes);
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
    detail::clear_assertion_stop();
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
      if (detail::assertion_stop().hit) {  // vl_stop paused the kernel
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
  void cycles(long long n) {
    sc_core::sc_start(sc_core::sc_time(kPeriodNs * static_cast<double>(n), sc_core::SC_NS));
  }
  std::unique_ptr<detail::AccelTb<V>> tb_;  ///< The testbench.
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
    detail::clear_assertion_stop();
    const bool done = h_.run(job, limit);
    if (detail::assertion_stop().hit) return RunEnd::Assertion;
    return done ? RunEnd::Done : RunEnd::Watchdog;
  }
  uint64_t read_csr(unsigned addr) override { return h_.read_csr(addr); }

 private:
  detail::PlainHarness<V> h_;
};

/// The temporally decoupled SystemC harness (accel_lt.hpp) around a plain model.
template <class V>
class DecoupledHostT final : public SimHost {
 public:
  explicit DecoupledHostT(int beat_bytes) {
    lt_ = std::make_unique<detail::AccelLt<V>>("lt", beat_bytes,
                                               sc_core::sc_time(kPeriodNs, sc_core::SC_NS));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  RunEnd run(TbJob& job, long long limit, double max_seconds, const std::string& trace_file,
             std::string& trace_error) override {
    if (!trace_file.empty())
      trace_error = "trace: the decoupled SystemC harness does not trace (its model is plain C++)";
    detail::clear_assertion_stop();
    lt_->start(job, limit, max_seconds);
    // The thread pauses the kernel when the job ends; a failed SVA pauses it earlier.
    while (!lt_->finished() && sc_core::sc_pending_activity()) sc_core::sc_start();
    if (detail::assertion_stop().hit) return RunEnd::Assertion;
    if (lt_->wall_clock()) return RunEnd::WallClock;
    return lt_->done() ? RunEnd::Done : RunEnd::Watchdog;
  }
  uint64_t read_csr(unsigned addr) override { return lt_->read_csr(addr); }

 private:
  std::unique_ptr<detail::AccelLt<V>> lt_;
};

// The process's plain host (any number of architectures in turn; no SystemC involved).
std::unique_ptr<SimHost>& plain_host() {
  static auto* h = new std::unique_ptr<SimHost>();
  return *h;
}

// The process's host. Never destroyed: SystemC modules must outlive the simulation kernel and
// Verilator's context, which are torn down at exit in an order we do not control.
std::unique_ptr<SimHost>& host() {
  static auto* h = new std::unique_ptr<SimHost>();
  return *h;
}

std::string describe(const RtlParams& p) {
  std::ostringstream os;
  os << p.rows << "x" << p.cols << ", input " << p.input_buf_bytes << " B, weight "
     << p.weight_buf_bytes << " B, accumulator " << p.accum_buf_words << " words, " << p.beat_bytes
     << " B/cycle";
  if (p.buf_banks) os << ", " << p.buf_banks << " banks";
  return os.str();
}

RtlParams params_of(const core::Arch& a) {
  RtlParams p;
  p.rows = a.rows;
  p.cols = a.cols;
  p.input_buf_bytes = a.input_buf_bytes;
  p.weight_buf_bytes = a.weight_buf_bytes;
  p.accum_buf_words = a.accum_buf_bytes / 4;
  p.beat_bytes = static_cast<long long>(a.dram_bytes_per_cycle);
  p.buf_banks = a.buffer_banks;
  return p;
}

bool same(const RtlParams& a, const RtlParams& b) {
  return a.rows == b.rows && a.cols == b.cols && a.input_buf_bytes == b.input_buf_bytes &&
         a.weight_buf_bytes == b.weight_buf_bytes && a.accum_buf_words == b.accum_buf_words &&
         a.beat_bytes == b.beat_bytes && a.buf_banks == b.buf_banks;
}

/// Builds host type `Host` into `h` when no host is there yet and the model's parameters `p`
/// are the ones `want`ed (one call per compiled model, from the generated model list).
template <typename Host>
void try_model(std::unique_ptr<SimHost>& h, const std::string& arch, const RtlParams& want,
               const RtlParams& p, RtlHarness harness) {
  if (h || !same(p, want)) return;
  h = std::make_unique<Host>(static_cast<int>(p.beat_bytes));
  h->arch = arch;
  h->params = p;
  h->harness = harness;
}

/// Returns the process's SystemC host (`harness` SystemC or Decoupled) for `arch`, elaborating
/// it on first use.
SimHost* host_for(const core::Arch& arch, RtlHarness harness, std::string& failure) {
  const RtlParams want = params_of(arch);
  auto& h = host();
  if (h) {
    if (!same(h->params, want) || h->harness != harness) {
      failure = "arch: this process already elaborated the " +
                std::string(harness_label(h->harness)) + " harness for '" + h->arch + "' (" +
                describe(h->params) + "); the " + harness_label(harness) + " harness" + " for '" +
                arch.name + "' (" + describe(want) +
                ") needs its own process (one SystemC simulation per process)";
      return nullptr;
    }
    return h.get();
  }
  if (harness == RtlHarness::Decoupled) {
#define MW_TRY_LT(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  try_model<DecoupledHostT<TYPE>>(h, arch.name, want,                  \
                                  {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, harness);
    MW_FOR_EACH_PLAIN_MODEL(MW_TRY_LT)
#undef MW_TRY_LT
    if (!h)
      failure = "arch: no plain C++ Verilated model for '" + arch.name + "' (" + describe(want) +
                "), which the decoupled SystemC harness steps; see MAPWRIGHT_RTL_PLAIN_ARCHS in "
                "systemc/CMakeLists.txt";
    return h.get();
  }
#define MW_TRY_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS)                       \
  try_model<SimHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, \
                            harness);
  MW_FOR_EACH_MODEL(MW_TRY_MODEL)
#undef MW_TRY_MODEL
  if (!h) {
    failure =
        "arch: no Verilated model for '" + arch.name + "' (" + describe(want) + "); compiled: ";
    for (const auto& n : RtlEvaluator::compiled_archs()) failure += n + " ";
    return nullptr;
  }
  return h.get();
}

/// Returns a plain C++ harness for `arch`, replacing one built for another architecture.
SimHost* plain_host_for(const core::Arch& arch, std::string& failure) {
  const RtlParams want = params_of(arch);
  auto& h = plain_host();
  if (h && same(h->params, want)) return h.get();
  h.reset();
#define MW_TRY_PLAIN(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS)                         \
  try_model<PlainHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, \
                              RtlHarness::Plain);
  MW_FOR_EACH_PLAIN_MODEL(MW_TRY_PLAIN)
#undef MW_TRY_PLAIN
  if (!h) {
    failure = "arch: no plain C++ Verilated model for '" + arch.name + "' (" + describe(want) +
              "); see MAPWRIGHT_RTL_PLAIN_ARCHS in systemc/CMakeLists.txt";
    return nullptr;
  }
  return h.get();
}

/// Segments of one DMA command whose stream walks `dims` (innermost first; ext = tile extent,
/// full = the whole loop): consecutive segments merge while every inner dimension is whole,
/// so only the dimensions outside the first partial one multiply.
double merged_segments(std::initializer_list<std::pair<double, bool>> dims) {
  double segs = 1;
  bool partial_seen = false;
  for (const auto& [ext, full] : dims) {
    if (partial_seen) segs *= ext;
    partial_seen = partial_seen || !full;
  }
  return segs;
}

}  // namespace

RunMemoryEstimate estimate_run_memory(const core::Layer& l, const core::Arch& arch,
                                      const core::Mapping& m, const core::AccessCounts& c) {
  using core::Dim;
  const auto trips = core::trip_counts(l, m);
  auto t = [&](Dim d) { return static_cast<double>(std::min<int64_t>(m.tile_of(d), l.dim(d))); };
  auto full = [&](Dim d) { return m.tile_of(d) >= l.dim(d); };
  auto T = [&](Dim d) { return static_cast<double>(trips[static_cast<int>(d)]); };
  const double out_elems = static_cast<double>(l.output_elems());
  RunMemoryEstimate e;
  e.dram_bytes = static_cast<double>(l.input_elems() + l.weight_elems()) + 5 * out_elems;
  e.tensor_bytes = static_cast<double>(l.input_elems() + l.weight_elems()) + out_elems;

  // Command words: CONFIG (2), one COMPUTE (5) per step, 2 per DMA command.
  const double dma = static_cast<double>(c.input_loads + c.weight_loads + c.psum_reloads +
                                         c.psum_spills + c.output_stores);
  const double words = 2 + 5 * static_cast<double>(c.steps) + 2 * dma;
  // Segments per command (a tile may be a smaller remainder: these are upper bounds), capped
  // by the bytes moved (a segment holds at least one byte).
  const double rows = std::min<double>(l.h, (t(Dim::P) - 1) * l.stride + t(Dim::R));
  const double cols = std::min<double>(l.w, (t(Dim::Q) - 1) * l.stride + t(Dim::S));
  const bool cols_run = t(Dim::S) >= l.stride || t(Dim::Q) == 1;  // held columns adjacent
  // Input stream [n][hrow][wcol][g][c] (core/dram_layout.hpp): with the whole C a pixel's groups
  // are one run, with every group too a row of adjacent columns.
  const double in_per = full(Dim::C) && full(Dim::G) && cols_run ? t(Dim::N) * rows
                        : full(Dim::C)                           ? t(Dim::N) * rows * cols
                                       : t(Dim::G) * t(Dim::N) * rows * cols;
  const double wt_per = merged_segments({{t(Dim::K), full(Dim::K)},
                                         {t(Dim::C), full(Dim::C)},
                                         {t(Dim::S), full(Dim::S)},
                                         {t(Dim::R), full(Dim::R)},
                                         {t(Dim::G), full(Dim::G)}});
  const double out_per = merged_segments({{1, full(Dim::K)},
                                          {t(Dim::G), full(Dim::G)},
                                          {t(Dim::Q), full(Dim::Q)},
                                          {t(Dim::P), full(Dim::P)},
                                          {t(Dim::N), full(Dim::N)}});
  const double out_cmds = static_cast<double>(c.psum_reloads + c.psum_spills + c.output_stores);
  auto d = [](long long v) { return static_cast<double>(v); };
  const double out_bytes =
      d(c.dram_output_bytes) + d(c.dram_psum_write_bytes + c.dram_psum_read_bytes) / 4;
  const double segs = std::min(d(c.input_loads) * in_per, d(c.dram_input_bytes)) +
                      std::min(d(c.weight_loads) * wt_per, d(c.dram_weight_bytes)) +
                      std::min(out_cmds * out_per, out_bytes);
  // Vectors grown by push_back hold at most twice their size; each segment list is its own
  // heap block (header and rounding: 32 bytes).
  e.program_bytes = 2 * (words * (sizeof(uint64_t) + sizeof(uint8_t)) + dma * sizeof(DmaJob) +
                         segs * sizeof(DramSegment)) +
                    32 * dma;
  // The walk's hash map: one node (~64 bytes with its bucket) per output tile, plus the
  // row lists of one input tile.
  const double out_tiles = T(Dim::G) * T(Dim::N) * T(Dim::K) * T(Dim::P) * T(Dim::Q);
  e.walk_bytes = 64 * out_tiles + 32 * (t(Dim::P) * t(Dim::R) + t(Dim::Q) * t(Dim::S));
  return e;
}

namespace {

/// The failure of a run that did not complete within `limit` cycles, with the design's state.
std::string watchdog_failure(SimHost& h, const CommandProgram& prog, const TbJob& job,
                             long long limit) {
  std::ostringstream os;
  os << "watchdog: no completion after " << limit << " cycles; DMA commands done "
     << h.read_csr(detail::kCsrDmaDone) << "/" << prog.dma_commands << ", compute commands done "
     << h.read_csr(detail::kCsrCmpDone) << "/" << prog.compute_commands << ", DMA queue "
     << h.read_csr(detail::kCsrDmaQueue) << ", compute queue " << h.read_csr(detail::kCsrCmpQueue)
     << ", status 0x" << std::hex << h.read_csr(detail::kCsrStatus);
  if (!job.failure.empty()) os << "; " << job.failure;
  return os.str();
}

/// The failure of a run whose status register flags an error.
std::string status_failure(uint64_t status) {
  std::ostringstream os;
  os << "rtl error: status 0x" << std::hex << status << " ("
     << ((status & 4) ? "command decoder " : "") << ((status & 8) ? "dma " : "")
     << ((status & 16) ? "compute " : "") << "error)";
  return os.str();
}

/// Copies the hardware counters of a completed job into the result.
void read_counters(const std::array<uint64_t, detail::kNumCsr>& c, RtlRunResult& res) {
  core::AccessCounts& a = res.counts;
  auto g = [&](detail::Csr i) { return static_cast<long long>(c[i]); };
  a.macs = g(detail::kCsrMacs);
  a.steps = g(detail::kCsrSteps);
  a.folds = g(detail::kCsrFolds);
  a.input_buf_reads = g(detail::kCsrInRd);
  a.input_buf_writes = g(detail::kCsrInWr);
  a.weight_buf_reads = g(detail::kCsrWtRd);
  a.weight_buf_writes = g(detail::kCsrWtWr);
  a.accum_reads = g(detail::kCsrAccRd);
  a.accum_writes = g(detail::kCsrAccWr);
  a.dram_input_bytes = g(detail::kCsrDramIn);
  a.dram_weight_bytes = g(detail::kCsrDramWt);
  a.dram_output_bytes = g(detail::kCsrDramOut);
  a.dram_psum_write_bytes = g(detail::kCsrDramPsumWr);
  a.dram_psum_read_bytes = g(detail::kCsrDramPsumRd);
  a.input_loads = g(detail::kCsrLoadIn);
  a.weight_loads = g(detail::kCsrLoadWt);
  a.psum_reloads = g(detail::kCsrReload);
  a.psum_spills = g(detail::kCsrSpill);
  a.output_stores = g(detail::kCsrStore);
  res.cycles = g(detail::kCsrLast) - g(detail::kCsrFirst) + 1;
  res.array_busy_cycles = g(detail::kCsrArrayBusy);
  res.array_stall_cycles = g(detail::kCsrArrayStall);
  res.input_bank_stalls = g(detail::kCsrInBankStall);
  res.weight_bank_stalls = g(detail::kCsrWtBankStall);
  res.accum_bank_stalls = g(detail::kCsrAccBankStall);
  res.dma_busy_cycles = g(detail::kCsrDmaBusy);
  res.dram_stall_cycles = g(detail::kCsrDramStall);
}

}  // namespace

std::vector<std::string> RtlEvaluator::compiled_archs() {
  std::vector<std::string> v;
#define MW_NAME(NAME, ...) v.push_back(NAME);
  MW_FOR_EACH_MODEL(MW_NAME)
#undef MW_NAME
  return v;
}

std::vector<std::string> RtlEvaluator::plain_archs() {
  std::vector<std::string> v;
#define MW_NAME(NAME, ...) v.push_back(NAME);
  MW_FOR_EACH_PLAIN_MODEL(MW_NAME)
#undef MW_NAME
  return v;
}

bool RtlEvaluator::has_plain_model(const core::Arch& arch) {
  const RtlParams want = params_of(arch);
  bool found = false;
#define MW_HAS_PLAIN(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  found = found || same(want, RtlParams{ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS});
  MW_FOR_EACH_PLAIN_MODEL(MW_HAS_PLAIN)
#undef MW_HAS_PLAIN
  return found;
}

RtlHarness RtlEvaluator::resolve(RtlHarness harness, const core::Arch& arch, bool traced) {
  if (harness != RtlHarness::Auto) return harness;
  // The process's SystemC harness stays (one SystemC simulation per process); a mismatch in
  // architecture is reported by host_for as for any other harness.
  if (const auto& h = host()) return h->harness;
  return !traced && has_plain_model(arch) ? RtlHarness::Decoupled : RtlHarness::SystemC;
}

const char* harness_label(RtlHarness h) {
  switch (h) {
    case RtlHarness::SystemC:
      return "pin-level SystemC";
    case RtlHarness::Decoupled:
      return "decoupled SystemC";
    case RtlHarness::Plain:
      return "plain C++";
    case RtlHarness::Auto:
      break;
  }
  return "auto";
}

std::vector<std::pair<std::string, RtlParams>> RtlEvaluator::compiled_models() {
  std::vector<std::pair<std::string, RtlParams>> v;
#define MW_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  v.push_back({NAME, RtlParams{ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}});
  MW_FOR_EACH_MODEL(MW_MODEL)
#undef MW_MODEL
  return v;
}

bool RtlEvaluator::read_params(const core::Arch& arch, RtlParams& p, std::string& failure,
                               RtlHarness requested) {
  const RtlHarness harness = resolve(requested, arch);
  SimHost* h = harness == RtlHarness::Plain ? plain_host_for(arch, failure)
                                            : host_for(arch, harness, failure);
  if (!h) return false;
  p.rows = static_cast<long long>(h->read_csr(detail::kCsrRows));
  p.cols = static_cast<long long>(h->read_csr(detail::kCsrCols));
  p.input_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrInBytes));
  p.weight_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrWtBytes));
  p.accum_buf_words = static_cast<long long>(h->read_csr(detail::kCsrAccWords));
  p.beat_bytes = static_cast<long long>(h->read_csr(detail::kCsrBeatBytes));
  p.max_bursts = static_cast<long long>(h->read_csr(detail::kCsrMaxBursts));
  p.buf_banks = static_cast<long long>(h->read_csr(detail::kCsrBufBanks));
  return true;
}

namespace {

/// Marks `res` as failed with `kind` and `message` (also the metrics' reason); returns it.
RtlRunResult& failed(RtlRunResult& res, core::RtlFailure kind, const std::string& message) {
  res.kind = kind;
  res.failure = message;
  res.metrics.reason = message;
  return res;
}

}  // namespace

bool RtlEvaluator::precheck(const core::Layer& layer, const core::Arch& arch,
                            const core::Mapping& mapping, RtlRunResult& res) {
  try {
    core::check_mapping(mapping, layer, arch, "rtl");
  } catch (const core::SpecError& e) {
    failed(res, core::RtlFailure::Mapping, std::string("mapping: ") + e.what());
    return false;
  }
  const core::Validity v = core::check_valid(layer, arch, mapping);
  if (!v.ok()) {
    res.metrics.invalid = v.kind;
    res.metrics.reason = v.reason();
    res.kind = core::RtlFailure::Invalid;
    res.failure = "invalid: " + res.metrics.reason;
    return false;
  }
  if (arch.dram_latency_cycles < 2) {
    // Zero-byte loads complete latency - 1 cycles after their request; see rtl/README.md.
    failed(res, core::RtlFailure::Arch,
           "arch: the RTL harness needs a DRAM latency of at least 2 cycles");
    return false;
  }
  if (arch.dram_port == core::DramPort::Bursts &&
      arch.dram_latency_cycles + 1 > core::kRtlMaxBursts) {
    // The bursts port keeps at most kRtlMaxBursts in flight (rtl/README.md).
    failed(res, core::RtlFailure::Arch,
           "arch: dram.latency_cycles " + std::to_string(arch.dram_latency_cycles) +
               " needs more bursts in flight than the RTL's " +
               std::to_string(core::kRtlMaxBursts) + " on the bursts port");
    return false;
  }
  return true;
}

RtlRunResult RtlEvaluator::run(const core::Layer& layer, const core::Arch& arch,
                               const core::Mapping& mapping, const rtl::RunAdmission& admission,
                               const RtlRunOptions& opt) {
  RtlRunResult res;
  core::Metrics& m = res.metrics;
  const RtlHarness harness = resolve(opt.harness, arch, !opt.trace_file.empty());
  res.harness = harness_label(harness);
  if (!precheck(layer, arch, mapping, res)) return res;
  res.estimated_memory_mb = admission.estimated_memory_mb;
  res.predicted_cycles = admission.predicted_cycles;
  if (!admission.admitted()) return failed(res, core::RtlFailure::Limit, admission.refusal);
  SimHost* h = harness == RtlHarness::Plain ? plain_host_for(arch, res.failure)
                                            : host_for(arch, harness, res.failure);
  if (!h) return failed(res, core::RtlFailure::Arch, res.failure);

  CommandProgram prog;
  const int shift = opt.shift >= 0 ? opt.shift : default_shift(layer);
  if (!build_program(layer, arch, mapping, shift, prog, res.failure))
    return failed(res, core::RtlFailure::CommandFormat, res.failure);
  // Test hooks on the first compute command (opcode 7): clear its K extent (bits 48..63 of
  // word 2), or set its accumulator base (bits 40..59 of word 3) to all ones.
  if (opt.zero_compute_extent || opt.acc_base_past_end)
    for (size_t w = 0; w + 3 < prog.words.size(); ++w)
      if ((w == 0 || prog.last[w - 1]) && (prog.words[w] & 0xf) == 7) {
        if (opt.zero_compute_extent) prog.words[w + 2] &= 0x0000ffffffffffffULL;
        if (opt.acc_base_past_end) prog.words[w + 3] |= 0xfffffULL << 40;
        break;
      }
  // DRAM: random operands, a sentinel in the output and psum areas.
  std::vector<uint8_t> dram(prog.dram_bytes, 0xa5);
  const auto in = random_tensor(opt.seed * 2 + 1, static_cast<uint64_t>(layer.input_elems()));
  const auto wt = random_tensor(opt.seed * 2 + 2, static_cast<uint64_t>(layer.weight_elems()));
  std::memcpy(dram.data() + prog.input_addr, in.data(), in.size());
  std::memcpy(dram.data() + prog.weight_addr, wt.data(), wt.size());

  TbJob job;
  job.prog = &prog;
  job.dram = &dram;
  job.latency = arch.dram_latency_cycles;
  job.stall_prob = opt.stall_prob;
  job.seed = opt.seed;
  job.drop = opt.drop_dram_responses;
  job.unheld_command = opt.unheld_command;
  job.misflag_burst_last = opt.misflag_burst_last;
  long long limit = opt.watchdog_cycles;
  if (limit <= 0) {
    const double slow = 1.0 / std::max(0.05, 1.0 - opt.stall_prob);
    limit = static_cast<long long>(4.0 * slow * static_cast<double>(res.predicted_cycles)) +
            static_cast<long long>(prog.words.size()) * 4 + 10000;
  }
  std::string trace_error;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  const RunEnd end = h->run(job, limit, opt.limits.max_seconds, opt.trace_file, trace_error);
  res.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.sim_cpu_seconds = thread_cpu_seconds() - c0;
  res.sim_cycles = job.edges;
  if (end == RunEnd::WallClock)
    return failed(res, core::RtlFailure::Limit, rtl::wall_clock_failure(opt.limits.max_seconds));
  if (end == RunEnd::Assertion)
    return failed(res, core::RtlFailure::Assertion,
                  describe(detail::assertion_stop()) + " at cycle " + std::to_string(job.edges));
  if (end != RunEnd::Done)
    return failed(res, core::RtlFailure::Watchdog, watchdog_failure(*h, prog, job, limit));
  if (!job.failure.empty()) return failed(res, core::RtlFailure::Dram, job.failure);
  const auto& c = job.csr;
  if (c[detail::kCsrStatus] & 0x1c)
    return failed(res, core::RtlFailure::RtlError, status_failure(c[detail::kCsrStatus]));
  read_counters(c, res);

  // Functional check.
  const auto ref = reference_output(layer, in, wt, shift);
  for (size_t i = 0; i < ref.size(); ++i)
    if (static_cast<int8_t>(dram[prog.output_addr + i]) != ref[i]) ++res.mismatches;
  res.functional_ok = res.mismatches == 0;

  m.valid = true;
  m.counts = res.counts;
  m.cycles = res.cycles;
  m.compute_cycles = res.array_busy_cycles;
  m.dma_cycles = res.dma_busy_cycles;
  core::finish_metrics(m, layer, arch, mapping);
  if (!trace_error.empty()) {
    res.kind = core::RtlFailure::Trace;
    res.failure = trace_error;
  }
  return res;
}

}  // namespace mapwright::systemc

// libsystemc's own main() references sc_main(); mapwright's executables have their own main and
// run the simulation through RtlEvaluator, so this sc_main only satisfies that reference.
int sc_main(int /*argc*/, char* /*argv*/[]) {
  return 0;
}
