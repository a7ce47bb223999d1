// One point of a sweep (sweep_point.hpp): the base architecture with the point's parameters,
// built in memory and written as archs/<point>.yaml (the RTL workers load it by that path, and
// the run records it); the area model; the RTL model from the model cache; the point's run in
// this process (a RunApp in points/<point>/, resumed when that folder holds one); the point's
// figures from the run's record.
#include "sweep/sweep_point.hpp"

#include <chrono>
#include <iostream>
#include <optional>
#include <sstream>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "run/run_output.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The point's RTL model from the model cache (built first when absent), noted in `p`; the
/// reason when there is none ("" when there is).
std::string find_rtl_model(const Arch& arch, const SweepOptions& o, json& p) {
  rtlpool::ModelCacheOptions mc;
  mc.progress = &std::cerr;
  const std::string exe = o.worker_exe.empty() ? rtlpool::worker_executable() : o.worker_exe;
  const rtlpool::ModelLookup m = rtlpool::find_or_build_model(rtlpool::model_params(arch), exe, mc);
  p["rtl_model"] = m.ok() ? m.name : "";
  p["model_built"] = m.built;
  p["model_build_seconds"] = m.build_seconds;
  return m.ok() ? "" : "rtl: " + m.failure;
}

/// The options of the point's run: the sweep's network with the exact mapper on `arch_file`,
/// in points/<point>/ (resumed when it holds a run), with its own SQLite store (the sweep
/// merges it into its own).
RunOptions point_run_options(const SweepFile& s, const SweepOptions& o, const fs::path& dir,
                             const SweepPoint& sp, const fs::path& arch_file, bool rtl) {
  RunOptions r;
  r.settings.network = s.network;
  r.settings.arch = arch_file.string();
  r.settings.searcher = "exact";
  r.settings.exact = s.exact;
  r.settings.seed = s.seed;
  r.settings.objective = s.objective;
  r.settings.top_k = s.top_k;
  r.settings.no_rtl = !rtl;
  r.jobs = o.jobs;
  r.out_dir = (dir / "points" / sp.name).string();
  r.resume = true;  // starts the run when its folder is new
  r.given = {"network"};
  r.progress = false;
  r.worker_exe = o.worker_exe;
  return r;
}

/// Runs the point's run on `arch` in this process; returns its exit code and keeps its record
/// in `rec`, its summary table in `summary`.
int run_here(const SweepContext& c, RunOptions r, const Arch& arch, std::optional<RunRecord>& rec,
             std::ostream& summary) {
  RunFolder folder = open_run_folder(r);
  check_run_options(r);
  RunInputs inputs = c.inputs;
  inputs.arch = arch;
  if (r.settings.rtl()) require_rtl_dram_port(arch, "--arch");
  const std::unique_ptr<rtlpool::RtlWorkerPool> pool =
      r.settings.rtl() ? start_rtl_pool(r, arch, run_jobs(r)) : nullptr;
  RunApp app(std::move(r), std::move(folder), std::move(inputs), pool.get());
  rec = app.run();
  print_run_summary(*rec, summary);
  return app.exit_code();
}

/// The figures of the point's run (network totals, when every layer is done) into `p`.
void record_figures(const RunRecord& rec, const Arch& arch, json& p) {
  const RunSummary t = summarize(rec);
  p["run_id"] = rec.run_id;
  p["layers_done"] = t.layers_done;
  p["layers_total"] = t.layers_total;
  if (t.layers_done != t.layers_total || t.layers_total == 0) return;
  p["cycles"] = t.cycles;
  p["latency_ms"] = t.cycles / (arch.clock_mhz * 1e3);
  p["energy_pj"] = t.energy_pj;
  p["energy_uj"] = t.energy_pj * 1e-6;
  p["edp"] = t.edp;
  p["source"] = t.source;
  p["verifications"] = t.done;
  p["verification_failures"] = t.failed;
}

}  // namespace

