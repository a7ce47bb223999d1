// `mapwright codesign`: loads the space file, runs the chosen searcher over the hardware and
// writes every evaluated point (points.json, points.csv), the area-cost Pareto front and the
// chosen design with its layers, area by part and one-step sensitivity, and the proven bound and
// gap (codesign.json), and the HTML
// report (report.html, codesign_report.cpp) to the output folder.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"
#include "codesign/rtl_check.hpp"
#include "codesign/solve_farm.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/search/searcher.hpp"
#include "mapwright/support/error.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

using codesign::PointResult;
using codesign::SearchOutcome;

/// Grid spaces above this many points are refused (use exact or random).
constexpr double kMaxGridPoints = 1e7;

/// The dataflow set of mask `m` as names.
json dataflow_names(long long m) {
  json a = json::array();
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS})
    if (m & (1LL << static_cast<int>(d))) a.push_back(dataflow_name(d));
  return a;
}

/// The JSON of one evaluated point.
json point_json(const CodesignSpace& s, const PointResult& p) {
  json j;
  json params;
  for (int k = 0; k < kNumHwParams; ++k) {
    const long long v = s.values[k][p.index[k]];
    params[hw_param_key(static_cast<HwParam>(k))] =
        k == static_cast<int>(HwParam::Dataflows) ? dataflow_names(v) : json(v);
  }
  j["parameters"] = params;
  j["area_mm2"] = p.area_mm2;
  j["buildable"] = p.unbuildable.empty();
  if (!p.unbuildable.empty()) {
    j["unbuildable"] = p.unbuildable;
    return j;
  }
  j["cost"] = p.cost;
  j["lower_bound"] = p.lower_bound;
  j["exact"] = p.exact;
  j["feasible"] = p.feasible();
  j["over_area"] = p.over_area;
  j["infeasible"] = p.infeasible;
  j["covers"] = p.covers;
  j["seconds"] = p.seconds;
  j["clock_mhz"] = p.clock_mhz;
  json nets = json::array();
  for (size_t w = 0; w < p.cycles.size(); ++w)
    nets.push_back({{"network", s.workload[w].name},
                    {"cycles", p.cycles[w]},
                    {"latency_ms", p.cycles[w] / (p.clock_mhz * 1e3)},
                    {"energy_uj", p.energy_pj[w] * 1e-6}});
  j["networks"] = nets;
  return j;
}

/// points.csv: one row per evaluated point.
std::string points_csv(const CodesignSpace& s, const SearchOutcome& r) {
  std::ostringstream c;
  for (int k = 0; k < kNumHwParams; ++k) c << hw_param_key(static_cast<HwParam>(k)) << ",";
  c << "area_mm2,cost,lower_bound,exact,feasible,covers";
  for (size_t w = 0; w < s.workload.size(); ++w) c << ",cycles_" << w << ",energy_pj_" << w;
  c << "\n";
  for (const PointResult& p : r.points) {
    for (int k = 0; k < kNumHwParams; ++k) {
      const long long v = s.values[k][p.index[k]];
      if (k == static_cast<int>(HwParam::Dataflows)) {
        std::string names;
        for (const auto& n : dataflow_names(v))
          names += (names.empty() ? "" : "+") + n.get<std::string>();
        c << names << ",";
      } else {
        c << v << ",";
      }
    }
    c << fmt_g(p.area_mm2, 10) << "," << fmt_g(p.cost, 12) << "," << fmt_g(p.lower_bound, 12) << ","
      << (p.exact ? 1 : 0) << "," << (p.feasible() ? 1 : 0) << "," << p.covers;
    for (size_t w = 0; w < s.workload.size(); ++w)
      c << "," << (w < p.cycles.size() ? fmt_g(p.cycles[w], 12) : "") << ","
        << (w < p.energy_pj.size() ? fmt_g(p.energy_pj[w], 12) : "");
    c << "\n";
  }
  return c.str();
}

