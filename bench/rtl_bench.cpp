// RTL simulation speed: one layer under two mappings (the default WS mapping and its OS twin)
// on the Verilated accelerator, through (a) the pin-level SystemC testbench (RtlEvaluator), (b)
// the temporally decoupled SystemC harness (RtlHarness::Decoupled: a SystemC thread steps a
// plain model and meets SystemC time once per quantum) and (c) the plain C++ Verilator harness,
// all on the same RTL, the same command driver and the same DRAM model. Prints simulated cycles
// per CPU second (of the simulating thread) of each and the ratios to the plain harness side by
// side; every run must be bit-exact, and all harnesses must simulate the same number of cycles
// with the same counters.
//
//   build/bench/rtl_bench [--arch default] [--layer resnet18:layer2.0.conv1] [--reps 3]
//
// One SystemC simulation per process: the decoupled harness runs first, in a child process
// (fork, no shell) that reports its figures through a pipe; the parent then runs the SystemC
// testbench and the plain harness. An architecture without a compiled-in model (large32, or a
// YAML file) runs in a worker process on its model from the RTL model cache (built first when
// absent); only the SystemC testbench is measured there (the plain models are compiled in). A
// compiled-in architecture without a plain model (one left out of MAPWRIGHT_RTL_PLAIN_ARCHS at
// configure time) is measured in the SystemC testbench only, its other columns printed as "-".
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"

using namespace mapwright;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "rtl_bench: %s\n", what.c_str());
  std::exit(1);
}

/// Best of `reps` runs by CPU time (the machine is shared: the thread's CPU time, not wall
/// time, and the least disturbed run).
rtl::RtlRunResult best_of(systemc::RtlEvaluator& ev, const core::Layer& l, const core::Arch& a,
                          const core::Mapping& m, systemc::RtlHarness harness, int reps) {
  static const char* const kName[] = {"SystemC", "decoupled", "plain"};
  systemc::RtlRunOptions o;
  o.harness = harness;
  rtl::RtlRunResult best;
  for (int i = 0; i < reps; ++i) {
    rtl::RtlRunResult r = rtlpool::run_admitted(ev, l, a, m, o);
    if (!r.ok())
      fail(std::string(kName[static_cast<int>(harness)]) + " run failed: " + r.failure + " (" +
           std::to_string(r.mismatches) + " mismatches)");
    if (i == 0 || r.sim_cpu_seconds < best.sim_cpu_seconds) best = r;
  }
  return best;
}

/// Best of `reps` runs in a worker process on the architecture's cached model (SystemC harness).
rtlpool::RtlJobResult best_of_cached(rtlpool::RtlWorkerPool& pool, const std::string& arch,
                                     const core::Layer& l, const core::Mapping& m, int reps) {
  rtlpool::RtlJobResult best;
  for (int i = 0; i < reps; ++i) {
    rtlpool::RtlJob j;
    j.arch = arch;
    j.layer = l;
    j.mapping = m;
    j.limits.max_seconds = 0;
    const rtlpool::RtlJobResult r = pool.run_one(std::move(j));
    if (!r.ok())
      fail("cached-model run failed: " + r.failure + " (" + std::to_string(r.mismatches) +
           " mismatches)");
    if (i == 0 || r.sim_cpu_seconds < best.sim_cpu_seconds) best = r;
  }
  return best;
}

/// What the decoupled harness's child process reports per mapping.
struct DecoupledRow {
  long long cycles = 0, sim_cycles = 0;
  double cpu_seconds = 0;
  core::AccessCounts counts;
};