std::string point_arch_yaml(const SweepFile& s, const SweepPoint& p) {
  YAML::Node n = load_yaml_file(arch_file_path(s.base_arch));
  n["name"] = p.name;
  n["array"]["rows"] = p.rows;
  n["array"]["cols"] = p.cols;
  n["buffers"]["input_kib"] = p.input_kib;
  n["buffers"]["weight_kib"] = p.weight_kib;
  n["buffers"]["accum_kib"] = p.accum_kib;
  n["dram"]["bytes_per_cycle"] = p.dram_bytes_per_cycle;
  YAML::Node df(YAML::NodeType::Sequence);
  for (const auto& d : p.dataflows) df.push_back(d);
  n["dataflows"] = df;
  YAML::Emitter e;
  e << n;
  return "# sweep " + one_line(s.name) + ", point " + p.name + " (generated from base_arch " +
         one_line(s.base_arch) + ")\n" + e.c_str() + "\n";
}

Arch point_arch(const Arch& base, const SweepPoint& p) {
  Arch a = base;
  a.name = p.name;
  a.rows = p.rows;
  a.cols = p.cols;
  a.input_buf_bytes = p.input_kib * 1024;
  a.weight_buf_bytes = p.weight_kib * 1024;
  a.accum_buf_bytes = p.accum_kib * 1024;
  a.dram_bytes_per_cycle = p.dram_bytes_per_cycle;
  apply_capacity_scaling(a);  // buffer energies from the point's sizes, as loading its YAML does
  a.dataflows.clear();
  for (const std::string& name : p.dataflows) {
    Dataflow d;
    if (parse_dataflow(name, d) && !a.supports(d)) a.dataflows.push_back(d);
  }
  return a;
}

SweepContext load_sweep_context(SweepFile s, std::ostream* notes) {
  SweepContext c;
  c.file = std::move(s);
  c.base = load_arch(c.file.base_arch);
  const Network net = parse_network_arg(c.file.network, c.file.path + ": network");
  if (notes) *notes << import_note(net);
  c.inputs.objective = parse_objective(c.file.objective);
  c.inputs.search_options = load_options_or_default("");
  c.inputs.target = net.name;
  c.inputs.layers = net.unique_layers();
  c.inputs.import_skipped = net.skipped;
  c.inputs.import_warnings = net.warnings;
  return c;
}

int run_point(const SweepContext& c, const SweepOptions& o, const fs::path& dir,
              const SweepPoint& sp, json& p, std::ostream& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path arch_file = dir / "archs" / (sp.name + ".yaml");
  write_atomic(arch_file, point_arch_yaml(c.file, sp));
  const Arch arch = point_arch(c.base, sp);
  const model::AreaBreakdown area = model::estimate_area(arch, c.file.area);
  p["area_mm2"] = area.total_mm2;
  p["area"] = {{"pe_array_mm2", area.pe_array_mm2},
               {"input_buf_mm2", area.input_buf_mm2},
               {"weight_buf_mm2", area.weight_buf_mm2},
               {"accum_buf_mm2", area.accum_buf_mm2},
               {"control_mm2", area.control_mm2}};
  p["arch_file"] = fs::relative(arch_file, dir).string();
  std::string failure = p["rtl"].get<bool>() ? find_rtl_model(arch, o, p) : "";
  // A point without an RTL model keeps its surrogate figures.
  const bool rtl = p["rtl"].get<bool>() && failure.empty();
  const RunOptions r = point_run_options(c.file, o, dir, sp, arch_file, rtl);
  p["run_dir"] = fs::relative(r.out_dir, dir).string();
  std::optional<RunRecord> rec;
  std::ostringstream summary;
  int rc = 0;
  try {
    rc = run_here(c, r, arch, rec, summary);
  } catch (const SpecError& e) {
    failure = (failure.empty() ? "" : failure + "; ") + e.what();
    rc = 4;
  }
  log << "== " << sp.name << "\n" << summary.str();
  if (rec && rc != 130) record_figures(*rec, arch, p);
  if (rc == 3) failure = (failure.empty() ? "" : failure + "; ") + "a layer has no valid mapping";
  if (rc == 4 && failure.empty()) failure = "an RTL verification failed (see its run report)";
  p["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc == 130) {
    p["status"] = "pending";
    return rc;
  }
  p["status"] = failure.empty() ? "done" : "failed";
  p["failure"] = failure;
  return failure.empty() ? 0 : 4;
}

}  // namespace mapwright::flows
