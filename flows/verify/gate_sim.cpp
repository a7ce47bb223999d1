// `mapwright synth --gate-sim N`: the synthesized netlist simulated against the RTL. The
// netlist yosys wrote (flattened gates, memories as Verilog arrays) is Verilated with yosys'
// cell library into a worker of the RTL model cache; random small layers with a uniformly
// random valid mapping each run on the RTL's worker and on the netlist's, with the same
// operands; both check their outputs against the C++ reference, and the cycles, the simulated
// clock cycles and every hardware counter are compared.

#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <map>
#include <random>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/flows/gate_sim.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapspace/random_layer.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/support/error.hpp"
#include "synth/tool_run.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using rtl::RtlRunResult;
using rtlpool::RtlJob;
using rtlpool::RtlWorkerPool;

namespace {

/// The layers' largest input height and width: small enough that the gate-level model, two
/// orders of magnitude slower than the RTL's, runs a layer in seconds.
constexpr int kMaxHw = 9;

/// yosys' cell library (simcells.v) of the yosys on PATH: <prefix>/share/yosys beside its
/// <prefix>/bin. "" when there is none.
fs::path yosys_simcells() {
  const fs::path exe = synth_detail::find_on_path("yosys");
  if (exe.empty()) return {};
  std::error_code ec;
  const fs::path real = fs::canonical(exe, ec);
  const fs::path lib =
      (ec ? exe : real).parent_path().parent_path() / "share" / "yosys" / "simcells.v";
  return fs::is_regular_file(lib, ec) ? lib : fs::path();
}

/// Runs `jobs` on `pool` and returns their results in submission order.
std::vector<RtlRunResult> run_all(RtlWorkerPool& pool, const std::vector<RtlJob>& jobs,
                                  const char* side, std::ostream* progress) {
  std::vector<RtlRunResult> out(jobs.size());
  std::map<size_t, size_t> index_of;
  for (size_t i = 0; i < jobs.size(); ++i) index_of[pool.submit(jobs[i])] = i;
  size_t done = 0;
  while (pool.running() + pool.queued() > 0) {
    for (auto& [id, r] : pool.poll(500)) {
      out[index_of.at(id)] = std::move(r);
      ++done;
      if (progress && (done % 10 == 0 || done == jobs.size()))
        *progress << "gate-sim: " << side << " " << done << "/" << jobs.size() << " runs\n"
                  << std::flush;
    }
  }
  return out;
}

nlohmann::json result_json(const RtlRunResult& r) {
  return {{"ok", r.ok()},        {"failure", r.failure},       {"mismatches", r.mismatches},
          {"cycles", r.cycles},  {"sim_cycles", r.sim_cycles}, {"sim_seconds", r.sim_seconds},
          {"harness", r.harness}};
}

}  // namespace

std::vector<std::string> gate_sim_differences(const RtlRunResult& a, const RtlRunResult& b) {
  std::vector<std::string> d;
  if (a.failure != b.failure)
    d.push_back("failure: RTL '" + a.failure + "', netlist '" + b.failure + "'");
  if (a.functional_ok != b.functional_ok || a.mismatches != b.mismatches)
    d.push_back("outputs: RTL " + std::to_string(a.mismatches) + " bytes from the reference, " +
                "netlist " + std::to_string(b.mismatches));
  auto cmp = [&d](const std::string& what, long long x, long long y) {
    if (x != y) d.push_back(what + ": RTL " + std::to_string(x) + ", netlist " + std::to_string(y));
  };
  cmp("cycles", a.cycles, b.cycles);
  cmp("simulated clock cycles", a.sim_cycles, b.sim_cycles);
  cmp("array_busy_cycles", a.array_busy_cycles, b.array_busy_cycles);
  cmp("array_stall_cycles", a.array_stall_cycles, b.array_stall_cycles);
  cmp("input_bank_stalls", a.input_bank_stalls, b.input_bank_stalls);
  cmp("weight_bank_stalls", a.weight_bank_stalls, b.weight_bank_stalls);
  cmp("accum_bank_stalls", a.accum_bank_stalls, b.accum_bank_stalls);
  cmp("dma_busy_cycles", a.dma_busy_cycles, b.dma_busy_cycles);
  cmp("dram_stall_cycles", a.dram_stall_cycles, b.dram_stall_cycles);
  const auto fa = a.counts.fields(), fb = b.counts.fields();
  for (size_t i = 0; i < fa.size(); ++i) cmp(fa[i].first, fa[i].second, fb[i].second);
  return d;
}