/// The clock every point's latency is at: the base's stated clock, or the clock model.
json clock_json(const CodesignSpace& s) {
  json c = {{"mode", s.modeled_clock ? "modeled" : "stated"}, {"base_clock_mhz", s.base.clock_mhz}};
  if (s.modeled_clock)
    c["model"] = {{"library", s.clock.library},
                  {"library_node", s.clock.library_node},
                  {"node", s.clock.node},
                  {"delay_factor", s.clock.delay_factor},
                  {"fixed_ns", s.clock.fixed_ns},
                  {"setup_base_ns", s.clock.setup_base_ns},
                  {"setup_per_lane_ns", s.clock.setup_per_lane_ns},
                  {"source", s.clock.source},
                  {"cost_cycles_at_mhz", s.base.clock_mhz}};
  return c;
}

/// codesign.json: the settings, the outcome, the front and the chosen design.
json summary_json(const CodesignSpace& s, const CodesignOptions& o, uint64_t seed,
                  const SearchOutcome& r, const codesign::PointEvaluator& ev, double min_area) {
  json j;
  j["format"] = 1;
  j["space"] = {{"file", s.path}, {"name", s.name}, {"points", s.size()}, {"base", s.base_name}};
  j["searcher"] = o.searcher;
  j["seed"] = seed;
  if (o.searcher != "exact" && o.searcher != "grid") j["budget"] = o.budget;
  if (!r.searcher.is_null()) j["searcher_config"] = r.searcher;
  j["time_limit_s"] = o.time_limit_s;
  j["objective"] = s.objective.name;
  j["clock"] = clock_json(s);
  j["constraints"] = {{"max_area_mm2", s.max_area_mm2},
                      {"max_energy_uj", s.max_energy_uj},
                      {"max_latency_ms", s.max_latency_ms}};
  json wl = json::array();
  for (const WorkloadNetwork& w : s.workload)
    wl.push_back({{"network", w.name}, {"weight", w.weight}, {"unique_layers", w.layers.size()}});
  j["workload"] = wl;
  const bool found = r.best >= 0;
  std::string status = found ? (r.proved ? "proved_optimal" : "best_found")
                             : (r.timed_out ? "none_found_in_time" : "no_feasible_design");
  if (found && o.searcher != "exact") status = r.proved ? "best_of_all_points" : "best_of_sample";
  json oc = {{"status", status},
             {"points_evaluated", r.points.size()},
             {"seconds", r.seconds},
             {"timed_out", r.timed_out},
             {"mapper_solves", ev.solves()},
             {"memo_hits", ev.memo_hits()},
             {"solves_resumed", ev.journal_loaded()}};
  if (o.searcher == "exact")
    oc["branch_and_bound"] = {{"boxes", r.nodes},
                              {"pruned_bound", r.pruned_bound},
                              {"pruned_area", r.pruned_area},
                              {"pruned_constraint", r.pruned_constraint},
                              {"collapsed", r.collapsed}};
  if (found) {
    const double best = r.points[r.best].cost;
    oc["best_cost"] = best;
    if (o.searcher == "exact" || r.proved) {
      oc["lower_bound"] = r.lower_bound;
      oc["gap"] = best > 0 ? std::max(0.0, (best - r.lower_bound) / best) : 0.0;
    }
    j["chosen"] = point_json(s, r.points[r.best]);
  } else {
    oc["smallest_area_mm2"] = min_area;
    if (r.timed_out && o.searcher == "exact") oc["lower_bound"] = r.lower_bound;
  }
  j["outcome"] = oc;
  json front = json::array();
  for (int i : codesign::pareto_front(r.points)) front.push_back(point_json(s, r.points[i]));
  j["front"] = front;
  return j;
}

/// Puts the RTL verdicts `rtl` (per point index; "pending" before the RTL ran) into `summary`:
/// on the chosen design and the front's designs they name, and codesign.json's "rtl" (what --rtl
/// asked for and how many of those designs passed, failed, had no model or are pending).
void attach_rtl(json& summary, const SearchOutcome& r, const std::string& mode,
                const std::map<int, json>& rtl) {
  if (const auto it = rtl.find(r.best); it != rtl.end()) summary["chosen"]["rtl"] = it->second;
  const std::vector<int> front = codesign::pareto_front(r.points);
  for (size_t k = 0; k < front.size(); ++k)
    if (const auto it = rtl.find(front[k]); it != rtl.end())
      summary["front"][k]["rtl"] = it->second;
  json& j = summary["rtl"];
  j = {{"mode", mode}, {"designs", rtl.size()}};
  for (const char* k : {"passed", "failed", "no_model", "pending"}) j[k] = 0;
  for (const auto& [p, d] : rtl) {
    const std::string status = d["status"].get<std::string>();
    j[status] = j[status].get<int>() + 1;
  }
}

