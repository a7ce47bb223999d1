// The co-design study (codesign_study.hpp): the sampling searchers over hardware spaces against
// each space's proven optimum. Every run of a case shares the case's PointEvaluator (its memo of
// layer solves: two runs that visit a point pay for it once), and the cases of one space file
// share its solve journal, so a study costs about one enumeration of the points its runs visit,
// not one per run. The statistics are the mapping study's (study/study_stats.hpp).
#include "codesign/codesign_study.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"
#include "common/text.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/search/searcher.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "study/study_output.hpp"
#include "study/study_stats.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

constexpr double kMaxSeed = 4.6e18;  // < 2^62, exact in int64 (as the mapping study's)

/// The searchers a co-design study can run: random and the search library's samplers.
void require_sampler(const std::string& k, const std::string& where, const std::string& key) {
  const auto kinds = search::searcher_kinds();
  if (k != "random" &&
      (k == "exact" || k == "grid" || std::find(kinds.begin(), kinds.end(), k) == kinds.end())) {
    std::string known = "random";
    for (const auto& n : kinds)
      if (n != "exact" && n != "random") known += ", " + n;
    throw SpecError(where, key, k,
                    "must be a sampling searcher (" + known +
                        "); the exact search is the study's reference and runs once per case");
  }
}

/// One finished run: per evaluated point (in order) its cost, or NaN when it is not a feasible
/// design.
struct StudyRun {
  size_t case_index = 0;
  std::string searcher;
  uint64_t seed = 0;
  std::vector<double> costs;  ///< Per point; NaN: infeasible.
  double seconds = 0;         ///< Wall time of the run.
  bool exhausted = false;     ///< The searcher stopped proposing new points.
};

json run_json(const StudyRun& r) {
  json costs = json::array();
  for (double c : r.costs) costs.push_back(std::isnan(c) ? json(nullptr) : json(c));
  return {{"case", r.case_index}, {"searcher", r.searcher},   {"seed", r.seed},
          {"seconds", r.seconds}, {"exhausted", r.exhausted}, {"costs", costs}};
}

StudyRun run_of(const json& j) {
  StudyRun r;
  r.case_index = j.at("case").get<size_t>();
  r.searcher = j.at("searcher").get<std::string>();
  r.seed = j.at("seed").get<uint64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.exhausted = j.at("exhausted").get<bool>();
  for (const json& c : j.at("costs")) r.costs.push_back(c.is_null() ? NAN : c.get<double>());
  return r;
}

/// The best feasible cost among the first `b` points (+inf: none).
double best_within(const StudyRun& r, size_t b) {
  double best = INFINITY;
  for (size_t i = 0; i < std::min(b, r.costs.size()); ++i)
    if (!std::isnan(r.costs[i])) best = std::min(best, r.costs[i]);
  return best;
}

/// Points until the best is within `pct` % of `optimum` (an event), else censored at the
/// run's points.
TimeToEvent points_to(const StudyRun& r, double optimum, double pct) {
  const double target = optimum * (1 + pct / 100);
  double best = INFINITY;
  for (size_t i = 0; i < r.costs.size(); ++i) {
    if (!std::isnan(r.costs[i])) best = std::min(best, r.costs[i]);
    if (best <= target) return {static_cast<double>(i + 1), true};
  }
  return {static_cast<double>(r.costs.size()), false};
}

/// A case's reference: the exact search's proved optimum.
struct CaseOptimum {
  double cost = INFINITY;  ///< The optimum (+inf: no feasible design).
  bool proved = false;     ///< The branch-and-bound finished.
  int points = 0;          ///< Points it evaluated.
  double seconds = 0;      ///< Its wall time.
  std::string design;      ///< The chosen design's architecture name.
};

json ci_json(const BootstrapCI& c) {
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"estimate", num(c.estimate)}, {"lo", num(c.lo)}, {"hi", num(c.hi)}};
}

/// A number of points: an integer, or "> budget" when not reached (+inf).
std::string points_text(double x, int64_t budget) {
  if (std::isnan(x)) return "-";
  if (!std::isfinite(x)) return "> " + std::to_string(budget);
  return fmt_g(x, 6);
}

