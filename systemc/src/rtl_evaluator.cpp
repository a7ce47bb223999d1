// The RTL evaluator: owns the process's one SystemC simulation (elaborated on first use for the
// Verilated model matching the architecture, reset between runs), turns a layer + mapping into
// a command program, fills DRAM with random operands, runs the testbench under a watchdog, and
// returns the hardware's cycles and counters and the bit-exact check against the C++ reference.
#include "mapwright/systemc/rtl_evaluator.hpp"

// Verilator's trace headers trip -Wnon-virtual-dtor; they are third-party code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
#include <verilated.h>
#include <verilated_fst_sc.h>
#pragma GCC diagnostic pop

#include <chrono>
#include <ctime>
#include <memory>
#include <sstream>

#include "accel_tb.hpp"
#include "plain_harness.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/model/schedule.hpp"
#include "mw_models.h"

namespace mapwright::systemc {

using detail::TbJob;

namespace {

constexpr double kPeriodNs = 10.0;

/// CPU time of the calling thread (wall time on a shared machine includes other jobs).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The process's simulation: one testbench around one model type.
class SimHost {
 public:
  virtual ~SimHost() = default;
  /// Runs a job to completion or for at most `limit` cycles; true if it completed.
  virtual bool run(TbJob& job, long long limit, const std::string& trace_file,
                   std::string& trace_error) = 0;
  /// Reads one register between runs.
  virtual uint64_t read_csr(unsigned addr) = 0;
  std::string arch;         ///< Name of the architecture it was elaborated for.
  RtlParams params;         ///< Compiled parameters.
};

template <class V>
class SimHostT final : public SimHost {
 public:
  explicit SimHostT(int beat_bytes) {
    Verilated::traceEverOn(true);
    tb_ = std::make_unique<detail::AccelTb<V>>("tb", beat_bytes);
    tb_->rst_n.write(false);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  ~SimHostT() override {
    if (tfp_) tfp_->close();
  }

  bool run(TbJob& job, long long limit, const std::string& trace_file,
           std::string& trace_error) override {
    // Drop whatever a previous (possibly aborted) job left, and reset the design.
    tb_->stop();
    tb_->rst_n.write(false);
    cycles(3);
    tb_->rst_n.write(true);
    cycles(1);
    if (!trace_file.empty()) {
      if (traced_) {
        trace_error = "trace: only one traced run per process (the model is traced once)";
      } else {
        tfp_ = std::make_unique<VerilatedFstSc>();
        tb_->dut.trace(tfp_.get(), 99);
        tfp_->open(trace_file.c_str());
        traced_ = true;
      }
    }
    tb_->start(job);
    sc_core::sc_start(sc_core::sc_time(kPeriodNs * static_cast<double>(limit), sc_core::SC_NS));
    if (tfp_) {
      tfp_->close();
      tfp_.reset();
    }
    return job.done;
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
  std::unique_ptr<VerilatedFstSc> tfp_;     ///< Open waveform, if any.
  bool traced_ = false;                     ///< A trace was attached (only once per process).
};

/// A plain C++ (non-SystemC) harness of one model type.
template <class V>
class PlainHostT final : public SimHost {
 public:
  explicit PlainHostT(int beat_bytes) : h_(beat_bytes) {}
  bool run(TbJob& job, long long limit, const std::string& trace_file,
           std::string& trace_error) override {
    if (!trace_file.empty()) trace_error = "trace: the plain C++ harness does not trace";
    return h_.run(job, limit);
  }
  uint64_t read_csr(unsigned addr) override { return h_.read_csr(addr); }

 private:
  detail::PlainHarness<V> h_;
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
     << p.weight_buf_bytes << " B, accumulator " << p.accum_buf_words << " words, "
     << p.beat_bytes << " B/cycle";
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
  return p;
}

bool same(const RtlParams& a, const RtlParams& b) {
  return a.rows == b.rows && a.cols == b.cols && a.input_buf_bytes == b.input_buf_bytes &&
         a.weight_buf_bytes == b.weight_buf_bytes && a.accum_buf_words == b.accum_buf_words &&
         a.beat_bytes == b.beat_bytes;
}

/// Builds host type `Host` into `h` when no host is there yet and the model's parameters `p`
/// are the ones `want`ed (one call per compiled model, from the generated model list).
template <typename Host>
void try_model(std::unique_ptr<SimHost>& h, const std::string& arch, const RtlParams& want,
               const RtlParams& p) {
  if (h || !same(p, want)) return;
  h = std::make_unique<Host>(static_cast<int>(p.beat_bytes));
  h->arch = arch;
  h->params = p;
}

/// Returns the process's host for `arch`, elaborating it on first use.
SimHost* host_for(const core::Arch& arch, std::string& failure) {
  const RtlParams want = params_of(arch);
  auto& h = host();
  if (h) {
    if (!same(h->params, want)) {
      failure = "arch: this process already elaborated the RTL for '" + h->arch + "' (" +
                describe(h->params) + "); '" + arch.name + "' (" + describe(want) +
                ") needs its own process (one SystemC simulation per process)";
      return nullptr;
    }
    return h.get();
  }
#define MW_TRY_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT) \
  try_model<SimHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT});
  MW_FOR_EACH_MODEL(MW_TRY_MODEL)
#undef MW_TRY_MODEL
  if (!h) {
    failure = "arch: no Verilated model for '" + arch.name + "' (" + describe(want) +
              "); compiled: ";
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
#define MW_TRY_PLAIN(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT) \
  try_model<PlainHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT});
  MW_FOR_EACH_PLAIN_MODEL(MW_TRY_PLAIN)
#undef MW_TRY_PLAIN
  if (!h) {
    failure = "arch: no plain C++ Verilated model for '" + arch.name + "' (" + describe(want) +
              "); see MAPWRIGHT_RTL_PLAIN_ARCHS in systemc/CMakeLists.txt";
    return nullptr;
  }
  return h.get();
}

}  // namespace