/// The summary printed without --json.
void print_summary(const json& j, const fs::path& dir, std::ostream& out) {
  const json& oc = j["outcome"];
  out << "codesign " << j["space"]["name"].get<std::string>() << ": "
      << fmt_g(j["space"]["points"].get<double>(), 6) << " points, searcher "
      << j["searcher"].get<std::string>() << ", objective " << j["objective"].get<std::string>()
      << "\n";
  out << "  evaluated " << oc["points_evaluated"] << " points in " << fmt_fixed(oc["seconds"], 2)
      << " s (" << oc["mapper_solves"] << " mapper solves"
      << (oc["solves_resumed"].get<long long>() > 0
              ? ", " + oc["solves_resumed"].dump() + " solves from the stopped run's journal"
              : std::string())
      << ")\n";
  out << "  status: " << oc["status"].get<std::string>() << "\n";
  if (j.contains("chosen")) {
    out << "  chosen: " << j["chosen"]["parameters"].dump() << "\n";
    out << "  cost " << fmt_g(oc["best_cost"], 6) << ", area "
        << fmt_fixed(j["chosen"]["area_mm2"], 3) << " mm^2";
    if (oc.contains("gap"))
      out << ", lower bound " << fmt_g(oc["lower_bound"], 6) << ", gap "
          << fmt_fixed(100 * oc["gap"].get<double>(), 3) << " %";
    out << "\n";
  } else if (oc["status"] == "none_found_in_time") {
    out << "  no design evaluated within the time limit";
    if (oc.contains("lower_bound")) out << "; proven lower bound " << fmt_g(oc["lower_bound"], 6);
    out << "\n";
  } else {
    out << "  no feasible design; the smallest area the space reaches is "
        << fmt_fixed(oc["smallest_area_mm2"], 3) << " mm^2\n";
  }
  const json& rtl = j["rtl"];
  if (rtl["designs"].get<int>() > 0)
    out << "  RTL (" << rtl["mode"].get<std::string>() << "): " << rtl["passed"] << " of "
        << rtl["designs"] << " designs bit-exact with every counter equal"
        << (rtl["failed"].get<int>() ? ", " + rtl["failed"].dump() + " failed" : "")
        << (rtl["no_model"].get<int>() ? ", " + rtl["no_model"].dump() + " without a model" : "")
        << "\n";
  if (j.contains("chosen") && j["chosen"].contains("synthesis")) {
    const json& a = j["chosen"]["area_breakdown"];
    out << "  "
        << synth_summary(j["chosen"]["synthesis"],
                         a["pe_array_mm2"].get<double>() + a["control_mm2"].get<double>())
        << "\n";
  }
  out << "  Pareto front (area vs cost): " << j["front"].size() << " points; written to "
      << dir.string() << "\n";
}