GateSimResult gate_sim(const core::Arch& arch, const std::string& arch_arg, const SynthResult& s,
                       int runs, uint64_t seed, int jobs, std::ostream* progress) {
  GateSimResult g;
  g.seed = seed;
  g.max_hw = kMaxHw;
  const fs::path dir(s.out_dir);
  const fs::path lib = yosys_simcells();
  if (lib.empty()) {
    g.failure =
        "yosys' cell library simcells.v is not beside the yosys on PATH "
        "(<prefix>/share/yosys/simcells.v; the Debian package 'yosys' has it)";
    return g;
  }
  std::error_code ec;
  fs::copy_file(lib, dir / "simcells.v", fs::copy_options::overwrite_existing, ec);
  if (ec) {
    g.failure = "cannot copy " + lib.string() + " into '" + dir.string() + "': " + ec.message();
    return g;
  }
  if (s.netlist.empty() || !fs::is_regular_file(s.netlist, ec)) {
    g.failure = "the synthesis wrote no netlist";
    return g;
  }
  return gate_sim_files(
      arch, arch_arg, {fs::absolute(s.netlist).string(), fs::absolute(dir / "simcells.v").string()},
      runs, seed, jobs, progress);
}

GateSimResult gate_sim_files(const core::Arch& arch, const std::string& arch_arg,
                             const std::vector<std::string>& files, int runs, uint64_t seed,
                             int jobs, std::ostream* progress) {
  GateSimResult g;
  g.seed = seed;
  g.max_hw = kMaxHw;
  // The netlist's model: the RTL parameters of the synthesis, Verilated from the files.
  rtlpool::ModelParams p = rtlpool::model_params(arch);
  p.netlist = files;
  rtlpool::ModelCacheOptions cache;
  cache.progress = progress;
  const rtlpool::ModelLookup model = rtlpool::find_or_build_model(p, "", cache);
  if (!model.ok()) {
    g.failure = "the gate-level model: " + model.failure;
    return g;
  }
  g.model = model.name;
  g.build_seconds = model.build_seconds;

  // The runs: random layers, kinds in turn, a uniformly random valid mapping each.
  std::mt19937_64 rng(seed);
  std::vector<RtlJob> work;
  for (int i = 0; i < runs; ++i) {
    RtlJob j;
    j.arch = arch_arg;
    j.layer = core::random_layer(rng, i % 5, kMaxHw);
    core::MapSpace space(j.layer, arch);
    core::ParamVector v;
    if (!space.sample_valid(rng, v)) {
      g.failure = "no valid mapping drawn for " + j.layer.describe() + " on " + arch.name;
      return g;
    }
    j.mapping = space.decode(v);
    j.seed = seed * 1000 + static_cast<uint64_t>(i);
    work.push_back(std::move(j));
  }
  const int workers = jobs > 0 ? jobs : std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<RtlRunResult> rtl, gate;
  {
    RtlWorkerPool pool(rtlpool::worker_executable(), workers);
    rtlpool::ModelCacheOptions rtl_cache;
    rtl_cache.progress = progress;
    pool.enable_model_cache(rtl_cache);
    if (const std::string why = pool.check_arch(arch_arg); !why.empty()) {
      g.failure = "the RTL model: " + why;
      return g;
    }
    rtl = run_all(pool, work, "RTL", progress);
  }
  {
    RtlWorkerPool pool(model.exe, workers);  // every job on the netlist's worker
    if (const std::string why = pool.check_arch(arch_arg); !why.empty()) {
      g.failure = "the gate-level model: " + why;
      return g;
    }
    gate = run_all(pool, work, "netlist", progress);
  }
  for (int i = 0; i < runs; ++i) {
    GateSimRun r;
    r.index = i;
    r.layer = work[i].layer.describe();
    r.mapping = core::mapping_to_yaml(work[i].mapping);
    r.dataflow = core::dataflow_name(work[i].mapping.dataflow);
    r.seed = work[i].seed;
    r.rtl = rtl[i];
    r.gate = gate[i];
    r.differences = gate_sim_differences(r.rtl, r.gate);
    if (!r.rtl.ok())
      r.differences.insert(r.differences.begin(), "RTL run failed: " + r.rtl.failure);
    g.equal += r.equal();
    g.cycles += r.rtl.cycles;
    g.rtl_seconds += r.rtl.sim_seconds;
    g.gate_seconds += r.gate.sim_seconds;
    g.runs.push_back(std::move(r));
  }
  return g;
}

