// `mapwright sweep`: every point of a sweep file becomes an architecture and a run of the
// sweep's network with the exact mapper, in this process (sweep_point.cpp: one run folder per
// point, one SQLite file for all), verified on the point's RTL model from the model cache; the
// sweep adds the area model, the Pareto fronts, the winner under the constraints, the
// sweep_points table, sweep.json (written after every point, so Ctrl-C keeps what finished and
// --resume continues) and sweep.html (sweep_report.cpp). Under mpirun, rank 0 hands the points
// to the other ranks (dist::farm).
#include "mapwright/flows/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/signals.hpp"
#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/test_hooks.hpp"
#include "mapwright/flows/dist.hpp"
#include "record/results_db.hpp"
#include "sweep/sweep_point.hpp"
#include "sweep/sweep_report.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;

namespace mapwright::flows {

namespace {

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
  std::optional<SweepContext> c;  // read on the first point (rank 0 has checked the file)
  return dist::serve_farm(
      [&](const json& m) -> json {
        // Test hook (core/test_hooks.hpp): a rank that dies in the middle of a sweep.
        if (core::kill_point_reached("sweep_point")) core::kill_self();
        const size_t i = m["index"].get<size_t>();
        json p = m["point"];
        std::ostringstream text;
        int prc = 4;
        try {
          if (!c) c = load_sweep_context(load_sweep_file(o.file), nullptr);
          prc = run_point(*c, o, m["dir"].get<std::string>(), c->file.points.at(i), p, text);
        } catch (const std::exception& e) {
          p["status"] = "failed";
          p["failure"] = "rank " + std::to_string(dist::rank()) + ": " + e.what();
        }
        return {{"index", i}, {"point", p}, {"rc", prc}, {"log", text.str()}};
      },
      {});
}

/// A new sweep's record: the file, its settings and every point pending.
json new_sweep_record(const SweepContext& c, const SweepOptions& o, const std::string& file_text) {
  const SweepFile& s = c.file;
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
              {"network_name", c.inputs.target},
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
  return rec;
}

/// The record of the sweep in `dir`: a new one, or with --resume the stored one, after checking
/// that it is a sweep of the same file (a point that was running when the sweep stopped is
/// named: it runs again).
json open_sweep_record(const SweepContext& c, const SweepOptions& o, const fs::path& record_file,
                       const std::string& file_text) {
  std::error_code ec;
  if (!fs::exists(record_file, ec)) return new_sweep_record(c, o, file_text);
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
      !rec["points"].is_array() || rec["points"].size() != c.file.points.size())
    throw SpecError(record_file.string(), "command", "", "not a `mapwright sweep` folder");
  // A sweep stopped by a crash (a rank killed, a power cut) names what was running.
  if (rec.contains("in_flight") && rec["in_flight"].is_object())
    for (const auto& [r, name] : rec["in_flight"].items())
      std::cerr << "note: the sweep stopped while rank " << r << " ran " << name.get<std::string>()
                << "; that point runs again\n";
  if (rec.value("file_text", "") != file_text)
    throw SpecError(o.file, "(file)", o.file,
                    "differs from the sweep file of the sweep being resumed (" +
                        record_file.string() + "); resume with the same file");
  return rec;
}

/// A sweep on its folder: the record (sweep.json, the sweep_points table, written after every
/// point), the points run here or on the other ranks, and the end.
class SweepSession {
 public:
  SweepSession(const SweepContext& c, const SweepOptions& o, fs::path dir, json rec,
               std::ostream& out)
      : c_(c),
        o_(o),
        dir_(std::move(dir)),
        rec_(std::move(rec)),
        out_(out),
        db_((dir_ / "results.sqlite").string()),
        sweep_id_(rec_["sweep_id"].get<std::string>()),
        log_(dir_ / "runs.log", std::ios::app) {
    rec_["status"] = "running";
    save();
  }

  /// The points not done yet, in order (at most --stop-after-points of them).
  std::deque<size_t> todo() {
    std::deque<size_t> todo;
    for (size_t i = 0; i < c_.file.points.size(); ++i)
      if (rec_["points"][i]["status"] != "done") todo.push_back(i);
    if (o_.stop_after_points >= 0 && todo.size() > static_cast<size_t>(o_.stop_after_points)) {
      todo.resize(static_cast<size_t>(o_.stop_after_points));
      interrupted_ = true;
    }
    return todo;
  }

  /// Runs the points of `todo` one after the other in this process.
  void run_here(const std::deque<size_t>& todo) {
    for (const size_t i : todo) {
      json p = rec_["points"][i];
      rec_["in_flight"] = {{"0", c_.file.points[i].name}};
      save();
      std::ostringstream text;
      const int prc = run_point(c_, o_, dir_, c_.file.points[i], p, text);
      rec_["in_flight"] = json::object();
      absorb(i, p, prc, text.str());
      if (prc == 130) break;
    }
  }

