// The RTL evaluator: turns a layer + mapping into a command program, fills DRAM with random
// operands, runs the process's harness host (model_registry.hpp: elaborated on first use for
// the Verilated model matching the architecture, reset between runs) under a watchdog, and
// returns the hardware's cycles and counters and the bit-exact check against the C++
// reference. Before anything is built it checks that the mapping fits the layer, the
// architecture and the harness; the run's limits are checked before that by the caller's
// admission (rtlpool::admit_run), whose estimates it takes.
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <sstream>

#include "assertion_stop.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/systemc/command_program.hpp"
#include "model_registry.hpp"

namespace mapwright::systemc {

using detail::TbJob;
using rtl::RtlRunResult;

namespace {

/// CPU time of the calling thread (wall time on a shared machine includes other jobs).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The failure of a run that did not complete within `limit` cycles, with the design's state.
std::string watchdog_failure(detail::SimHost& h, const CommandProgram& prog, const TbJob& job,
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
  detail::SimHost* h = detail::host_for(arch, harness, res.failure);
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
  std::vector<uint8_t> dram(prog.dram.bytes, 0xa5);
  const auto in = random_tensor(opt.seed * 2 + 1, static_cast<uint64_t>(layer.input_elems()));
  const auto wt = random_tensor(opt.seed * 2 + 2, static_cast<uint64_t>(layer.weight_elems()));
  std::memcpy(dram.data() + prog.dram.input, in.data(), in.size());
  std::memcpy(dram.data() + prog.dram.weight, wt.data(), wt.size());

  TbJob job;
  job.prog = &prog;
  job.dram = &dram;
  job.latency = arch.dram_latency_cycles;
  job.options = opt;
  long long limit = opt.watchdog_cycles;
  if (limit <= 0) {
    const double slow = 1.0 / std::max(0.05, 1.0 - opt.stall_prob);
    limit = static_cast<long long>(4.0 * slow * static_cast<double>(res.predicted_cycles)) +
            static_cast<long long>(prog.words.size()) * 4 + 10000;
  }
  std::string trace_error;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_seconds();
  const detail::RunEnd end =
      h->run(job, limit, opt.limits.max_seconds, opt.trace_file, trace_error);
  res.sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.sim_cpu_seconds = thread_cpu_seconds() - c0;
  res.sim_cycles = job.edges;
  if (end == detail::RunEnd::WallClock)
    return failed(res, core::RtlFailure::Limit, rtl::wall_clock_failure(opt.limits.max_seconds));
  if (end == detail::RunEnd::Assertion)
    return failed(res, core::RtlFailure::Assertion,
                  describe(detail::assertion_stop()) + " at cycle " + std::to_string(job.edges));
  if (end != detail::RunEnd::Done)
    return failed(res, core::RtlFailure::Watchdog, watchdog_failure(*h, prog, job, limit));
  if (!job.failure.empty()) return failed(res, core::RtlFailure::Dram, job.failure);
  const auto& c = job.csr;
  if (c[detail::kCsrStatus] & 0x1c)
    return failed(res, core::RtlFailure::RtlError, status_failure(c[detail::kCsrStatus]));
  read_counters(c, res);

  // Functional check.
  const auto ref = reference_output(layer, in, wt, shift);
  for (size_t i = 0; i < ref.size(); ++i)
    if (static_cast<int8_t>(dram[prog.dram.output + i]) != ref[i]) ++res.mismatches;
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
