// `mapwright sweep`: every point of a sweep file becomes an architecture YAML and a run of the
// sweep's network with the exact mapper (the run pipeline of `mapwright run`, one run folder
// per point, one SQLite file for all), verified on the point's RTL model from the model cache;
// the sweep adds the area model, the Pareto fronts, the winner under the constraints, the
// sweep_points table, sweep.json (written after every point, so Ctrl-C keeps what finished and
// --resume continues) and sweep.html (sweep_report.cpp).
#include "mapwright/flows/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/test_hooks.hpp"
#include "mapwright/core/yaml_util.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "common/signals.hpp"
#include "mapwright/flows/dist.hpp"
#include "record/results_db.hpp"
#include "sweep/sweep_report.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The base architecture's YAML file (a named one under configs/arch, or the path given).
fs::path base_arch_file(const std::string& base) {
  std::error_code ec;
  if (fs::is_regular_file(base, ec)) return base;
  return fs::path(configs_dir()) / "arch" / (base + ".yaml");
}

/// The architecture YAML of point `p`: the base file with the point's parameters and name.
std::string point_arch_yaml(const SweepFile& s, const SweepPoint& p) {
  YAML::Node n = load_yaml_file(base_arch_file(s.base_arch).string());
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

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

/// The area model's constants as the record keeps them.
json area_constants_json(const model::AreaConstants& c) {
  return {{"node", c.node},
          {"mult8_um2", c.mult8_um2},
          {"add32_um2", c.add32_um2},
          {"flop_um2", c.flop_um2},
          {"sram_um2_per_kib", c.sram_um2_per_kib},
          {"sram_buffer_fixed_um2", c.sram_buffer_fixed_um2},
          {"control_fixed_um2", c.control_fixed_um2},
          {"source", c.source}};
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

/// The point's row before it runs.
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
    // The objective on the network totals: cycles^latency * energy^energy.
    const double cost = std::pow(p["cycles"].get<double>(), obj.latency) *
                        std::pow(p["energy_pj"].get<double>(), obj.energy);
    if (cost < best) {
      best = cost;
      winner = i;
    }
  }
  rec["winner"] = winner;
  if (!winner.is_null()) points[winner.get<size_t>()]["winner"] = true;
}