/// Runs `maps` in the decoupled harness in a child process (its own SystemC simulation) and
/// returns its rows; exits if the child fails.
std::vector<DecoupledRow> decoupled_rows(
    const core::Layer& l, const core::Arch& a,
    const std::vector<std::pair<std::string, core::Mapping>>& maps, int reps) {
  int fd[2];
  if (pipe(fd) != 0) fail("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0) {  // child: no SystemC simulation exists yet in this process
    close(fd[0]);
    systemc::RtlEvaluator ev;
    for (const auto& mapping : maps) {
      const auto r = best_of(ev, l, a, mapping.second, systemc::RtlHarness::Decoupled, reps);
      DecoupledRow row;
      row.cycles = r.cycles;
      row.sim_cycles = r.sim_cycles;
      row.cpu_seconds = r.sim_cpu_seconds;
      row.counts = r.counts;
      if (write(fd[1], &row, sizeof row) != static_cast<ssize_t>(sizeof row)) _exit(1);
    }
    close(fd[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  close(fd[1]);
  std::vector<DecoupledRow> rows(maps.size());
  size_t got = 0;
  for (auto& row : rows) {
    auto* p = reinterpret_cast<char*>(&row);
    size_t n = 0;
    while (n < sizeof row) {
      const ssize_t k = read(fd[0], p + n, sizeof row - n);
      if (k <= 0) break;
      n += static_cast<size_t>(k);
    }
    if (n != sizeof row) break;
    ++got;
  }
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != rows.size() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("the decoupled harness's process failed");
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::string arch_name = "default", layer_ref = "resnet18:layer2.0.conv1";
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc)
      arch_name = argv[++i];
    else if (a == "--layer" && i + 1 < argc)
      layer_ref = argv[++i];
    else if (a == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else
      fail("usage: rtl_bench [--arch NAME] [--layer NET:LAYER] [--reps N]");
  }
  const auto colon = layer_ref.find(':');
  if (colon == std::string::npos) fail("--layer wants NET:LAYER, got " + layer_ref);
  const core::Arch arch = core::load_arch(arch_name);
  const core::Layer layer =
      core::zoo_layer(layer_ref.substr(0, colon), layer_ref.substr(colon + 1), "--layer");

  std::vector<std::pair<std::string, core::Mapping>> maps;
  maps.emplace_back("default (WS)", core::default_mapping(layer, arch));
  core::Mapping os = maps[0].second;
  os.dataflow = core::Dataflow::OS;
  if (core::check_capacity(layer, arch, os).ok()) maps.emplace_back("default as OS", os);

  const auto plain_names = systemc::RtlEvaluator::plain_archs();
  const bool has_plain =
      std::find(plain_names.begin(), plain_names.end(), arch.name) != plain_names.end();
  // Before this process elaborates any SystemC model.
  const std::vector<DecoupledRow> lt =
      has_plain ? decoupled_rows(layer, arch, maps, reps) : std::vector<DecoupledRow>{};

  systemc::RtlEvaluator ev;
  systemc::RtlParams compiled;
  std::string why;
  const bool cached = !ev.read_params(arch, compiled, why);
  std::printf("rtl_bench: %s on %s (%lldx%lld), best of %d%s\n", layer_ref.c_str(),
              arch.name.c_str(), static_cast<long long>(arch.rows),
              static_cast<long long>(arch.cols), reps,
              cached ? ", model from the RTL model cache (SystemC harness only)" : "");
  if (cached) {
    rtlpool::RtlWorkerPool pool(rtlpool::worker_executable(), 1);
    rtlpool::ModelCacheOptions mc;
    mc.progress = &std::cerr;
    pool.enable_model_cache(mc);
    if (const std::string no = pool.check_arch(arch_name); !no.empty()) fail(no);
    std::printf("%-16s %10s %10s %14s\n", "mapping", "cycles", "simulated", "SystemC cyc/s");
    for (const auto& [name, m] : maps) {
      const auto sc = best_of_cached(pool, arch_name, layer, m, reps);
      const long long ref = model::simulate_schedule(layer, arch, m).cycles;
      if (sc.metrics.cycles != ref)
        fail(name + ": cycles " + std::to_string(sc.metrics.cycles) +
             " differ from the schedule's " + std::to_string(ref));
      std::printf("%-16s %10lld %10lld %14.0f\n", name.c_str(), sc.metrics.cycles, sc.sim_cycles,
                  static_cast<double>(sc.sim_cycles) / sc.sim_cpu_seconds);
    }
    return 0;
  }
  std::printf("%-16s %10s %10s %14s %14s %14s %8s %8s\n", "mapping", "cycles", "simulated",
              "SystemC cyc/s", "decoupled", "plain cyc/s", "pl/SC", "pl/dec");
  for (size_t i = 0; i < maps.size(); ++i) {
    const auto& [name, m] = maps[i];
    const auto sc = best_of(ev, layer, arch, m, systemc::RtlHarness::SystemC, reps);
    const long long ref = model::simulate_schedule(layer, arch, m).cycles;
    const double sc_rate = static_cast<double>(sc.sim_cycles) / sc.sim_cpu_seconds;
    if (!has_plain) {
      if (sc.cycles != ref)
        fail(name + ": cycles " + std::to_string(sc.cycles) +
             " (SystemC) differ from the schedule's " + std::to_string(ref));
      std::printf("%-16s %10lld %10lld %14.0f %14s %14s %8s %8s\n", name.c_str(), sc.cycles,
                  sc.sim_cycles, sc_rate, "-", "-", "-", "-");
      continue;
    }
    const auto pl = best_of(ev, layer, arch, m, systemc::RtlHarness::Plain, reps);
    const DecoupledRow& dc = lt[i];
    if (sc.cycles != ref || pl.cycles != ref || dc.cycles != ref)
      fail(name + ": cycles " + std::to_string(sc.cycles) + " (SystemC) / " +
           std::to_string(dc.cycles) + " (decoupled) / " + std::to_string(pl.cycles) +
           " (plain) differ from the schedule's " + std::to_string(ref));
    if (sc.sim_cycles != pl.sim_cycles || dc.sim_cycles != pl.sim_cycles)
      fail(name + ": simulated cycles differ: " + std::to_string(sc.sim_cycles) + " / " +
           std::to_string(dc.sim_cycles) + " / " + std::to_string(pl.sim_cycles));
    if (!(sc.counts == pl.counts) || !(dc.counts == pl.counts))
      fail(name + ": counters differ between harnesses");
    const double dc_rate = static_cast<double>(dc.sim_cycles) / dc.cpu_seconds;
    const double pl_rate = static_cast<double>(pl.sim_cycles) / pl.sim_cpu_seconds;
    std::printf("%-16s %10lld %10lld %14.0f %14.0f %14.0f %8.2f %8.2f\n", name.c_str(), sc.cycles,
                sc.sim_cycles, sc_rate, dc_rate, pl_rate, pl_rate / sc_rate, pl_rate / dc_rate);
  }
  return 0;
}