  /// Rank 0 under mpirun: hands the points of `todo` to the other ranks, largest arrays first,
  /// records which rank runs which point (sweep.json "in_flight", and a line on the output) and
  /// takes the results in as they come; Ctrl-C stops handing out. A failure here stops every
  /// rank (MPI_Abort) after saying why: the ranks would otherwise wait for it forever.
  void coordinate(std::deque<size_t> todo) {
    // Largest arrays first: their model builds and simulations take longest (a 32x32 point
    // takes minutes where an 8x8 one takes seconds), so starting them first keeps the last
    // rank from finishing long after the others. Points are independent: figures do not change.
    const auto& pts = c_.file.points;
    std::stable_sort(todo.begin(), todo.end(), [&](size_t a, size_t b) {
      return pts[a].rows * pts[a].cols > pts[b].rows * pts[b].cols;
    });
    auto work = [&](int rank, size_t i) -> json {
      rec_["in_flight"][std::to_string(rank)] = pts[i].name;
      save();
      if (!o_.json) out_ << "rank " << rank << ": " << pts[i].name << "\n" << std::flush;
      return {{"index", i}, {"point", rec_["points"][i]}, {"dir", dir_.string()}};
    };
    auto on_result = [&](int rank, const json& m) {
      rec_["in_flight"].erase(std::to_string(rank));
      absorb(m["index"].get<size_t>(), m["point"], m["rc"].get<int>(), m["log"].get<std::string>());
    };
    try {
      const InterruptSignals signals(true);
      dist::farm(std::move(todo), work, on_result, [&] {
        if (InterruptSignals::count() > 0) interrupted_ = true;
        return interrupted_;
      });
    } catch (const std::exception& e) {
      std::cerr << "mapwright: error on rank 0, stopping every rank: " << e.what() << "\n"
                << "continue with `mapwright sweep --resume`\n";
      dist::abort(2);
    }
  }

  /// The last save, the report and the output; returns the exit code.
  int finish() {
    rec_["in_flight"] = json::object();
    if (interrupted_) rc_ = 130;
    rec_["status"] = rc_ == 130 ? "interrupted" : "complete";
    save();
    write_sweep_report(dir_, rec_);
    if (o_.json) {
      json shown = rec_;
      shown.erase("file_text");
      out_ << shown.dump(2) << "\n";
    } else if (rc_ == 130) {
      out_ << "interrupted: continue with `mapwright sweep --file " << o_.file << " --resume --out "
           << dir_.string() << "`\n";
    } else {
      print_sweep_summary(out_, rec_, dir_);
    }
    return rc_;
  }

 private:
  /// sweep.json and the sweep_points rows, with the fronts and the winner decided again.
  void save() {
    rec_["updated"] = now_iso();
    decide(c_.file, rec_);
    write_atomic(dir_ / "sweep.json", rec_.dump(2) + "\n");
    for (size_t i = 0; i < rec_["points"].size(); ++i)
      db_.put_sweep_point(sweep_id_, static_cast<int>(i), rec_["points"][i]);
  }

  /// A finished point: its record, its run's rows into the sweep's store, its line.
  void absorb(size_t i, const json& point, int prc, const std::string& text) {
    rec_["points"][i] = point;
    log_ << text << std::flush;
    std::error_code ec;
    const fs::path run_db = dir_ / "points" / c_.file.points[i].name / "results.sqlite";
    if (fs::exists(run_db, ec)) db_.merge_from(run_db.string());
    save();
    if (prc == 130) {
      interrupted_ = true;
      return;
    }
    if (!o_.json) print_point(out_, rec_["points"][i], c_.file.points.size());
    if (prc != 0) rc_ = 4;
  }

  const SweepContext& c_;       ///< The sweep file, base architecture, network.
  const SweepOptions& o_;       ///< The options.
  const fs::path dir_;          ///< The sweep folder.
  json rec_;                    ///< sweep.json.
  std::ostream& out_;           ///< Lines of finished points, the summary.
  ResultsDb db_;                ///< The sweep's store (every point's run merged in).
  const std::string sweep_id_;  ///< rec_["sweep_id"].
  std::ofstream log_;           ///< runs.log: every point's run summary.
  int rc_ = 0;                  ///< Exit code so far.
  bool interrupted_ = false;    ///< Ctrl-C, or --stop-after-points.
};

}  // namespace

int cmd_sweep(const SweepOptions& o, std::ostream& out) {
  if (dist::size() > 1 && dist::rank() != 0) return sweep_worker(o);
  if (o.file.empty()) throw SpecError("--file", "file", "", "a sweep needs a sweep file");
  if (o.jobs < 0)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0 (0 = every core)");
  // The network is read once here, so a bad one is refused before any point runs.
  const SweepContext c = load_sweep_context(load_sweep_file(o.file), &std::cerr);
  const std::string file_text = read_text(o.file);
  const fs::path dir = o.out_dir.empty() ? fs::path("runs") / ("sweep-" + safe_name(c.file.name))
                                         : fs::path(o.out_dir);
  make_output_dir(dir);
  const FolderLock lock(dir, "--out");
  SweepSession sweep(c, o, dir, open_sweep_record(c, o, dir / "sweep.json", file_text), out);
  if (dist::size() > 1)
    sweep.coordinate(sweep.todo());
  else
    sweep.run_here(sweep.todo());
  return sweep.finish();
}

}  // namespace mapwright::flows