/// A KM median of points with its interval: "128 [96, 210]", "> 500 [310, > 500]".
std::string points_ci(const BootstrapCI& c, int64_t budget) {
  return points_text(c.estimate, budget) + " [" + points_text(c.lo, budget) + ", " +
         points_text(c.hi, budget) + "]";
}

/// A gap (best / optimum - 1) in percent with its interval.
std::string gap_ci(const BootstrapCI& c) {
  auto f = [](double r) { return std::isfinite(r) ? fmt_fixed(100 * (r - 1), 2) : "inf"; };
  return f(c.estimate) + " [" + f(c.lo) + ", " + f(c.hi) + "] %";
}

/// The heading of target `t`.
std::string target_name(double t) {
  return t == 0 ? std::string("the optimum") : "within " + fmt_g(t, 4) + " %";
}

/// The study in its folder.
class CodesignStudy {
 public:
  CodesignStudy(const StudyOptions& o, CodesignStudySuite s, std::ostream& out)
      : o_(o), s_(std::move(s)), out_(out) {
    dir_ = o_.out_dir.empty() ? fs::path("runs") / ("study-" + safe_name(s_.name))
                              : fs::path(o_.out_dir);
    boot_ = {s_.bootstrap_resamples, s_.bootstrap_confidence, s_.bootstrap_seed};
    options_ = load_options_or_default(o_.options_file.empty() ? s_.options_file : o_.options_file);
    for (const StudyCase& c : s_.cases) {
      CodesignSpace sp = load_codesign_space(c.space);
      if (c.max_area_mm2 >= 0) sp.max_area_mm2 = c.max_area_mm2;
      spaces_.push_back(std::move(sp));
    }
  }

  int run() {
    make_output_dir(dir_);
    const FolderLock lock(dir_, "--out");
    open_log();
    optima_.resize(s_.cases.size());
    std::map<std::string, int> journal_of;  // space file -> journal number
    for (size_t c = 0; c < s_.cases.size() && !stopped_; ++c) {
      const int k =
          journal_of.emplace(s_.cases[c].space, static_cast<int>(journal_of.size())).first->second;
      run_case(c, dir_ / ("solves-" + std::to_string(k) + ".jsonl"));
    }
    write_outputs();
    return stopped_ ? 130 : 0;
  }

 private:
  /// runs.jsonl: the suite's text on its first line, then one finished run per line. With
  /// --resume the runs recorded are read back (a changed suite is refused, a torn last line
  /// dropped); without it a folder that holds a study is refused.
  void open_log() {
    const fs::path log = dir_ / "runs.jsonl";
    const std::string text = read_text(s_.path);
    std::error_code ec;
    if (fs::exists(log, ec)) {
      if (!o_.resume)
        throw SpecError("--out", "out", dir_.string(),
                        "already holds a co-design study (runs.jsonl); add --resume to continue "
                        "it, or choose another --out");
      bool header = true;
      read_journal(log, [&](const std::string& line, const std::string& at) {
        try {
          const json j = json::parse(line);
          if (!std::exchange(header, false))
            runs_.push_back(run_of(j));
          else if (j.value("suite_text", "") != text)
            throw SpecError(s_.path, "(file)", s_.path,
                            "differs from the suite of the study being resumed (" + log.string() +
                                "); resume with the same suite");
        } catch (const json::exception& e) {
          throw SpecError(at, "(json)", line, e.what());
        }
      });
      for (const StudyRun& r : runs_) done_.insert({r.case_index, r.searcher, r.seed});
      log_.open(log, std::ios::app);
    } else {
      log_.open(log, std::ios::trunc);
      log_ << json({{"study", "mapwright codesign study"}, {"suite_text", text}}).dump() << "\n"
           << std::flush;
    }
    if (!log_) throw SpecError(log.string(), "(file)", log.string(), "cannot write the run log");
  }