/// The command line's checks; the sampling searchers' options are loaded here too (a bad options
/// file is refused before any work).
search::SearchOptions check_options(const CodesignOptions& o, const CodesignSpace& s) {
  const auto kinds = search::searcher_kinds();
  if (o.searcher != "exact" && o.searcher != "grid" &&
      std::find(kinds.begin(), kinds.end(), o.searcher) == kinds.end()) {
    std::string known = "exact, grid";
    for (const auto& k : kinds) known += ", " + k;
    throw SpecError("--searcher", "searcher", o.searcher, "must be one of " + known);
  }
  if (o.rtl != "none" && o.rtl != "chosen" && o.rtl != "front")
    throw SpecError("--rtl", "rtl", o.rtl, "must be none, chosen or front");
  if (o.jobs < 0 || o.jobs > 256)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be 0..256 (0 = cores)");
  if (!(o.time_limit_s >= 0) || !std::isfinite(o.time_limit_s))
    throw SpecError("--time-limit", "time-limit", std::to_string(o.time_limit_s),
                    "must be a number of seconds >= 0 (0 = none)");
  if (o.budget < 1 || o.budget > 10000000)
    throw SpecError("--budget", "budget", std::to_string(o.budget), "must be 1..10000000");
  if (o.searcher == "grid" && s.size() > kMaxGridPoints)
    throw SpecError("--searcher", "searcher", "grid",
                    "the space has " + fmt_g(s.size(), 4) + " points, more than a grid's " +
                        fmt_g(kMaxGridPoints, 2) + "; use exact or a sampling searcher");
  return o.searcher == "exact" || o.searcher == "grid" || o.searcher == "random"
             ? search::SearchOptions{}
             : load_options_or_default(o.options_file);
}

/// The chosen design's layers: per network each unique layer with its count, its proven-optimal
/// mapping's dataflow and PE use, cycles, energy and cost (the evaluator's memo answers them).
json chosen_layers(codesign::PointEvaluator& ev, const PointResult& p) {
  const CodesignSpace& s = ev.space();
  const Arch a = codesign::point_arch(s, p.index);
  std::vector<char> shortcut;
  const std::vector<codesign::LayerFigures> f = ev.all_layers(a, a, 0, shortcut);
  json layers = json::array();
  for (size_t w = 0; w < s.workload.size(); ++w)
    for (size_t k = 0; k < ev.uses()[w].size(); ++k) {
      const auto& [u, count] = ev.uses()[w][k];
      const codesign::LayerFigures& l = f[u];
      layers.push_back({{"network", s.workload[w].name},
                        {"layer", s.workload[w].layers[k].first.name},
                        {"count", count},
                        {"dataflow", dataflow_name(l.mapping.dataflow)},
                        {"pe_rows", l.mapping.pe_rows},
                        {"pe_cols", l.mapping.pe_cols},
                        {"cycles", l.metrics.cycles},
                        {"energy_pj", l.metrics.energy_pj},
                        {"cost", l.cost * codesign::clock_cost_factor(s, p.clock_mhz)},
                        {"optimal", l.optimal}});
    }
  return layers;
}

/// The chosen design's area by part (model::estimate_area with the space's constants).
json area_breakdown(const CodesignSpace& s, const PointResult& p) {
  return area_parts_json(model::estimate_area(codesign::point_arch(s, p.index), s.area), true);
}

/// One step from the chosen design in each parameter, down and up where the space has a value
/// there: the neighbour's area and cost relative to the design's, or why it is not a design
/// (evaluated after the search, outside its time limit and its points).
json sensitivity(codesign::PointEvaluator& ev, const PointResult& p) {
  const CodesignSpace& s = ev.space();
  json rows = json::array();
  for (int k = 0; k < kNumHwParams; ++k)
    for (const int step : {-1, 1}) {
      codesign::HwIndex i = p.index;
      i[k] += step;
      if (i[k] < 0 || i[k] >= static_cast<int>(s.values[k].size())) continue;
      const PointResult n = ev.evaluate(i);
      json row = point_json(s, n);
      row["parameter"] = hw_param_key(static_cast<HwParam>(k));
      row["relative_cost"] = n.on_front_axis() ? json(n.cost / p.cost - 1) : json(nullptr);
      rows.push_back(row);
    }
  return rows;
}

/// codesign.json with the chosen design's layers, area and sensitivity.
json full_summary(const CodesignSpace& s, const CodesignOptions& o, uint64_t seed,
                  const SearchOutcome& r, codesign::PointEvaluator& ev) {
  const double min_area = codesign::area_lower_bound(s, codesign::whole_space(s));
  json summary = summary_json(s, o, seed, r, ev, min_area);
  if (r.best >= 0) {
    json& ch = summary["chosen"];
    ch["layers"] = chosen_layers(ev, r.points[r.best]);
    ch["area_breakdown"] = area_breakdown(s, r.points[r.best]);
    summary["sensitivity"] = sensitivity(ev, r.points[r.best]);
  }
  return summary;
}

}  // namespace

