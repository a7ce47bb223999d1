// RTL simulation speed: one layer under two mappings (the default WS mapping and its OS twin)
// on the Verilated accelerator, through (a) the SystemC testbench (RtlEvaluator) and (b) the
// plain C++ Verilator harness of the same RTL, the same command driver and the same DRAM model.
// Prints simulated cycles per CPU second (of the simulating thread) of each and their ratio side by
// side; every run must be bit-exact, and both harnesses must simulate the same number of cycles
// with the same counters.
//
//   build/bench/rtl_bench [--arch default] [--layer resnet18:layer2.0.conv1] [--reps 3]
//
// One architecture per process (one SystemC simulation per process); run it again with
// --arch small4 for the 4x4 model. An architecture without a compiled-in model (large32, or a
// YAML file) runs in a worker process on its model from the RTL model cache (built first when
// absent); only the SystemC harness is measured there (the plain models are compiled in). A
// compiled-in architecture without a plain model (MAPWRIGHT_RTL_PLAIN_ARCHS; e.g. default-banked)
// is measured in the SystemC harness only, its plain columns printed as "-".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "mapwright/core/mapspace.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/core/zoo.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"

using namespace mapwright;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "rtl_bench: %s\n", what.c_str());
  std::exit(1);
}

bool same_counts(const core::AccessCounts& a, const core::AccessCounts& b) {
  return a.macs == b.macs && a.steps == b.steps && a.folds == b.folds &&
         a.input_buf_reads == b.input_buf_reads && a.input_buf_writes == b.input_buf_writes &&
         a.weight_buf_reads == b.weight_buf_reads && a.weight_buf_writes == b.weight_buf_writes &&
         a.accum_reads == b.accum_reads && a.accum_writes == b.accum_writes &&
         a.dram_input_bytes == b.dram_input_bytes && a.dram_weight_bytes == b.dram_weight_bytes &&
         a.dram_output_bytes == b.dram_output_bytes &&
         a.dram_psum_write_bytes == b.dram_psum_write_bytes &&
         a.dram_psum_read_bytes == b.dram_psum_read_bytes;
}

/// Best of `reps` runs by CPU time (the machine is shared: the thread's CPU time, not wall
/// time, and the least disturbed run).
systemc::RtlRunResult best_of(systemc::RtlEvaluator& ev, const core::Layer& l, const core::Arch& a,
                              const core::Mapping& m, bool plain, int reps) {
  systemc::RtlRunOptions o;
  o.plain_harness = plain;
  systemc::RtlRunResult best;
  for (int i = 0; i < reps; ++i) {
    systemc::RtlRunResult r = ev.run(l, a, m, o);
    if (!r.ok())
      fail(std::string(plain ? "plain" : "SystemC") + " run failed: " + r.failure + " (" +
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
  const auto plain_names = systemc::RtlEvaluator::plain_archs();
  const bool has_plain =
      std::find(plain_names.begin(), plain_names.end(), arch.name) != plain_names.end();
  std::printf("%-16s %10s %10s %14s %14s %8s\n", "mapping", "cycles", "simulated", "SystemC cyc/s",
              "plain cyc/s", "ratio");
  for (const auto& [name, m] : maps) {
    const auto sc = best_of(ev, layer, arch, m, false, reps);
    if (!has_plain) {
      const long long ref = model::simulate_schedule(layer, arch, m).cycles;
      if (sc.cycles != ref)
        fail(name + ": cycles " + std::to_string(sc.cycles) +
             " (SystemC) differ from the schedule's " + std::to_string(ref));
      std::printf("%-16s %10lld %10lld %14.0f %14s %8s\n", name.c_str(), sc.cycles, sc.sim_cycles,
                  static_cast<double>(sc.sim_cycles) / sc.sim_cpu_seconds, "-", "-");
      continue;
    }
    const auto pl = best_of(ev, layer, arch, m, true, reps);
    const long long ref = model::simulate_schedule(layer, arch, m).cycles;
    if (sc.cycles != ref || pl.cycles != ref)
      fail(name + ": cycles " + std::to_string(sc.cycles) + " (SystemC) / " +
           std::to_string(pl.cycles) + " (plain) differ from the schedule's " +
           std::to_string(ref));
    if (sc.sim_cycles != pl.sim_cycles)
      fail(name + ": simulated cycles differ: " + std::to_string(sc.sim_cycles) + " vs " +
           std::to_string(pl.sim_cycles));
    if (!same_counts(sc.counts, pl.counts)) fail(name + ": counters differ between harnesses");
    const double sc_rate = static_cast<double>(sc.sim_cycles) / sc.sim_cpu_seconds;
    const double pl_rate = static_cast<double>(pl.sim_cycles) / pl.sim_cpu_seconds;
    std::printf("%-16s %10lld %10lld %14.0f %14.0f %8.2f\n", name.c_str(), sc.cycles, sc.sim_cycles,
                sc_rate, pl_rate, pl_rate / sc_rate);
  }
  return 0;
}