  /// The exact optimum of case `c`, then its runs not recorded yet, on a thread pool.
  void run_case(size_t c, const fs::path& journal) {
    PointEvaluator ev(spaces_[c]);
    ev.open_journal(journal, true);
    SearchOutcome ex = search_exact(ev, 0);
    CaseOptimum& opt = optima_[c];
    opt.proved = ex.proved;
    opt.points = static_cast<int>(ex.points.size());
    opt.seconds = ex.seconds;
    if (ex.best >= 0) {
      opt.cost = ex.points[ex.best].cost;
      opt.design = point_arch(spaces_[c], ex.points[ex.best].index).name;
    }
    out_ << s_.cases[c].name << ": optimum " << fmt_g(opt.cost, 10) << " (" << opt.design
         << (opt.proved ? ", proved" : ", NOT proved") << ", " << opt.points << " points, "
         << std::fixed << std::setprecision(1) << opt.seconds << std::defaultfloat << " s)\n"
         << std::flush;
    std::vector<std::pair<std::string, uint64_t>> todo;
    for (const std::string& k : s_.searchers)
      for (uint64_t seed : s_.seeds)
        if (!done_.count({c, k, seed})) todo.push_back({k, seed});
    const int threads = o_.jobs > 0 ? o_.jobs : default_jobs();
    std::mutex mu;
    std::string error;  // the first run that failed or could not be recorded: stops the study
    const InterruptSignals signals(true);
    {
      boost::asio::thread_pool pool(static_cast<size_t>(threads));
      for (const auto& [k, seed] : todo)
        boost::asio::post(pool, [&, k = k, seed = seed] {
          if (InterruptSignals::count() > 0) return;
          {
            std::lock_guard<std::mutex> l(mu);
            if (!error.empty()) return;
          }
          try {
            StudyRun r = one_run(ev, c, k, seed);
            std::lock_guard<std::mutex> l(mu);
            log_ << run_json(r).dump() << "\n" << std::flush;
            if (!log_) throw std::runtime_error("cannot append to runs.jsonl");
            runs_.push_back(std::move(r));
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> l(mu);
            if (error.empty()) error = k + " seed " + std::to_string(seed) + ": " + e.what();
          }
        });
      pool.join();
    }
    if (!error.empty())
      throw SpecError(dir_.string(), "(runs)", "",
                      error +
                          "; the runs recorded so far are kept: continue with "
                          "`mapwright study --resume`");
    stopped_ = InterruptSignals::count() > 0;
    out_ << "  " << todo.size() << " runs, " << ev.solves() << " mapper solves, " << ev.memo_hits()
         << " memo hits, " << ev.journal_loaded() << " solves from the journal\n"
         << std::flush;
  }

  /// One run of searcher `k` with `seed` on case `c`.
  StudyRun one_run(PointEvaluator& ev, size_t c, const std::string& k, uint64_t seed) {
    const SearchOutcome o = k == "random" ? search_random(ev, s_.budget, seed, 0)
                                          : search_sampled(ev, {k, options_, s_.budget, seed, 0});
    StudyRun r;
    r.case_index = c;
    r.searcher = k;
    r.seed = seed;
    r.seconds = o.seconds;
    r.exhausted = o.searcher.is_object() && o.searcher.value("exhausted", false);
    for (const PointResult& p : o.points) r.costs.push_back(p.feasible() ? p.cost : NAN);
    return r;
  }