/// Runs one point: model (when verified), run, figures into `p`. Returns cmd_run's code (or 4
/// for a failure of the point outside the run).
int run_point(const SweepFile& s, const SweepOptions& o, const fs::path& dir, const SweepPoint& sp,
              json& p, std::ostream& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path arch_file = dir / "archs" / (sp.name + ".yaml");
  write_atomic(arch_file, point_arch_yaml(s, sp));
  const Arch arch = load_arch_file(arch_file.string());
  const model::AreaBreakdown area = model::estimate_area(arch, s.area);
  p["area_mm2"] = area.total_mm2;
  p["area"] = {{"pe_array_mm2", area.pe_array_mm2},
               {"input_buf_mm2", area.input_buf_mm2},
               {"weight_buf_mm2", area.weight_buf_mm2},
               {"accum_buf_mm2", area.accum_buf_mm2},
               {"control_mm2", area.control_mm2}};
  p["arch_file"] = fs::relative(arch_file, dir).string();

  bool rtl = p["rtl"].get<bool>();
  std::string failure;
  if (rtl) {
    rtlpool::ModelCacheOptions mc;
    mc.progress = &std::cerr;
    const std::string exe = o.worker_exe.empty() ? rtlpool::worker_executable() : o.worker_exe;
    const rtlpool::ModelLookup m =
        rtlpool::find_or_build_model(rtlpool::model_params(arch), exe, mc);
    p["rtl_model"] = m.ok() ? m.name : "";
    p["model_built"] = m.built;
    p["model_build_seconds"] = m.build_seconds;
    if (!m.ok()) {
      failure = "rtl: " + m.failure;
      rtl = false;  // the point keeps its surrogate figures
    }
  }

  RunOptions r;
  r.settings.network = s.network;
  r.settings.arch = arch_file.string();
  r.settings.searcher = "exact";
  r.settings.exact = s.exact;
  r.settings.seed = s.seed;
  r.settings.objective = s.objective;
  r.settings.top_k = s.top_k;
  r.jobs = o.jobs;
  r.out_dir = (dir / "points" / sp.name).string();
  r.db = "";        // the run's own store; the coordinator merges it into the sweep's
  r.resume = true;  // starts the run when its folder is new
  r.given = {"network"};
  r.settings.no_rtl = !rtl;
  r.progress = false;
  r.worker_exe = o.worker_exe;
  std::ostringstream summary;
  int rc = 0;
  try {
    rc = cmd_run(r, summary);
  } catch (const SpecError& e) {
    failure = (failure.empty() ? "" : failure + "; ") + e.what();
    rc = 4;
  }
  log << "== " << sp.name << "\n" << summary.str();
  p["run_dir"] = fs::relative(r.out_dir, dir).string();
  std::error_code ec;
  const fs::path results = fs::path(r.out_dir) / "results.json";
  if (fs::exists(results, ec) && rc != 130) {
    const json j = json::parse(read_text(results));
    check_run_record(j, results.string());
    const RunRecord rec = run_record_from_json(j, results.string());
    const RunSummary t = summarize(rec);
    p["run_id"] = rec.run_id;
    p["layers_done"] = t.layers_done;
    p["layers_total"] = t.layers_total;
    if (t.layers_done == t.layers_total && t.layers_total > 0) {
      p["cycles"] = t.cycles;
      p["latency_ms"] = t.cycles / (arch.clock_mhz * 1e3);
      p["energy_pj"] = t.energy_pj;
      p["energy_uj"] = t.energy_pj * 1e-6;
      p["edp"] = t.edp;
      p["source"] = t.source;
      p["verifications"] = t.done;
      p["verification_failures"] = t.failed;
    }
  }
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

/// One line per finished point.
void print_point(std::ostream& out, const json& p, size_t n) {
  out << "[" << p["index"].get<size_t>() + 1 << "/" << n << "] " << p["name"].get<std::string>()
      << ": ";
  if (p.contains("cycles")) {
    out << "area " << std::fixed << std::setprecision(3) << p["area_mm2"].get<double>()
        << " mm2, latency " << std::defaultfloat << std::setprecision(4)
        << p["latency_ms"].get<double>() << " ms, energy " << p["energy_uj"].get<double>()
        << " uJ, EDP " << std::scientific << std::setprecision(4) << p["edp"].get<double>()
        << std::defaultfloat << " (" << p["source"].get<std::string>();
    if (p.value("verifications", 0) > 0)
      out << ", " << p["verifications"].get<int>() - p["verification_failures"].get<int>() << "/"
          << p["verifications"].get<int>() << " RTL checks passed";
    out << ")";
  }
  if (p["status"] != "done")
    out << (p.contains("cycles") ? "; " : "") << "FAILED: " << p["failure"].get<std::string>();
  out << "\n" << std::flush;
}

/// A rank other than 0 under mpirun: asks rank 0 for a point, runs it, sends its record back,
/// until told to stop. It writes only the point's own folders (archs/<point>.yaml and
/// points/<point>/); rank 0 writes everything else.
int sweep_worker(const SweepOptions& o) {
  std::optional<SweepFile> s;  // read on the first point (rank 0 has checked it)
  return dist::serve_farm(
      [&](const json& m) -> json {
        // Test hook (core/test_hooks.hpp): a rank that dies in the middle of a sweep.
        if (core::kill_point_reached("sweep_point")) core::kill_self();
        const size_t i = m["index"].get<size_t>();
        json p = m["point"];
        std::ostringstream text;
        int prc = 4;
        try {
          if (!s) s = load_sweep_file(o.file);
          prc = run_point(*s, o, m["dir"].get<std::string>(), s->points.at(i), p, text);
        } catch (const std::exception& e) {
          p["status"] = "failed";
          p["failure"] = "rank " + std::to_string(dist::rank()) + ": " + e.what();
        }
        return {{"index", i}, {"point", p}, {"rc", prc}, {"log", text.str()}};
      },
      {});
}

/// Rank 0 under mpirun: hands the points in `todo` one at a time to whichever rank asks
/// (dynamic load balancing), records which rank runs which point (sweep.json "in_flight", and a
/// line on `out`), takes the results in as they come, and stops the ranks when the points are
/// done or on Ctrl-C. A failure here stops every rank (MPI_Abort) after saying why: the ranks
/// would otherwise wait for it forever.
template <typename Save, typename Absorb>
void coordinate(const SweepFile& s, const fs::path& dir, json& rec, std::deque<size_t> todo,
                Save& save, Absorb& absorb, bool& interrupted, std::ostream* out) {
  try {
    const InterruptSignals signals(true);
    auto work = [&](int rank, size_t i) -> json {
      rec["in_flight"][std::to_string(rank)] = s.points[i].name;
      save();
      if (out) *out << "rank " << rank << ": " << s.points[i].name << "\n" << std::flush;
      return {{"index", i}, {"point", rec["points"][i]}, {"dir", dir.string()}};
    };
    auto on_result = [&](int rank, const json& m) {
      rec["in_flight"].erase(std::to_string(rank));
      absorb(m["index"].get<size_t>(), m["point"], m["rc"].get<int>(), m["log"].get<std::string>());
    };
    dist::farm(std::move(todo), work, on_result, [&] {
      if (InterruptSignals::count() > 0) interrupted = true;
      return interrupted;
    });
  } catch (const std::exception& e) {
    std::cerr << "mapwright: error on rank 0, stopping every rank: " << e.what() << "\n"
              << "continue with `mapwright sweep --resume`\n";
    dist::abort(2);
  }
}

}  // namespace