std::vector<std::string> RtlEvaluator::compiled_archs() {
  std::vector<std::string> v;
#define MW_NAME(NAME, ...) v.push_back(NAME);
  MW_FOR_EACH_MODEL(MW_NAME)
#undef MW_NAME
  return v;
}

bool RtlEvaluator::read_params(const core::Arch& arch, RtlParams& p, std::string& failure) {
  SimHost* h = host_for(arch, failure);
  if (!h) return false;
  p.rows = static_cast<long long>(h->read_csr(detail::kCsrRows));
  p.cols = static_cast<long long>(h->read_csr(detail::kCsrCols));
  p.input_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrInBytes));
  p.weight_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrWtBytes));
  p.accum_buf_words = static_cast<long long>(h->read_csr(detail::kCsrAccWords));
  p.beat_bytes = static_cast<long long>(h->read_csr(detail::kCsrBeatBytes));
  return true;
}

RtlRunResult RtlEvaluator::run(const core::Layer& layer, const core::Arch& arch,
                               const core::Mapping& mapping, const RtlRunOptions& opt) {
  RtlRunResult res;
  core::Metrics& m = res.metrics;
  try {
    core::check_mapping(mapping, layer, arch, "rtl");
  } catch (const core::SpecError& e) {
    res.failure = std::string("mapping: ") + e.what();
    m.reason = res.failure;
    return res;
  }
  const core::Validity v = core::check_capacity(layer, arch, mapping);
  if (!v.ok()) {
    m.invalid = v.kind;
    m.reason = v.reason();
    res.failure = "invalid: " + m.reason;
    return res;
  }
  if (arch.dram_latency_cycles < 2) {
    // Zero-byte loads complete latency - 1 cycles after their request; see rtl/README.md.
    res.failure = "arch: the RTL harness needs a DRAM latency of at least 2 cycles";
    m.reason = res.failure;
    return res;
  }
  SimHost* h = opt.plain_harness ? plain_host_for(arch, res.failure) : host_for(arch, res.failure);
  if (!h) {
    m.reason = res.failure;
    return res;
  }

  CommandProgram prog;
  const int shift = opt.shift >= 0 ? opt.shift : default_shift(layer);
  if (!build_program(layer, arch, mapping, shift, prog, res.failure)) {
    m.reason = res.failure;
    return res;
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
  long long limit = opt.watchdog_cycles;
  if (limit <= 0) {
    const double slow = 1.0 / std::max(0.05, 1.0 - opt.stall_prob);
    limit = static_cast<long long>(
                4.0 * slow * static_cast<double>(model::simulate_schedule(layer, arch, mapping).cycles)) +
            static_cast<long long>(prog.words.size()) * 4 + 10000;
  }
  std::string trace_error;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  const bool done = h->run(job, limit, opt.trace_file, trace_error);
  res.sim_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.sim_cpu_seconds = thread_cpu_seconds() - c0;
  res.sim_cycles = job.edges;
  if (!done) {
    std::ostringstream os;
    os << "watchdog: no completion after " << limit << " cycles; DMA commands done "
       << h->read_csr(detail::kCsrDmaDone) << "/" << prog.dma_commands << ", compute commands done "
       << h->read_csr(detail::kCsrCmpDone) << "/" << prog.compute_commands << ", DMA queue "
       << h->read_csr(detail::kCsrDmaQueue) << ", compute queue "
       << h->read_csr(detail::kCsrCmpQueue) << ", status 0x" << std::hex
       << h->read_csr(detail::kCsrStatus);
    if (!job.failure.empty()) os << "; " << job.failure;
    res.failure = os.str();
    m.reason = res.failure;
    return res;
  }
  if (!job.failure.empty()) {
    res.failure = job.failure;
    m.reason = res.failure;
    return res;
  }
  const auto& c = job.csr;
  if (c[detail::kCsrStatus] & 0x1c) {
    std::ostringstream os;
    os << "rtl error: status 0x" << std::hex << c[detail::kCsrStatus] << " ("
       << ((c[detail::kCsrStatus] & 4) ? "command decoder " : "")
       << ((c[detail::kCsrStatus] & 8) ? "dma " : "")
       << ((c[detail::kCsrStatus] & 16) ? "compute " : "") << "error)";
    res.failure = os.str();
    m.reason = res.failure;
    return res;
  }
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
  res.dma_busy_cycles = g(detail::kCsrDmaBusy);
  res.dram_stall_cycles = g(detail::kCsrDramStall);

  // Functional check.
  const auto ref = reference_output(layer, in, wt, shift);
  for (size_t i = 0; i < ref.size(); ++i)
    if (static_cast<int8_t>(dram[prog.output_addr + i]) != ref[i]) ++res.mismatches;
  res.functional_ok = res.mismatches == 0;

  m.valid = true;
  m.counts = a;
  m.cycles = res.cycles;
  m.compute_cycles = res.array_busy_cycles;
  m.dma_cycles = res.dma_busy_cycles;
  core::finish_metrics(m, layer, arch, mapping);
  if (!trace_error.empty()) res.failure = trace_error;
  return res;
}

core::Metrics RtlEvaluator::evaluate(const core::Layer& layer, const core::Arch& arch,
                                     const core::Mapping& mapping) {
  RtlRunResult r = run(layer, arch, mapping);
  if (r.ok()) return r.metrics;
  core::Metrics m = r.metrics;
  m.valid = false;
  if (m.reason.empty())
    m.reason = r.failure.empty() ? "rtl: " + std::to_string(r.mismatches) +
                                       " output bytes differ from the reference"
                                 : r.failure;
  return m;
}

}  // namespace mapwright::systemc

// libsystemc's own main() references sc_main(); mapwright's executables have their own main and
// run the simulation through RtlEvaluator, so this sc_main only satisfies that reference.
int sc_main(int /*argc*/, char* /*argv*/[]) { return 0; }