  /// The finished runs of searcher `k` on case `c`, by seed.
  std::vector<const StudyRun*> runs_of(const std::string& k, size_t c) const {
    std::vector<const StudyRun*> v;
    for (const StudyRun& r : runs_)
      if (r.searcher == k && r.case_index == c) v.push_back(&r);
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->seed < b->seed; });
    return v;
  }

  /// Searcher `k` on case `c`: runs that reached each target and the KM medians, the median
  /// best / optimum at the iso budgets; its runs' rows go to `runs_csv`, its targets' to `csv`,
  /// and runs below the case's optimum are counted in `beat`.
  json cell_json(size_t c, const std::string& k, std::ostream& csv, std::ostream& runs_csv,
                 int& beat) const {
    const CaseOptimum& opt = optima_[c];
    const std::string name = csv_field(s_.cases[c].name);
    const auto runs = runs_of(k, c);
    json cell = {{"seeds", runs.size()}, {"targets", json::array()}, {"iso", json::array()}};
    for (const StudyRun* r : runs) {
      if (best_within(*r, r->costs.size()) < opt.cost * (1 - 1e-12)) ++beat;
      runs_csv << name << "," << k << "," << r->seed << "," << r->costs.size() << "," << r->seconds
               << "," << r->exhausted;
      for (int64_t b : s_.iso_budgets)
        runs_csv << "," << csv_num(best_within(*r, static_cast<size_t>(b)) / opt.cost);
      runs_csv << "\n";
    }
    for (double t : s_.targets_pct) {
      std::vector<TimeToEvent> tte;
      int reached = 0;
      for (const StudyRun* r : runs) {
        tte.push_back(points_to(*r, opt.cost, t));
        reached += tte.back().observed;
      }
      const BootstrapCI ci =
          km_median_ci(tte, boot_, "cd|" + std::to_string(c) + "|" + k + "|" + fmt_g(t, 6));
      cell["targets"].push_back(
          {{"target_pct", t}, {"reached", reached}, {"km_median_points", ci_json(ci)}});
      csv << name << "," << k << "," << runs.size() << "," << t << "," << reached << ","
          << csv_num(ci.estimate) << "," << csv_num(ci.lo) << "," << csv_num(ci.hi) << "\n";
    }
    for (int64_t b : s_.iso_budgets) {
      std::vector<double> ratio;
      for (const StudyRun* r : runs)
        ratio.push_back(best_within(*r, static_cast<size_t>(b)) / opt.cost);
      cell["iso"].push_back(
          {{"points", b}, {"median_best_over_optimum", geomean_of_medians({ratio})}});
    }
    return cell;
  }

  /// Searcher `k` over the cases: the median of the per-case KM medians per target, the
  /// geometric mean of the median best / optimum per iso budget; seeds resampled within each
  /// case.
  json searcher_json(const std::string& k) const {
    json js = {{"targets", json::array()}, {"iso", json::array()}};
    for (double t : s_.targets_pct) {
      std::vector<std::vector<TimeToEvent>> per_case;
      for (size_t c = 0; c < s_.cases.size(); ++c) {
        per_case.emplace_back();
        for (const StudyRun* r : runs_of(k, c))
          per_case.back().push_back(points_to(*r, optima_[c].cost, t));
      }
      js["targets"].push_back(
          {{"target_pct", t},
           {"median_case_km_points",
            ci_json(median_layer_km_ci(per_case, boot_, "cdall|" + k + "|" + fmt_g(t, 6)))}});
    }
    for (int64_t b : s_.iso_budgets) {
      std::vector<std::vector<double>> per_case;
      for (size_t c = 0; c < s_.cases.size(); ++c) {
        per_case.emplace_back();
        for (const StudyRun* r : runs_of(k, c))
          per_case.back().push_back(best_within(*r, static_cast<size_t>(b)) / optima_[c].cost);
      }
      const BootstrapCI g =
          geomean_of_medians_ci(per_case, boot_, "cdgap|" + k + "|" + std::to_string(b));
      js["iso"].push_back({{"points", b}, {"geomean_best_over_optimum", ci_json(g)}});
    }
    return js;
  }

  /// codesign-study.json, summary.csv, runs.csv, study.md and the tables on the output.
  void write_outputs() {
    json cases = json::array(), searchers = json::object();
    std::ostringstream csv, runs_csv;
    csv << "case,searcher,seeds,target_pct,reached,km_median_points,lo,hi\n";
    runs_csv << "case,searcher,seed,points,seconds,exhausted";
    for (int64_t b : s_.iso_budgets) runs_csv << ",best_over_optimum_at_" << b;
    runs_csv << "\n";
    int beat = 0;
    for (size_t c = 0; c < s_.cases.size(); ++c) {
      const CaseOptimum& opt = optima_[c];
      json jc = {{"name", s_.cases[c].name},
                 {"space", s_.cases[c].space},
                 {"max_area_mm2", spaces_[c].max_area_mm2},
                 {"points", spaces_[c].size()},
                 {"optimum", std::isfinite(opt.cost) ? json(opt.cost) : json(nullptr)},
                 {"proved", opt.proved},
                 {"design", opt.design},
                 {"exact_points", opt.points},
                 {"exact_seconds", opt.seconds},
                 {"searchers", json::object()}};
      for (const std::string& k : s_.searchers)
        jc["searchers"][k] = cell_json(c, k, csv, runs_csv, beat);
      cases.push_back(jc);
    }
    for (const std::string& k : s_.searchers) searchers[k] = searcher_json(k);
    const json study = {
        {"study", "mapwright codesign study"},
        {"suite", s_.path},
        {"name", s_.name},
        {"budget", s_.budget},
        {"seeds", s_.seeds},
        {"searchers_run", s_.searchers},
        {"iso_budgets", s_.iso_budgets},
        {"targets_pct", s_.targets_pct},
        {"search_options", search::to_json(options_)},
        {"bootstrap",
         {{"resamples", boot_.resamples}, {"confidence", boot_.confidence}, {"seed", boot_.seed}}},
        {"interrupted", stopped_},
        {"runs", runs_.size()},
        {"runs_below_optimum", beat},
        {"cases", cases},
        {"searchers", searchers}};
    write_atomic(dir_ / "codesign-study.json", study.dump(2) + "\n");
    write_atomic(dir_ / "summary.csv", csv.str());
    write_atomic(dir_ / "runs.csv", runs_csv.str());
    print_table(study);
  }

  /// The study's tables (markdown, also in study.md): per searcher over the cases, the median
  /// case's KM median points to each target and the gaps at the iso budgets; then per case and
  /// searcher the runs that reached each target and the KM medians.
  void print_table(const json& study) {
    std::ostringstream t;
    t << s_.name << ": " << s_.cases.size() << " cases, " << s_.seeds.size() << " seeds, "
      << s_.budget << " hardware points per run, " << study["runs"].get<size_t>()
      << " runs; runs that beat a proved optimum: " << study["runs_below_optimum"].get<int>()
      << "\n\nOver the cases: median over cases of the Kaplan-Meier median points (95 % "
         "bootstrap interval, seeds resampled within each case); the gap to the optimum after "
         "b points (geometric mean over cases of the median best / optimum, minus 1)\n\n";
    t << "| searcher |";
    for (double x : s_.targets_pct) t << " points to " << target_name(x) << " |";
    for (int64_t b : s_.iso_budgets) t << " gap after " << b << " |";
    t << "\n|---|";
    for (size_t i = 0; i < s_.targets_pct.size() + s_.iso_budgets.size(); ++i) t << "---|";
    t << "\n";
    for (const std::string& k : s_.searchers) {
      const json& js = study["searchers"][k];
      t << "| " << k << " |";
      for (const json& x : js["targets"])
        t << " " << points_ci(ci_of(x["median_case_km_points"]), s_.budget) << " |";
      for (const json& b : js["iso"])
        t << " " << gap_ci(ci_of(b["geomean_best_over_optimum"])) << " |";
      t << "\n";
    }
    t << "\nPer case: runs that reached each target of the seeds, and the Kaplan-Meier median "
         "points with its interval\n\n| case | optimum | searcher |";
    for (double x : s_.targets_pct) t << " " << target_name(x) << " |";
    t << "\n|---|---|---|";
    for (size_t i = 0; i < s_.targets_pct.size(); ++i) t << "---|";
    t << "\n";
    for (const json& c : study["cases"])
      for (const std::string& k : s_.searchers) {
        const json& cell = c["searchers"][k];
        t << "| " << c["name"].get<std::string>() << " | " << c["design"].get<std::string>()
          << (c["proved"].get<bool>() ? "" : " (not proved)") << " | " << k << " |";
        for (const json& x : cell["targets"])
          t << " " << x["reached"].get<int>() << "/" << cell["seeds"].get<size_t>() << ": "
            << points_ci(ci_of(x["km_median_points"]), s_.budget) << " |";
        t << "\n";
      }
    write_atomic(dir_ / "study.md", t.str());
    out_ << "\n" << t.str() << "\nwritten to " << dir_.string() << "\n";
  }

  static BootstrapCI ci_of(const json& j) {
    auto v = [](const json& x) { return x.is_null() ? INFINITY : x.get<double>(); };
    return {v(j["estimate"]), v(j["lo"]), v(j["hi"])};
  }

  const StudyOptions& o_;
  CodesignStudySuite s_;
  std::ostream& out_;
  fs::path dir_;
  BootstrapSettings boot_;
  search::SearchOptions options_;
  std::vector<CodesignSpace> spaces_;  ///< Per case: the space at the case's area budget.
  std::vector<CaseOptimum> optima_;    ///< Per case.
  std::vector<StudyRun> runs_;         ///< Finished runs (earlier sessions' first).
  std::set<std::tuple<size_t, std::string, uint64_t>> done_;  ///< Recorded earlier.
  std::ofstream log_;                                         ///< runs.jsonl.
  bool stopped_ = false;                                      ///< Ctrl-C.
};

}  // namespace