int cmd_sweep(const SweepOptions& o, std::ostream& out) {
  if (dist::size() > 1 && dist::rank() != 0) return sweep_worker(o);
  if (o.file.empty()) throw SpecError("--file", "file", "", "a sweep needs a sweep file");
  if (o.jobs < 0)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0 (0 = every core)");
  const SweepFile s = load_sweep_file(o.file);
  const std::string file_text = read_text(o.file);
  // The network is read once here, so a bad one is refused before any point runs.
  const Network net = parse_network_arg(s.network, o.file + ": network");
  const fs::path dir =
      o.out_dir.empty() ? fs::path("runs") / ("sweep-" + safe_name(s.name)) : fs::path(o.out_dir);
  make_output_dir(dir);
  const FolderLock lock(dir, "--out");
  const fs::path record_file = dir / "sweep.json";
  json rec;
  std::error_code ec;
  if (fs::exists(record_file, ec)) {
    if (!o.resume)
      throw SpecError("--out", "out", dir.string(),
                      "already holds a sweep (sweep.json); add --resume to continue it, or "
                      "choose another --out");
    try {
      rec = json::parse(read_text(record_file));
    } catch (const json::exception& e) {
      throw SpecError(record_file.string(), "(json)", "", e.what());
    }
    if (!rec.is_object() || rec.value("command", "") != "sweep" || !rec.contains("points") ||
        !rec["points"].is_array() || rec["points"].size() != s.points.size())
      throw SpecError(record_file.string(), "command", "", "not a `mapwright sweep` folder");
    // A sweep stopped by a crash (a rank killed, a power cut) names what was running.
    if (rec.contains("in_flight") && rec["in_flight"].is_object())
      for (const auto& [r, name] : rec["in_flight"].items())
        std::cerr << "note: the sweep stopped while rank " << r << " ran "
                  << name.get<std::string>() << "; that point runs again\n";
    if (rec.value("file_text", "") != file_text)
      throw SpecError(o.file, "(file)", o.file,
                      "differs from the sweep file of the sweep being resumed (" +
                          record_file.string() + "); resume with the same file");
  } else {
    const std::vector<bool> rtl = verified_points(s);
    rec = {{"command", "sweep"},
           {"mapwright", "0.1.0"},
           {"sweep_id", safe_name(s.name) + "-" + now_iso()},
           {"created", now_iso()},
           {"name", s.name},
           {"description", s.description},
           {"file", o.file},
           {"file_text", file_text},
           {"network", s.network},
           {"network_name", net.name},
           {"base_arch", s.base_arch},
           {"objective", s.objective},
           {"seed", s.seed},
           {"verify", s.verify},
           {"verify_sample", s.verify_sample},
           {"top_k", s.top_k},
           {"mapper", {{"time_limit_s", s.exact.time_limit_s}, {"gap", s.exact.gap}}},
           {"constraints",
            {{"max_area_mm2", s.max_area_mm2},
             {"max_latency_ms", s.max_latency_ms},
             {"max_energy_uj", s.max_energy_uj}}},
           {"area_constants", area_constants_json(s.area)},
           {"points", json::array()}};
    for (size_t i = 0; i < s.points.size(); ++i)
      rec["points"].push_back(point_json(s.points[i], i, rtl[i]));
  }
  rec["status"] = "running";
  ResultsDb db((dir / "results.sqlite").string());
  const std::string sweep_id = rec["sweep_id"].get<std::string>();
  auto save = [&]() {
    rec["updated"] = now_iso();
    decide(s, rec);
    write_atomic(record_file, rec.dump(2) + "\n");
    for (size_t i = 0; i < rec["points"].size(); ++i)
      db.put_sweep_point(sweep_id, static_cast<int>(i), rec["points"][i]);
  };
  save();

  std::ofstream log(dir / "runs.log", std::ios::app);
  const size_t n = s.points.size();
  int rc = 0;
  bool interrupted = false;
  // A finished point: its record, its run's rows into the sweep's store, its line.
  auto absorb = [&](size_t i, const json& point, int prc, const std::string& text) {
    rec["points"][i] = point;
    log << text << std::flush;
    const fs::path run_db = dir / "points" / s.points[i].name / "results.sqlite";
    if (fs::exists(run_db, ec)) db.merge_from(run_db.string());
    save();
    if (prc == 130) {
      interrupted = true;
      return;
    }
    if (!o.json) print_point(out, rec["points"][i], n);
    if (prc != 0) rc = 4;
  };
  std::deque<size_t> todo;
  for (size_t i = 0; i < n; ++i)
    if (rec["points"][i]["status"] != "done") todo.push_back(i);
  if (o.stop_after_points >= 0 && todo.size() > static_cast<size_t>(o.stop_after_points)) {
    todo.resize(static_cast<size_t>(o.stop_after_points));
    interrupted = true;
  }
  if (dist::size() > 1) {
    // Largest arrays first: their model builds and simulations take longest (a 32x32 point
    // takes minutes where an 8x8 one takes seconds), so starting them first keeps the last
    // rank from finishing long after the others. Points are independent: figures do not change.
    std::stable_sort(todo.begin(), todo.end(), [&](size_t a, size_t b) {
      return s.points[a].rows * s.points[a].cols > s.points[b].rows * s.points[b].cols;
    });
    coordinate(s, dir, rec, todo, save, absorb, interrupted, o.json ? nullptr : &out);
  } else {
    for (const size_t i : todo) {
      json p = rec["points"][i];
      rec["in_flight"] = {{"0", s.points[i].name}};
      save();
      std::ostringstream text;
      const int prc = run_point(s, o, dir, s.points[i], p, text);
      rec["in_flight"] = json::object();
      absorb(i, p, prc, text.str());
      if (prc == 130) break;
    }
  }
  rec["in_flight"] = json::object();
  if (interrupted) rc = 130;
  rec["status"] = rc == 130 ? "interrupted" : "complete";
  save();
  write_sweep_report(dir, rec);
  if (o.json) {
    json shown = rec;
    shown.erase("file_text");
    out << shown.dump(2) << "\n";
  } else if (rc == 130) {
    out << "interrupted: continue with `mapwright sweep --file " << o.file << " --resume --out "
        << dir.string() << "`\n";
  } else {
    print_sweep_summary(out, rec, dir);
  }
  return rc;
}

}  // namespace mapwright::flows
