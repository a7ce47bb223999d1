// `mapwright sweep`: the grid searcher of the co-design machinery (flows/codesign/) over the
// points a sweep file lists. The file's points become a co-design space (per parameter the
// values its points use) and a list of points in that space; search_points scores each with
// the co-design's point evaluator (every unique layer at its proven-optimal mapping, memoized,
// solves kept in the folder's journal), check_on_rtl runs the chosen mappings of the points
// `verify` names on their RTL models (from the build or the model cache, built on first use;
// each finished layer run kept in rtl.jsonl), and the sweep adds the area model's parts, the
// three Pareto fronts, the winner under the constraints, sweep.json, the sweep_points table of
// results.sqlite and sweep.html (sweep_report.cpp). Under mpirun the other ranks solve layers
// for rank 0 (codesign/solve_farm.hpp), as for `codesign`; a stopped sweep continues with
// --resume from its journals.
#include "mapwright/flows/sweep.hpp"
#include "mapwright/flows/synth.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"
#include "codesign/rtl_check.hpp"
#include "codesign/solve_farm.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/frontend/onnx_import.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/support/error.hpp"
#include "record/results_db.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_space.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;
namespace cd = mapwright::flows::codesign;

namespace mapwright::flows {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

/// The dataflow set of a point as the co-design's mask (bit 0 ws, bit 1 os, bit 2 is).
long long dataflow_mask(const std::vector<std::string>& names) {
  long long m = 0;
  for (const std::string& n : names) m |= n == "ws" ? 1 : n == "os" ? 2 : 4;
  return m;
}

/// The point's value of parameter `p`.
long long sweep_value(const SweepPoint& pt, HwParam p, const Arch& base) {
  switch (p) {
    case HwParam::Dataflows:
      return dataflow_mask(pt.dataflows);
    case HwParam::Rows:
      return pt.rows;
    case HwParam::Cols:
      return pt.cols;
    case HwParam::DramBw:
      return pt.dram_bytes_per_cycle;
    case HwParam::Banks:
      return base.buffer_banks;
    case HwParam::AccumKib:
      return pt.accum_kib;
    case HwParam::WeightKib:
      return pt.weight_kib;
    case HwParam::InputKib:
      return pt.input_kib;
  }
  return 0;
}

/// The indices of the points whose chosen mappings are verified on the RTL.
std::vector<bool> verified_points(const SweepFile& s) {
  std::vector<bool> v(s.points.size(), s.verify == "all");
  if (s.verify != "sample") return v;
  std::vector<size_t> idx(s.points.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::mt19937_64 rng(s.seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  for (int i = 0; i < s.verify_sample; ++i) v[idx[static_cast<size_t>(i)]] = true;
  return v;
}

/// The point's row before it is scored.
json point_json(const SweepPoint& p, size_t index, bool rtl) {
  return {{"index", index},
          {"name", p.name},
          {"rows", p.rows},
          {"cols", p.cols},
          {"input_kib", p.input_kib},
          {"weight_kib", p.weight_kib},
          {"accum_kib", p.accum_kib},
          {"dram_bytes_per_cycle", p.dram_bytes_per_cycle},
          {"dataflows", join(p.dataflows, ",")},
          {"rtl", rtl},
          {"status", "pending"},
          {"failure", ""}};
}

/// A new sweep's record: the file, its settings and every point pending.
json new_sweep_record(const SweepFile& s, const SweepSpace& w, const SweepOptions& o,
                      const std::string& file_text) {
  const std::vector<bool> rtl = verified_points(s);
  json rec = {{"command", "sweep"},
              {"mapwright", "0.1.0"},
              {"sweep_id", safe_name(s.name) + "-" + now_iso()},
              {"created", now_iso()},
              {"name", s.name},
              {"description", s.description},
              {"file", o.file},
              {"file_text", file_text},
              {"network", s.network},
              {"network_name", w.network_name},
              {"base_arch", s.base_arch},
              {"objective", s.objective},
              {"seed", s.seed},
              {"verify", s.verify},
              {"verify_sample", s.verify_sample},
              {"mapper", {{"time_limit_s", s.exact.time_limit_s}, {"gap", s.exact.gap}}},
              {"constraints",
               {{"max_area_mm2", s.max_area_mm2},
                {"max_latency_ms", s.max_latency_ms},
                {"max_energy_uj", s.max_energy_uj}}},
              {"area_constants", cd::area_constants_json(s.area)},
              {"points", json::array()}};
  for (size_t i = 0; i < s.points.size(); ++i)
    rec["points"].push_back(point_json(s.points[i], i, rtl[i]));
  return rec;
}

/// The record of the sweep in `dir`: a new one, or with --resume the stored one after checking
/// that it is a sweep of the same file.
json open_sweep_record(const SweepFile& s, const SweepSpace& w, const SweepOptions& o,
                       const fs::path& record_file, const std::string& file_text) {
  std::error_code ec;
  if (!fs::exists(record_file, ec)) return new_sweep_record(s, w, o, file_text);
  if (!o.resume)
    throw SpecError("--out", "out", record_file.parent_path().string(),
                    "already holds a sweep (sweep.json); add --resume to continue it, or "
                    "choose another --out");
  json rec;
  try {
    rec = json::parse(read_text(record_file));
  } catch (const json::exception& e) {
    throw SpecError(record_file.string(), "(json)", "", e.what());
  }
  if (!rec.is_object() || rec.value("command", "") != "sweep" || !rec.contains("points") ||
      !rec["points"].is_array() || rec["points"].size() != s.points.size())
    throw SpecError(record_file.string(), "command", "", "not a `mapwright sweep` folder");
  if (rec.value("file_text", "") != file_text)
    throw SpecError(o.file, "(file)", o.file,
                    "differs from the sweep file of the sweep being resumed (" +
                        record_file.string() + "); resume with the same file");
  return rec;
}

/// Minimizing both: marks the points of `pts` (x, y, index) on the Pareto front.
void mark_front(std::vector<std::tuple<double, double, size_t>> pts, json& points,
                const char* key) {
  std::sort(pts.begin(), pts.end());
  double best_y = std::numeric_limits<double>::infinity();
  for (const auto& [x, y, i] : pts) {
    const bool on = y < best_y;
    if (on) best_y = y;
    points[i][key] = on;
  }
}

/// Fronts, constraints and the winner, from the points' figures.
void decide(const SweepFile& s, json& rec) {
  json& points = rec["points"];
  std::vector<std::tuple<double, double, size_t>> lat, en, edp;
  for (size_t i = 0; i < points.size(); ++i) {
    json& p = points[i];
    for (const char* k :
         {"pareto_latency", "pareto_energy", "pareto_edp", "meets_constraints", "winner"})
      p[k] = false;
    if (!p.contains("cycles")) continue;
    const double area = p["area_mm2"].get<double>();
    lat.emplace_back(area, p["latency_ms"].get<double>(), i);
    en.emplace_back(area, p["energy_uj"].get<double>(), i);
    edp.emplace_back(area, p["edp"].get<double>(), i);
    p["meets_constraints"] =
        (s.max_area_mm2 <= 0 || area <= s.max_area_mm2) &&
        (s.max_latency_ms <= 0 || p["latency_ms"].get<double>() <= s.max_latency_ms) &&
        (s.max_energy_uj <= 0 || p["energy_uj"].get<double>() <= s.max_energy_uj);
  }
  mark_front(lat, points, "pareto_latency");
  mark_front(en, points, "pareto_energy");
  mark_front(edp, points, "pareto_edp");
  // The winner: the best objective among the finished points that meet the constraints.
  const Objective obj = parse_objective(s.objective);
  json winner;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    if (p["status"] != "done" || !p["meets_constraints"].get<bool>()) continue;
    const double cost = obj.cost(p["cycles"].get<double>(), p["energy_pj"].get<double>());
    if (cost < best) {
      best = cost;
      winner = i;
    }
  }
  rec["winner"] = winner;
  if (!winner.is_null()) points[winner.get<size_t>()]["winner"] = true;
}

/// The scored point `r` into its row `p` (area and its parts, the network's figures).
void put_figures(const CodesignSpace& s, const cd::PointResult& r, json& p) {
  const Arch a = cd::point_arch(s, r.index);
  const model::AreaBreakdown area = model::estimate_area(a, s.area);
  p["area_mm2"] = area.total_mm2;
  p["area"] = area_parts_json(area, false);
  p["seconds"] = r.seconds;
  if (!r.found) {
    p["status"] = "failed";
    p["failure"] = "a layer has no valid mapping";
    return;
  }
  p["cycles"] = r.cycles[0];
  p["latency_ms"] = r.cycles[0] / (r.clock_mhz * 1e3);
  p["clock_mhz"] = r.clock_mhz;
  p["energy_pj"] = r.energy_pj[0];
  p["energy_uj"] = r.energy_pj[0] * 1e-6;
  p["edp"] = r.cycles[0] * r.energy_pj[0];
  p["source"] = "surrogate";
  p["layers_proved"] = r.exact;
  p["status"] = p["rtl"].get<bool>() ? "pending" : "done";
}

/// The RTL verdict `v` of the point in row `p` (check_on_rtl's object): its status, model,
/// checks and the network's cycles on the RTL (each unique layer's RTL cycles times its count).
void put_rtl(const cd::PointEvaluator& ev, const json& v, json& p) {
  p["rtl_check"] = v;
  p["rtl_model"] = v.value("model", std::string());
  const std::string status = v["status"].get<std::string>();
  if (status == "no_model") {
    p["status"] = "failed";
    p["failure"] = "rtl: " + v.value("reason", std::string());
    return;
  }
  std::map<std::string, int> count;  // the network's unique layers (one network) by name
  for (const auto& [u, n] : ev.uses()[0]) count[ev.layers()[u].name] = n;
  int checks = 0, failures = 0;
  double rtl_cycles = 0;
  bool all_timed = true;
  for (const json& l : v["layers"]) {
    ++checks;
    const json& ver = l["verification"];
    if (!ver.value("passed", false)) ++failures;
    if (ver.contains("cycles"))
      rtl_cycles += count.at(l["layer"].get<std::string>()) * ver["cycles"].get<double>();
    else
      all_timed = false;
  }
  p["verifications"] = checks;
  p["verification_failures"] = failures;
  if (all_timed && checks > 0) {
    p["rtl_cycles"] = rtl_cycles;
    p["rtl_cycle_error_pct"] = 100 * (p["cycles"].get<double>() - rtl_cycles) / rtl_cycles;
  }
  p["status"] = failures == 0 ? "done" : "failed";
  p["failure"] = failures == 0
                     ? ""
                     : "rtl: " + std::to_string(failures) + " of " + std::to_string(checks) +
                           " layers failed their RTL check (sweep.json rtl_check)";
}

/// One line per point.
void print_point(std::ostream& out, const json& p, size_t n) {
  out << "[" << p["index"].get<size_t>() + 1 << "/" << n << "] " << p["name"].get<std::string>()
      << ": ";
  if (p.contains("cycles")) {
    out << "area " << std::fixed << std::setprecision(3) << p["area_mm2"].get<double>()
        << " mm2, latency " << std::defaultfloat << std::setprecision(4)
        << p["latency_ms"].get<double>() << " ms, energy " << p["energy_uj"].get<double>()
        << " uJ, EDP " << std::scientific << std::setprecision(4) << p["edp"].get<double>()
        << std::defaultfloat;
    if (p.value("verifications", 0) > 0)
      out << " (" << p["verifications"].get<int>() - p["verification_failures"].get<int>() << "/"
          << p["verifications"].get<int>() << " RTL checks passed)";
  }
  if (p["status"] != "done")
    out << (p.contains("cycles") ? "; " : "") << "FAILED: " << p["failure"].get<std::string>();
  out << "\n";
}

/// sweep.json and the sweep_points rows, with the fronts and the winner decided again.
void save(const SweepFile& f, const fs::path& dir, ResultsDb& db, json& rec) {
  rec["updated"] = now_iso();
  decide(f, rec);
  write_atomic(dir / "sweep.json", rec.dump(2) + "\n");
  for (size_t i = 0; i < rec["points"].size(); ++i)
    db.put_sweep_point(rec["sweep_id"].get<std::string>(), static_cast<int>(i), rec["points"][i]);
}

}  // namespace

SweepSpace sweep_space(const SweepFile& f, std::ostream* notes) {
  SweepSpace w;
  CodesignSpace& s = w.space;
  s.path = f.path;
  s.name = f.name;
  s.base_name = f.base_arch;
  s.base = load_arch(f.base_arch);
  s.objective = parse_objective(f.objective, f.path);
  s.max_area_mm2 = f.max_area_mm2;
  s.max_latency_ms = f.max_latency_ms;
  s.max_energy_uj = f.max_energy_uj;
  s.mapper_time_limit_s = f.exact.time_limit_s;
  s.area = f.area;
  s.seed = f.seed;
  // Read once here, so a bad network is refused before any point runs.
  const Network net = parse_network_arg(f.network, f.path + ": network");
  if (notes) *notes << import_note(net);
  WorkloadNetwork wn;
  wn.name = f.network;
  wn.layers = net.unique_layers();
  if (wn.layers.empty()) throw SpecError(f.path, "network", f.network, "has no layers to map");
  s.workload.push_back(std::move(wn));
  w.network_name = net.name;
  for (int p = 0; p < kNumHwParams; ++p) {
    std::vector<long long>& v = s.values[p];
    for (const SweepPoint& pt : f.points)
      v.push_back(sweep_value(pt, static_cast<HwParam>(p), s.base));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    s.given[p] = static_cast<HwParam>(p) != HwParam::Banks;
  }
  for (const SweepPoint& pt : f.points) {
    cd::HwIndex i{};
    for (int p = 0; p < kNumHwParams; ++p) {
      const auto& v = s.values[p];
      i[p] = static_cast<int>(
          std::lower_bound(v.begin(), v.end(), sweep_value(pt, static_cast<HwParam>(p), s.base)) -
          v.begin());
    }
    w.points.push_back(i);
  }
  return w;
}

int cmd_sweep(const SweepOptions& o, std::ostream& out) {
  if (o.file.empty()) throw SpecError("--file", "file", "", "a sweep needs a sweep file");
  if (o.jobs < 0)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0 (0 = every core)");
  const SweepFile f = load_sweep_file(o.file);
  const bool rank0 = dist::size() == 1 || dist::rank() == 0;
  const SweepSpace w = sweep_space(f, rank0 ? &std::cerr : nullptr);
  // Under mpirun the other ranks solve layers for rank 0, which does everything else.
  if (!rank0) return cd::serve_solves(w.space);
  std::optional<cd::SolveFarm> farm;
  if (dist::size() > 1) farm.emplace();
  const std::string file_text = read_text(o.file);
  const fs::path dir =
      o.out_dir.empty() ? fs::path("runs") / ("sweep-" + safe_name(f.name)) : fs::path(o.out_dir);
  make_output_dir(dir);
  const FolderLock lock(dir, "--out");
  json rec = open_sweep_record(f, w, o, dir / "sweep.json", file_text);
  cd::PointEvaluator ev(w.space);
  if (farm) ev.use_farm(&*farm);
  ev.open_folder_journal(dir, o.resume, "sweep");
  ResultsDb db((dir / "results.sqlite").string());
  rec["status"] = "running";
  save(f, dir, db, rec);
  // Score every point (the grid searcher over the file's points), then verify on the RTL.
  const cd::SearchOutcome r = cd::search_points(ev, w.points, 0);
  std::vector<int> designs;
  for (size_t i = 0; i < r.points.size(); ++i) {
    json& p = rec["points"][i];
    put_figures(w.space, r.points[i], p);
    if (p["status"] == "pending") designs.push_back(static_cast<int>(i));
  }
  save(f, dir, db, rec);
  if (!designs.empty()) {
    const cd::RtlCheckRequest rq{o.jobs,   f.seed, o.worker_exe, {}, &std::cerr, dir / "rtl.jsonl",
                                 o.resume, "sweep"};
    const auto rtl = cd::check_on_rtl(ev, r.points, designs, dir, rq, farm ? &*farm : nullptr);
    for (const auto& [i, v] : rtl) put_rtl(ev, v, rec["points"][static_cast<size_t>(i)]);
  }
  if (o.synth && !rec["winner"].is_null()) {
    const size_t win = rec["winner"].get<size_t>();
    const SynthOutcome so =
        synthesize(cd::point_arch(w.space, r.points[win].index), "", (dir / "synth").string());
    rec["winner_synthesis"] = synth_record(so);
    if (so.failure != SynthFailureKind::None)
      std::cerr << "sweep: synthesis of the winner failed: " << so.message
                << (so.log.empty() ? "" : " (log: " + so.log + ")") << "\n";
  } else if (o.synth) {
    rec["winner_synthesis"] = {{"status", "failed"},
                               {"failure", "no winner: no finished point meets the constraints"},
                               {"log", ""}};
  }
  std::ostringstream ranks;
  if (farm) farm->close_and_report(ranks);
  rec["status"] = "complete";
  rec["mapper_solves"] = ev.solves();
  rec["solves_resumed"] = ev.journal_loaded();
  save(f, dir, db, rec);
  write_sweep_report(dir, rec);
  int rc = 0;
  for (const json& p : rec["points"])
    if (p["status"] != "done") rc = 4;
  if (o.json) {
    json shown = rec;
    shown.erase("file_text");
    out << shown.dump(2) << "\n";
    return rc;
  }
  out << ranks.str();
  for (const json& p : rec["points"]) print_point(out, p, rec["points"].size());
  print_sweep_summary(out, rec, dir);
  return rc;
}

}  // namespace mapwright::flows
