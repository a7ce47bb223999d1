// verify and fidelity: the same mapping through the Verilated RTL and the surrogate, with the
// differences of every count, the cycle error (of the surrogate's closed form and of the refined
// estimate) and the functional check.
#include "mapwright/flows/verify.hpp"

#include "mapwright/flows/commands.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "mapwright/core/dram_layout.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/support/stats.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/model/surrogate.hpp"
#include "verify/crosscheck.hpp"
#ifdef MAPWRIGHT_HAVE_RTL
#include "mapwright/rtlpool/run_admission.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"
#endif

using namespace mapwright::core;
using namespace mapwright::rtlpool;

namespace mapwright::flows {

#ifndef MAPWRIGHT_HAVE_RTL

int cmd_verify(const VerifyOptions&, std::ostream&) {
  throw SpecError("verify", "build", "MAPWRIGHT_BUILD_RTL=OFF",
                  "this mapwright was built without the RTL; rebuild with the default options");
}
int cmd_fidelity(const FidelityOptions&, std::ostream&) {
  throw SpecError("fidelity", "build", "MAPWRIGHT_BUILD_RTL=OFF",
                  "this mapwright was built without the RTL; rebuild with the default options");
}

#else

namespace {

/// Cycle agreement of one prediction with the RTL over many runs.
struct Agreement {
  std::vector<double> abs_err, rtl, pred;
  void add(long long rtl_cycles, long long predicted) {
    abs_err.push_back(std::abs(cycle_error_pct(rtl_cycles, predicted)));
    rtl.push_back(static_cast<double>(rtl_cycles));
    pred.push_back(static_cast<double>(predicted));
  }
  void add(const Agreement& o) {
    abs_err.insert(abs_err.end(), o.abs_err.begin(), o.abs_err.end());
    rtl.insert(rtl.end(), o.rtl.begin(), o.rtl.end());
    pred.insert(pred.end(), o.pred.begin(), o.pred.end());
  }
  double mape() const {
    return abs_err.empty() ? 0
                           : std::accumulate(abs_err.begin(), abs_err.end(), 0.0) /
                                 static_cast<double>(abs_err.size());
  }
  double max() const {
    return abs_err.empty() ? 0 : *std::max_element(abs_err.begin(), abs_err.end());
  }
  double rho() const { return spearman(rtl, pred); }
  /// How many runs are off by more than `pct` percent.
  long over(double pct) const {
    return std::count_if(abs_err.begin(), abs_err.end(), [&](double e) { return e > pct; });
  }
  nlohmann::json rho_json() const {
    const double r = rho();
    return std::isnan(r) ? nlohmann::json() : nlohmann::json(r);
  }
  nlohmann::json to_json() const {
    return {{"mape_pct", mape()},
            {"max_error_pct", max()},
            {"over_10_pct", over(10)},
            {"spearman", rho_json()}};
  }
};

/// The harness of --harness ("auto", "systemc" or "decoupled"); a SpecError for any other
/// value, and for "decoupled" where it cannot run (no plain model, or a waveform asked for).
systemc::RtlHarness parse_harness(const std::string& v, const Arch& arch, bool traced) {
  if (v == "auto") return systemc::RtlHarness::Auto;
  if (v == "systemc") return systemc::RtlHarness::SystemC;
  if (v != "decoupled")
    throw SpecError("--harness", "harness", v, "must be auto, systemc or decoupled");
  if (traced)
    throw SpecError("--harness", "harness", v,
                    "the decoupled SystemC harness does not trace; use --harness systemc or auto "
                    "with --trace");
  if (!systemc::RtlEvaluator::has_plain_model(arch)) {
    std::string names;
    for (const auto& n : systemc::RtlEvaluator::plain_archs())
      names += (names.empty() ? "" : ", ") + n;
    throw SpecError("--harness", "harness", v,
                    "architecture '" + arch.name +
                        "' has no plain C++ model for the decoupled SystemC harness (models: " +
                        names + "); use --harness systemc or auto");
  }
  return systemc::RtlHarness::Decoupled;
}

/// Throws a SpecError when the RTL has no model for this arch (a usage error, not a result).
void require_model(systemc::RtlEvaluator& rtl, const Arch& arch, systemc::RtlHarness harness) {
  systemc::RtlParams p;
  std::string failure;
  if (!rtl.read_params(arch, p, failure, harness)) {
    throw SpecError("--arch", "arch", arch.name,
                    failure +
                        "; fidelity runs the compiled-in models only: `mapwright verify` and "
                        "`mapwright run` verify on a model built by the RTL model cache");
  }
}

/// True when this binary has a compiled-in model for `arch`.
bool has_compiled_model(systemc::RtlEvaluator& rtl, const Arch& arch, systemc::RtlHarness harness) {
  systemc::RtlParams p;
  std::string failure;
  return rtl.read_params(arch, p, failure, harness);
}

/// Runs one verification on an RTL model from the model cache (built first when absent, with
/// progress on stderr), in a worker process; the result as the in-process evaluator gives it.
/// With a waveform asked for, the model is the architecture's traced twin (the compiled-in
/// models are built without tracing, so they pay nothing for it).
rtl::RtlRunResult run_on_cached_model(const VerifyOptions& o, const Layer& layer,
                                      const Mapping& m) {
  RtlWorkerPool pool(worker_executable(), 1);
  ModelCacheOptions cache;
  cache.progress = &std::cerr;
  cache.traced = !o.trace.empty();
  pool.enable_model_cache(cache);
  if (const std::string why = pool.check_arch(o.arch); !why.empty())
    throw SpecError("--arch", "arch", o.arch, why);
  RtlJob j;
  j.arch = o.arch;
  j.layer = layer;
  j.mapping = m;
  j.seed = o.seed;
  j.limits = o.limits;
  if (!o.trace.empty()) j.trace_file = std::filesystem::absolute(o.trace).string();
  rtl::RtlRunResult r = pool.run_one(std::move(j));
  // A cached model runs the pin-level testbench (a worker that died named no harness).
  if (r.harness.empty()) r.harness = systemc::harness_label(systemc::RtlHarness::SystemC);
  return r;
}

/// Prints a run that was over a limit (and not simulated); returns verify's failure code.
int report_over_limit(const VerifyOptions& o, const Layer& layer, const Arch& arch,
                      const rtl::RtlRunResult& r, std::ostream& out) {
  if (o.json) {
    out << nlohmann::json{{"arch", arch.name},
                          {"layer", layer.describe()},
                          {"seed", o.seed},
                          {"over_limit", true},
                          {"failure", r.failure},
                          {"predicted_cycles", r.predicted_cycles},
                          {"estimated_memory_mb", r.estimated_memory_mb}}
               .dump(2)
        << "\n";
  } else {
    out << "layer    " << layer.name << ": " << layer.describe() << "\n"
        << "arch     " << arch.name << " (" << arch.rows << "x" << arch.cols << "), seed " << o.seed
        << "\n"
        << "RTL NOT RUN: " << r.failure << "\n";
  }
  return 4;
}

}  // namespace

int cmd_verify(const VerifyOptions& o, std::ostream& out) {
  check_sim_limits(o.limits);
  const Arch arch = load_arch(o.arch);
  require_rtl_dram_port(arch, "--arch");
  const Layer layer = parse_layer_arg(o.layer);
  const Mapping m = resolve_mapping(o.mapping, layer, arch);
  model::Surrogate sur;
  const Metrics s = sur.evaluate(layer, arch, m);
  if (!s.valid) {
    if (o.json)
      out << nlohmann::json{{"valid", false}, {"reason", s.reason}}.dump(2) << "\n";
    else
      out << "INVALID mapping: " << s.reason << "\n";
    return 3;
  }
  const systemc::RtlHarness harness = parse_harness(o.harness, arch, !o.trace.empty());
  systemc::RtlEvaluator rtl;
  // A waveform comes from a traced model, which the model cache builds (once).
  const bool compiled = o.trace.empty() && has_compiled_model(rtl, arch, harness);
  if (!o.trace.empty()) {
    // Refuse an unwritable waveform path before simulating, not after.
    std::ofstream probe(o.trace, std::ios::binary | std::ios::app);
    if (!probe)
      throw SpecError("--trace", "trace", o.trace,
                      "cannot write the waveform file (missing folder or no permission)");
  }
  systemc::RtlRunOptions ro;
  ro.seed = o.seed;
  ro.trace_file = o.trace;
  ro.harness = harness;
  ro.limits = o.limits;
  // An architecture without a compiled-in model runs on one from the model cache.
  const rtl::RtlRunResult r =
      compiled ? run_admitted(rtl, layer, arch, m, ro) : run_on_cached_model(o, layer, m);
  // Over a limit: not simulated (or stopped by the wall clock), so no table of counts.
  if (r.over_limit()) return report_over_limit(o, layer, arch, r, out);
  std::error_code tec;
  if (!o.trace.empty() &&
      (!std::filesystem::exists(o.trace, tec) || std::filesystem::file_size(o.trace, tec) == 0))
    throw SpecError("--trace", "trace", o.trace, "the simulation wrote no waveform there");
  const Crosscheck check = crosscheck(layer, arch, m, s, r);
  const double err = check.cycle_error_pct;
  const long long refined = model::refined_cycles(layer, arch, m).cycles;
  const double refined_err = cycle_error_pct(r.metrics.cycles, refined);
  nlohmann::json diffs = nlohmann::json::object();
  for (const auto* list : {&check.counts, &check.bank_stalls})
    for (const CountDiff& c : *list)
      diffs[c.name] = {{"rtl", c.rtl}, {"surrogate", c.surrogate}, {"diff", c.surrogate - c.rtl}};
  const bool ok = check.passed;
  if (o.json) {
    nlohmann::json j;
    j["arch"] = arch.name;
    j["layer"] = layer.describe();
    j["mapping"] = mapping_to_yaml(m);
    j["seed"] = o.seed;
    j["rtl"] = r.metrics.to_json();
    j["rtl"]["failure"] = r.failure;
    j["rtl"]["sim_seconds"] = r.sim_seconds;
    j["rtl"]["harness"] = r.harness;
    j["surrogate"] = s.to_json();
    j["functional_ok"] = r.functional_ok;
    j["mismatched_bytes"] = r.mismatches;
    j["count_mismatches"] = check.mismatched;
    j["counts"] = diffs;
    j["cycle_error_pct"] = err;
    j["refined_cycles"] = refined;
    j["refined_error_pct"] = refined_err;
    if (!o.trace.empty()) j["trace"] = o.trace;
    out << j.dump(2) << "\n";
    return ok ? 0 : 4;
  }
  out << "layer    " << layer.name << ": " << layer.describe() << "\n";
  out << "arch     " << arch.name << " (" << arch.rows << "x" << arch.cols << "), seed " << o.seed
      << "\n";
  if (!r.failure.empty()) out << "RTL FAILURE: " << r.failure << "\n";
  out << "functional check: "
      << (r.functional_ok ? "bit-exact against the C++ reference"
                          : "MISMATCH (" + std::to_string(r.mismatches) + " output bytes differ)")
      << "\n";
  out << std::left << std::setw(24) << "" << std::right << std::setw(16) << "rtl" << std::setw(16)
      << "surrogate" << std::setw(12) << "diff"
      << "\n";
  auto row = [&](const std::string& name, double a, double b, bool pct) {
    out << std::left << std::setw(24) << name << std::right << std::setw(16)
        << std::setprecision(10) << a << std::setw(16) << b << std::setw(12);
    if (pct)
      out << (a != 0 ? std::to_string(100.0 * (b - a) / a).substr(0, 6) + "%" : "-");
    else
      out << b - a;
    out << "\n";
  };
  row("cycles", r.metrics.cycles, s.cycles, true);
  row("cycles (refined)", r.metrics.cycles, refined, true);
  row("energy_pj", r.metrics.energy_pj, s.energy_pj, true);
  row("edp", r.metrics.edp, s.edp, true);
  row("utilization", r.metrics.utilization, s.utilization, true);
  for (const auto* list : {&check.counts, &check.bank_stalls})
    for (const CountDiff& c : *list)
      row(c.name, static_cast<double>(c.rtl), static_cast<double>(c.surrogate), false);
  out << (check.mismatched ? std::to_string(check.mismatched) + " COUNTS DIFFER"
          : check.bank_stalls.empty()
              ? std::string("every access count equal")
              : std::string("every access count and bank-stall counter equal"))
      << "; cycle error " << std::setprecision(3) << err << " % (refined estimate " << refined_err
      << " %); simulated in " << r.sim_seconds << " s (" << r.harness << " harness)"
      << (o.trace.empty() ? "" : "; waveform " + o.trace) << "\n";
  return ok ? 0 : 4;
}

int cmd_fidelity(const FidelityOptions& o, std::ostream& out) {
  if (o.samples <= 0)
    throw SpecError("--samples", "samples", std::to_string(o.samples), "must be positive");
  if (o.layers.empty()) throw SpecError("--layer", "layer", "", "give at least one --layer");
  const Arch arch = load_arch(o.arch);
  require_rtl_dram_port(arch, "--arch");
  std::vector<Layer> layers;
  for (const auto& l : o.layers) layers.push_back(parse_layer_arg(l));  // all checked first
  const systemc::RtlHarness harness = parse_harness(o.harness, arch, false);
  systemc::RtlEvaluator rtl;
  require_model(rtl, arch, harness);
  model::Surrogate sur;
  std::mt19937_64 rng(o.seed);
  int functional_ok = 0, count_mismatches = 0, failures = 0, total = 0;
  Agreement all_sur, all_ref;
  nlohmann::json per_layer = nlohmann::json::array();
  for (size_t li = 0; li < layers.size(); ++li) {
    const Layer& layer = layers[li];
    const MapSpace space(layer, arch);
    int l_ok = 0, l_cm = 0, l_fail = 0;
    Agreement sur_a, ref_a;
    nlohmann::json runs = nlohmann::json::array();
    for (int i = 0; i < o.samples; ++i) {
      // Valid includes, under the bursts port, a burst descriptor for every transfer
      // (core::check_valid), so every drawn mapping can run on the RTL.
      ParamVector v;
      if (!space.sample_valid(rng, v))
        throw SpecError("--layer", "layer", layer.name, "no valid mapping found by sampling");
      const Mapping m = space.decode(v);
      const Metrics s = sur.evaluate(layer, arch, m);
      const long long refined = model::refined_cycles(layer, arch, m).cycles;
      systemc::RtlRunOptions ro;
      ro.seed = fidelity_seed(o.seed, li, i);
      ro.harness = harness;
      const rtl::RtlRunResult r = run_admitted(rtl, layer, arch, m, ro);
      const bool counts_equal = crosscheck(layer, arch, m, s, r).counts_equal;
      l_ok += r.ok();
      l_fail += !r.failure.empty();
      l_cm += r.failure.empty() && !counts_equal;
      nlohmann::json e{{"mapping", mapping_to_yaml(m)},
                       {"rtl_cycles", r.metrics.cycles},
                       {"surrogate_cycles", s.cycles},
                       {"refined_cycles", refined},
                       {"functional_ok", r.functional_ok},
                       {"counts_equal", counts_equal},
                       {"failure", r.failure}};
      if (r.failure.empty()) {
        sur_a.add(r.metrics.cycles, s.cycles);
        ref_a.add(r.metrics.cycles, refined);
        e["cycle_error_pct"] = cycle_error_pct(r.metrics.cycles, s.cycles);
        e["refined_error_pct"] = cycle_error_pct(r.metrics.cycles, refined);
      }
      runs.push_back(e);
      if (!o.json)
        out << "\r" << layer.name << ": " << (i + 1) << "/" << o.samples << " mappings"
            << std::flush;
    }
    per_layer.push_back({{"layer", layer.name},
                         {"shape", layer.describe()},
                         {"samples", o.samples},
                         {"functional_ok", l_ok},
                         {"failures", l_fail},
                         {"count_mismatches", l_cm},
                         {"mape_pct", sur_a.mape()},
                         {"max_error_pct", sur_a.max()},
                         {"spearman", sur_a.rho_json()},
                         {"refined", ref_a.to_json()},
                         {"runs", runs}});
    functional_ok += l_ok;
    failures += l_fail;
    count_mismatches += l_cm;
    total += o.samples;
    all_sur.add(sur_a);
    all_ref.add(ref_a);
    if (!o.json)
      out << "\r" << std::left << std::setw(28) << layer.name << std::right << " bit-exact " << l_ok
          << "/" << o.samples << ", count mismatches " << l_cm << ", failures " << l_fail
          << ", cycle error mean " << std::setprecision(3) << sur_a.mape() << " % max "
          << sur_a.max() << " %, spearman " << sur_a.rho() << "; refined mean " << ref_a.mape()
          << " % max " << ref_a.max() << " %\n";
  }
  // Over all mappings of all layers (per layer in "layers").
  nlohmann::json j{
      {"arch", arch.name},
      {"seed", o.seed},
      {"harness", systemc::harness_label(systemc::RtlEvaluator::resolve(harness, arch, false))},
      {"samples", total},
      {"functional_ok", functional_ok},
      {"failures", failures},
      {"count_mismatches", count_mismatches},
      {"mape_pct", all_sur.mape()},
      {"max_error_pct", all_sur.max()},
      {"spearman", all_sur.rho_json()},
      {"refined", all_ref.to_json()},
      {"layers", per_layer}};
  if (o.json) {
    out << j.dump(2) << "\n";
  } else {
    out << "all: " << total << " random valid mappings on " << arch.name << " (seed " << o.seed
        << ", " << j["harness"].get<std::string>() << " harness): bit-exact " << functional_ok
        << "/" << total << ", RTL failures " << failures << ", count mismatches "
        << count_mismatches << ", cycle error mean " << std::setprecision(3) << all_sur.mape()
        << " %, max " << all_sur.max() << " %, spearman " << all_sur.rho()
        << "; refined estimate mean " << all_ref.mape() << " %, max " << all_ref.max() << " % ("
        << all_ref.over(10) << " above 10 %), spearman " << all_ref.rho() << "\n";
  }
  return (functional_ok == total && count_mismatches == 0) ? 0 : 4;
}

#endif

}  // namespace mapwright::flows