int cmd_codesign(const CodesignOptions& o, std::ostream& out) {
  const CodesignSpace s = load_codesign_space(o.space);
  const search::SearchOptions options = check_options(o, s);
  // Under mpirun every rank has read and checked the same inputs; the others solve layers for
  // rank 0 (solve_farm.hpp), which does everything else. The farm stops them when rank 0 ends,
  // also on an error.
  if (dist::size() > 1 && dist::rank() != 0) return codesign::serve_solves(s);
  std::optional<codesign::SolveFarm> farm;
  if (dist::size() > 1) farm.emplace();
  const fs::path dir = o.out_dir.empty() ? fs::path("runs") / ("codesign-" + safe_name(s.name))
                                         : fs::path(o.out_dir);
  make_output_dir(dir);
  const FolderLock lock(dir, "--out");
  const uint64_t seed = o.seed_given ? o.seed : s.seed;
  codesign::PointEvaluator ev(s);
  if (farm) ev.use_farm(&*farm);
  ev.open_folder_journal(dir, o.resume, "co-design");
  SearchOutcome r;
  if (o.searcher == "exact")
    r = codesign::search_exact(ev, o.time_limit_s);
  else if (o.searcher == "grid")
    r = codesign::search_grid(ev, o.time_limit_s);
  else if (o.searcher == "random")
    r = codesign::search_random(ev, o.budget, seed, o.time_limit_s);
  else
    r = codesign::search_sampled(ev, {o.searcher, options, o.budget, seed, o.time_limit_s});
  json pts = json::array();
  for (const PointResult& p : r.points) pts.push_back(point_json(s, p));
  write_atomic(dir / "points.json", pts.dump(1) + "\n");
  write_atomic(dir / "points.csv", points_csv(s, r));
  // The search's answer is written before the RTL runs (minutes when models are built), so an
  // interrupted or failed RTL step loses nothing of it; the verdicts are added after.
  const std::vector<int> designs = codesign::designs_to_check(o.rtl, r);
  std::map<int, json> rtl;
  for (int p : designs) rtl[p] = {{"status", "pending"}};
  json summary = full_summary(s, o, seed, r, ev);
  attach_rtl(summary, r, o.rtl, rtl);
  write_atomic(dir / "codesign.json", summary.dump(2) + "\n");
  if (!designs.empty()) {
    const codesign::RtlCheckRequest rq{
        o.jobs, seed, o.worker_exe, {}, &std::cerr, dir / "rtl.jsonl", o.resume};
    rtl = codesign::check_on_rtl(ev, r.points, designs, dir, rq, farm ? &*farm : nullptr);
    attach_rtl(summary, r, o.rtl, rtl);
    write_atomic(dir / "codesign.json", summary.dump(2) + "\n");
  }
  if (o.synth && r.best >= 0) {
    const SynthOutcome so =
        synthesize(codesign::point_arch(s, r.points[r.best].index), "", (dir / "synth").string());
    summary["chosen"]["synthesis"] = synth_record(so);
    write_atomic(dir / "codesign.json", summary.dump(2) + "\n");
    if (so.failure != SynthFailureKind::None)
      std::cerr << "codesign: synthesis of the chosen design failed: " << so.message
                << (so.log.empty() ? "" : " (log: " + so.log + ")") << "\n";
  }
  if (farm) {
    std::ostringstream ranks;
    farm->close_and_report(ranks);
    if (!o.json) out << ranks.str();
  }
  const bool plotted = write_codesign_report(dir.string());
  if (o.json) {
    out << summary.dump(2) << "\n";
  } else {
    print_summary(summary, dir, out);
    out << "  report: " << (dir / "report.html").string()
        << (plotted ? "" : " (gnuplot missing or failed: no plots)") << "\n";
  }
  if (r.best < 0) return 3;
  return summary["rtl"]["passed"] == summary["rtl"]["designs"] ? 0 : 4;
}

}  // namespace mapwright::flows