nlohmann::json gate_sim_json(const GateSimResult& g) {
  nlohmann::json runs = nlohmann::json::array();
  for (const GateSimRun& r : g.runs)
    runs.push_back({{"index", r.index},
                    {"layer", r.layer},
                    {"mapping", r.mapping},
                    {"dataflow", r.dataflow},
                    {"seed", r.seed},
                    {"equal", r.equal()},
                    {"differences", r.differences},
                    {"rtl", result_json(r.rtl)},
                    {"netlist", result_json(r.gate)}});
  return {{"failure", g.failure},
          {"model", g.model},
          {"build_seconds", g.build_seconds},
          {"seed", g.seed},
          {"max_hw", g.max_hw},
          {"runs", static_cast<long long>(g.runs.size())},
          {"equal", g.equal},
          {"cycles", g.cycles},
          {"rtl_sim_seconds", g.rtl_seconds},
          {"netlist_sim_seconds", g.gate_seconds},
          {"ok", g.ok()},
          {"details", runs}};
}

void print_gate_sim(const GateSimResult& g, std::ostream& out) {
  out << "\nGate-level simulation (netlist against RTL, seed " << g.seed << "):\n";
  if (!g.failure.empty()) {
    out << "  NOT RUN: " << g.failure << "\n";
    return;
  }
  out << "  model " << g.model;
  if (g.build_seconds > 0) out << " (built in " << fmt_fixed(g.build_seconds, 0) << " s)";
  std::map<std::string, int> by_flow;
  for (const GateSimRun& r : g.runs) ++by_flow[r.dataflow];
  out << "\n  " << g.equal << "/" << g.runs.size()
      << " runs equal: outputs bit-exact against the C++ reference on both, cycles and every "
         "counter equal\n  runs by dataflow:";
  for (const auto& [flow, n] : by_flow) out << " " << flow << " " << n;
  out << "; layers up to " << g.max_hw << "x" << g.max_hw << ", kinds conv, depthwise, grouped, "
      << "GEMM, 1x1 in turn\n"
      << "  " << g.cycles << " cycles each; RTL " << fmt_fixed(g.rtl_seconds, 1) << " s, netlist "
      << fmt_fixed(g.gate_seconds, 1) << " s of simulation";
  if (g.gate_seconds > 0)
    out << " (" << fmt_fixed(static_cast<double>(g.cycles) / g.gate_seconds, 0)
        << " netlist cycles/s)";
  out << "\n";
  for (const GateSimRun& r : g.runs)
    if (!r.equal()) {
      out << "  run " << r.index << " DIFFERS (" << r.layer << ", operand seed " << r.seed
          << "):\n";
      for (const std::string& d : r.differences) out << "    " << d << "\n";
    }
}

}  // namespace mapwright::flows