bool is_codesign_study(const std::string& path) {
  try {
    const YAML::Node root = load_yaml_file(path);
    return root.IsMap() && root["kind"] && root["kind"].IsScalar() &&
           root["kind"].Scalar() == "codesign";
  } catch (const std::exception&) {
    return false;
  }
}

CodesignStudySuite load_codesign_study(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "",
             {"kind", "name", "description", "options", "cases", "searchers", "seeds", "budget",
              "iso_budgets", "targets_pct", "bootstrap"});
  CodesignStudySuite s;
  s.path = path;
  s.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  get_string(root, "description", path, "", "");
  s.options_file = get_string(root, "options", path, "", "");
  const YAML::Node cs = root["cases"];
  if (!cs || !cs.IsSequence() || cs.size() == 0)
    throw SpecError(path, "cases", cs ? node_text(cs) : "", "expected a non-empty list of cases");
  const fs::path beside = fs::path(path).parent_path();
  for (size_t i = 0; i < cs.size(); ++i) {
    const std::string at = "cases[" + std::to_string(i) + "]";
    require_map(cs[i], path, at);
    check_keys(cs[i], path, at, {"space", "max_area_mm2", "name"});
    StudyCase c;
    c.space = get_string(cs[i], "space", path, at, "", true);
    if (fs::path(c.space).is_relative() && fs::exists(beside / c.space))
      c.space = (beside / c.space).string();
    c.max_area_mm2 = get_double_in(cs[i], "max_area_mm2", path, at, -1, 0, 1e6);
    const CodesignSpace sp = load_codesign_space(c.space);  // a bad space is refused here
    const double area = c.max_area_mm2 >= 0 ? c.max_area_mm2 : sp.max_area_mm2;
    c.name = get_string(cs[i], "name", path, at,
                        sp.name + (area > 0 ? "@" + fmt_g(area, 4) + "mm2" : std::string()));
    for (const StudyCase& o : s.cases)
      if (o.name == c.name) throw SpecError(path, at + ".name", c.name, "two cases have this name");
    s.cases.push_back(c);
  }
  s.searchers = get_list<std::string>(root, "searchers", path, true);
  for (size_t i = 0; i < s.searchers.size(); ++i)
    require_sampler(s.searchers[i], path, "searchers[" + std::to_string(i) + "]");
  s.seeds = get_list<uint64_t>(root, "seeds", path, true, 0, kMaxSeed);
  if (std::set<uint64_t>(s.seeds.begin(), s.seeds.end()).size() != s.seeds.size())
    throw SpecError(path, "seeds", node_text(root["seeds"]), "a seed is listed twice");
  s.budget = get_int_in(root, "budget", path, "", s.budget, 1, 10000000);
  s.iso_budgets = get_list<int64_t>(root, "iso_budgets", path, false, 1, s.budget);
  if (s.iso_budgets.empty()) s.iso_budgets = {s.budget};
  s.targets_pct = get_list<double>(root, "targets_pct", path, false, 0, 999);
  if (s.targets_pct.empty()) s.targets_pct = {1, 5};
  read_bootstrap_settings(root, path, s.bootstrap_resamples, s.bootstrap_confidence,
                          s.bootstrap_seed);
  return s;
}

int cmd_codesign_study(const StudyOptions& o, std::ostream& out) {
  if (dist::size() > 1)
    throw SpecError(o.suite, "kind", "codesign",
                    "a co-design study runs in one process (its runs share one memo of layer "
                    "solves); start it without mpirun");
  if (o.json)
    throw SpecError("--json", "json", "true",
                    "a co-design study writes codesign-study.json in its folder; --json is for "
                    "mapping studies");
  CodesignStudy study(o, load_codesign_study(o.suite), out);
  return study.run();
}

}  // namespace mapwright::flows::codesign
