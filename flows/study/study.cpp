// The study flow: runs searchers x seeds x layers on the surrogate in a thread pool, builds the
// per-layer reference best, and reports samples-to-target (Kaplan-Meier medians over seeds,
// censored at the budget) and iso-sample gaps to the optimum with bootstrap intervals (seeds
// resampled within each layer), ratios against marl and ppo-box, invalid and duplicate rates,
// as CSVs, gnuplot SVG plots, study.json and study.html (study_html.cpp).
#include "mapwright/flows/study.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "mapwright/support/error.hpp"
#include "mapwright/support/stats.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "common/text.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"
#include "common/process.hpp"
#include "study/study_html.hpp"
#include "study/study_stats.hpp"
#include "study/study_store.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

using core::median;

/// One searcher run of the study: what it is, and once finished (`done`), what it found.
struct Job : Trial {
  bool done = false;  ///< Finished (not interrupted), here or in an earlier session.
};

/// One searcher on one layer: its finished runs and what the study derives from them.
struct Cell {
  std::vector<const Job*> runs;                       ///< Finished, non-reference runs.
  std::vector<std::vector<core::TimeToEvent>> times;  ///< Per target: samples to it, per run.
  std::vector<core::BootstrapCI> km;                  ///< Per target: KM median, interval.
  std::vector<std::vector<double>> ratio_at;          ///< Per iso budget: best / optimum per run.
  int64_t samples = 0;                                ///< Samples over the runs.
  int64_t invalid = 0;                                ///< Invalid samples over the runs.
  int64_t duplicates = 0;                             ///< Duplicate proposals over the runs.
};

/// One searcher over all layers.
struct SearcherFigures {
  std::vector<core::BootstrapCI> gap;           ///< Per iso budget: geomean best / optimum.
  std::vector<core::BootstrapCI> median_layer;  ///< Per target: median-layer KM median.
  std::vector<int> layers_reached;              ///< Per target: layers whose KM median is reached.
  int64_t samples = 0;                          ///< Samples over all runs.
  int64_t invalid = 0;                          ///< Invalid samples over all runs.
  int64_t duplicates = 0;                       ///< Duplicate proposals over all runs.
};

nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}
/// [lo, hi] of an interval (null for an infinite or undefined end).
nlohmann::json ci_json(const core::BootstrapCI& ci) {
  return nlohmann::json::array({finite_or_null(ci.lo), finite_or_null(ci.hi)});
}
/// Invalid samples / samples (NaN without samples).
double invalid_rate(int64_t invalid, int64_t samples) {
  return samples > 0 ? static_cast<double>(invalid) / static_cast<double>(samples)
                     : std::numeric_limits<double>::quiet_NaN();
}
/// Duplicate proposals / all proposals (samples + duplicates).
double duplicate_rate(int64_t duplicates, int64_t samples) {
  return samples + duplicates > 0
             ? static_cast<double>(duplicates) / static_cast<double>(samples + duplicates)
             : std::numeric_limits<double>::quiet_NaN();
}
/// A number for the CSVs: the stream's default form, "" for NaN.
std::string fmt_num(double x) {
  if (std::isnan(x)) return "";
  std::ostringstream s;
  s << x;
  return s.str();
}
/// A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

/// The reference of a layer: its optimum, proven by the exact mapper (or, if the time limit
/// stops it, the best mapping found with the lower bound it has proven).
struct Optimum {
  bool found = false;     ///< A valid mapping exists.
  double cost = 0;        ///< Best cost found by the exact mapper.
  nlohmann::json record;  ///< Bound, gap, optimal, effort.
};

/// A study as a pipeline: open the folder (lock, state, resume) -> the exact optimum of every
/// layer -> plan the searcher runs (those recorded in an earlier session are kept) -> run the
/// rest in a thread pool, recording each as it finishes -> references -> runs.csv -> per-layer
/// medians, curves and plots -> headline ratios and gaps -> study.json and the printed table.
class StudyRun {
 public:
  explicit StudyRun(const StudyOptions& o) : o_(o), suite_(load_study_suite(o.suite)) {
    if (!o.options_file.empty()) suite_.options_file = o.options_file;
    arch_ = load_arch(suite_.arch);
    objective_ = parse_objective(suite_.objective, o.suite);
    sopts_ = load_options_or_default(suite_.options_file);
    // Every layer needs its own name: the summaries are keyed by it. An inline layer is named
    // after its spec (file-name safe: no commas for the CSVs); a name given twice gets #index.
    std::map<std::string, int> seen;
    for (size_t li = 0; li < suite_.layers.size(); ++li) {
      Layer l = parse_layer_arg(suite_.layers[li], o.suite);
      if (l.name == "inline") l.name = safe_name(suite_.layers[li]);
      if (seen[l.name]++ > 0) l.name += "#" + std::to_string(li);
      layers_.push_back(l);
    }
    boot_.resamples = suite_.bootstrap_resamples;
    boot_.confidence = suite_.bootstrap_confidence;
    boot_.seed = suite_.bootstrap_seed;
    dir_ = o.out_dir.empty() ? fs::path("runs") / ("study-" + safe_name(suite_.name))
                             : fs::path(o.out_dir);
  }

  int run(std::ostream& out) {
    const FolderLock folder_lock(dir_, "--out");  // one process per study folder
    make_output_dir(dir_ / "curves");             // fails here, before any work, when unwritable
    make_output_dir(dir_ / "plots");
    open_state();
    find_optima();
    plan_jobs();
    run_jobs();
    set_references();
    write_runs_csv();
    summarize_layers();
    summarize_searchers();
    write_searchers_csv();
    gap_plot();
    const nlohmann::json vs_marl = ratios_vs("marl"), vs_box = ratios_vs("ppo-box");
    const nlohmann::json summary = summary_json(vs_marl, vs_box, gaps_to_optimum(), efficiency());
    write_atomic(dir_ / "study.json", summary.dump(2) + "\n");
    write_atomic(dir_ / "study.html", render_study_html(StudyPage{summary, gap_svg_, layer_svgs_}));
    if (o_.json)
      out << summary.dump(2) << "\n";
    else
      print(vs_marl, vs_box, out);
    if (stopped_ && !o_.json)
      out << "interrupted: continue with `mapwright study --suite " << o_.suite << " --out "
          << dir_.string() << " --resume`\n";
    return stopped_ ? 130 : 0;
  }

 private:
  /// Reads study-state.json for --resume (refusing a changed suite) or makes sure the folder
  /// holds no study yet.
  void open_state() {
    // What makes the study: the suite file, the options and the architecture. A resumed study
    // must have the same.
    print_ = fingerprint(read_text(o_.suite) + "\n--\n" + search::to_json(sopts_).dump() +
                         "\n--\n" + arch_.name);
    const fs::path state_file = dir_ / "study-state.json";
    if (fs::exists(state_file)) {
      if (!o_.resume)
        throw SpecError("--out", "out", dir_.string(),
                        "already holds a study (study-state.json); add --resume to continue it "
                        "or choose another --out");
      try {
        state_ = nlohmann::json::parse(read_text(state_file));
      } catch (const nlohmann::json::exception& e) {
        throw SpecError(state_file.string(), "(json)", "", e.what());
      }
      if (!state_.is_object() || state_.value("fingerprint", "") != print_)
        throw SpecError(state_file.string(), "fingerprint",
                        state_.is_object() ? state_.value("fingerprint", "") : "",
                        "the suite, its options or its architecture changed since this study "
                        "started (now " +
                            print_ + "); start it in another --out");
    } else if (fs::exists(dir_ / "trials.jsonl")) {
      throw SpecError("--out", "out", dir_.string(),
                      "has trials.jsonl but no study-state.json: not a study folder this "
                      "version can resume; choose another --out");
    }
  }

  /// The optimum of every layer: from the state of the first session when resuming (a
  /// time-limited exact search is not repeatable), else from the exact mapper, then saved.
  void find_optima() {
    optimum_.assign(layers_.size(), Optimum{});
    const fs::path state_file = dir_ / "study-state.json";
    if (!state_.is_null()) {
      const auto& so = state_.at("optimum");
      if (!so.is_array() || so.size() != layers_.size())
        throw SpecError(state_file.string(), "optimum", "", "must list one record per layer");
      for (size_t li = 0; li < layers_.size(); ++li) {
        optimum_[li].found = so[li].at("found").get<bool>();
        optimum_[li].cost = so[li].at("cost").get<double>();
        optimum_[li].record = so[li].at("record");
      }
      exact_seconds_ = state_.at("exact_seconds").get<double>();
      return;
    }
    const auto t_exact = std::chrono::steady_clock::now();
    ExactOptions ex;
    ex.time_limit_s = suite_.reference_time_limit_s;
    ex.gap = suite_.reference_gap;
    ex.threads = o_.jobs;
    for (size_t li = 0; li < layers_.size(); ++li) {
      LayerSearch ls =
          search_layer(layers_[li], arch_, "exact", sopts_, 0, 1, objective_, {}, {}, ex);
      optimum_[li].found = ls.result.found;
      optimum_[li].cost = ls.result.found ? ls.result.best_cost : 0;
      optimum_[li].record = ls.exact;
      if (ls.result.found) optimum_[li].record["cost"] = ls.result.best_cost;
    }
    exact_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_exact).count();
    nlohmann::json state = {{"format", 1},
                            {"fingerprint", print_},
                            {"suite_file", o_.suite},
                            {"exact_seconds", exact_seconds_},
                            {"optimum", nlohmann::json::array()}};
    for (const auto& op : optimum_)
      state["optimum"].push_back({{"found", op.found}, {"cost", op.cost}, {"record", op.record}});
    write_atomic(state_file, state.dump(2) + "\n");
  }

  /// Every searcher run of the suite; runs finished in earlier sessions come from the trial log.
  void plan_jobs() {
    for (size_t li = 0; li < layers_.size(); ++li) {
      for (const auto& k : suite_.reference_multiplier > 0 ? suite_.reference_searchers
                                                           : std::vector<std::string>{}) {
        Job r;
        r.layer = li;
        r.searcher = k;
        r.seed = suite_.reference_seed;
        r.budget = suite_.budget * suite_.reference_multiplier;
        r.reference = true;
        jobs_.push_back(r);
      }
      for (const auto& k : suite_.searchers) {
        for (uint64_t seed : suite_.seeds) {
          Job j;
          j.layer = li;
          j.searcher = k;
          j.seed = seed;
          j.budget = suite_.budget_of(k);
          jobs_.push_back(j);
        }
      }
    }
    log_ = std::make_unique<TrialLog>(dir_ / "trials.jsonl");
    if (log_->dropped_torn_line())
      std::cerr << "study: dropped a trial record cut short by an earlier crash; its run is "
                   "repeated\n";
    std::map<decltype(Trial().key()), const Trial*> have;
    for (const Trial& t : log_->loaded()) have[t.key()] = &t;
    for (Job& j : jobs_) {
      const auto it = have.find(j.key());
      if (it == have.end()) continue;
      static_cast<Trial&>(j) = *it->second;
      j.done = true;
      ++from_log_;
    }
  }

  /// The searchers' reward: the surrogate, or (suite key reward: rtl) the RTL after the warm-up,
  /// one worker process per running search.
  RewardOptions reward() const {
    RewardOptions r;
    if (!suite_.rtl_reward) return r;
    r.source = RewardOptions::Rtl;
    r.surrogate_warmup = suite_.surrogate_warmup;
    r.jobs = 1;
    r.worker_exe = o_.worker_exe;
    r.arch = suite_.arch;
    return r;
  }

  /// One searcher run (in a pool thread); records it in the trial log when it finished.
  void run_job(Job& j, const std::function<bool()>& stopping) {
    const auto s = std::chrono::steady_clock::now();
    // Each run gets a seed derived from (seed, layer, searcher) so runs are independent.
    const uint64_t seed = j.seed * 1000003ULL + j.layer * 101ULL +
                          static_cast<uint64_t>(std::hash<std::string>{}(j.searcher) % 97);
    LayerSearch ls = search_layer(
        layers_[j.layer], arch_, j.searcher, sopts_, seed, j.budget, objective_,
        [&](const search::SearchProgress&) { return !stopping(); }, {}, {}, Encoding::Compact,
        reward());
    j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    j.curve = std::move(ls.result.best_so_far);
    // A run that used up what its searcher can propose keeps its best for the rest of the
    // budget (it cannot find anything new). The exact mapper has one answer, held from its
    // first "sample" on.
    if ((ls.result.exhausted || j.searcher == "exact") && !j.curve.empty())
      j.curve.resize(static_cast<size_t>(j.budget), j.curve.back());
    j.samples = ls.result.samples;
    j.duplicates = ls.result.duplicates;
    j.invalid = ls.result.invalid;
    j.rtl_samples = ls.reward.value("rtl_samples", int64_t{0});
    j.best = ls.result.found ? ls.result.best_cost : std::numeric_limits<double>::infinity();
    j.done = !ls.result.stopped_early;
    if (j.done && log_) log_->append(j);  // an MPI rank other than 0 has no log: rank 0 records
  }

 public:
  /// A rank other than 0 under mpirun: runs the searcher runs rank 0 hands out and sends each
  /// back; writes nothing (rank 0 owns the study folder).
  int serve() {
    const InterruptSignals signals(true);
    const std::function<bool()> stopping = [] { return InterruptSignals::count() > 0; };
    return dist::serve([&](const nlohmann::json& m) -> nlohmann::json {
      Job j;
      static_cast<Trial&>(j) = trial_from_json(m["trial"], "rank 0");
      std::string failure;
      try {
        run_job(j, stopping);
      } catch (const std::exception& e) {
        failure = "rank " + std::to_string(dist::rank()) + ": " + e.what();
      }
      return {{"index", m["index"]},
              {"trial", trial_to_json(j)},
              {"done", j.done},
              {"failure", failure}};
    });
  }

 private:
  /// run_jobs under mpirun (rank 0): one searcher run at a time to whichever rank asks, each
  /// recorded in the trial log as it comes back; Ctrl-C stops handing out. The runs' seeds come
  /// from the jobs, so the study equals a one-process study.
  void run_jobs_mpi(const std::vector<size_t>& order, std::atomic<size_t>& finished,
                    std::string& write_error) {
    const InterruptSignals signals(true);
    size_t next = 0;
    int active = dist::size() - 1;
    while (active > 0) {
      int from = 0;
      dist::Tag tag{};
      const nlohmann::json m = dist::receive(from, tag);
      if (tag == dist::Tag::Result) {
        Job& j = jobs_[m["index"].get<size_t>()];
        static_cast<Trial&>(j) = trial_from_json(m["trial"], "rank " + std::to_string(from));
        j.done = m["done"].get<bool>() && m["failure"].get<std::string>().empty();
        if (!m["failure"].get<std::string>().empty() && write_error.empty())
          write_error = m["failure"].get<std::string>();
        try {
          if (j.done) log_->append(j);
        } catch (const std::exception& e) {
          if (write_error.empty()) write_error = e.what();
        }
        if (j.done) ++finished;
      }
      if (next < order.size() && write_error.empty() && InterruptSignals::count() == 0) {
        const size_t idx = order[next++];
        dist::send(from, dist::Tag::Work, {{"index", idx}, {"trial", trial_to_json(jobs_[idx])}});
      } else {
        dist::send(from, dist::Tag::Stop, nlohmann::json::object());
        --active;
      }
    }
    stopped_ = InterruptSignals::count() > 0;
  }

  /// Runs the planned runs not finished yet in a thread pool, longest first.
  void run_jobs() {
    std::vector<size_t> order;
    for (size_t i = 0; i < jobs_.size(); ++i)
      if (!jobs_[i].done) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return jobs_[a].budget > jobs_[b].budget; });
    threads_ =
        o_.jobs > 0 ? o_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const bool tty = isatty(STDERR_FILENO);
    std::atomic<size_t> finished{from_log_};
    std::mutex io;
    std::string write_error;  // the first failure to record a run (a full disk): stops the study
    std::atomic<bool> write_failed{false};
    std::optional<InterruptSignals> signals(std::in_place);
    const std::function<bool()> stopping = [&] {
      return write_failed || InterruptSignals::count() > 0;
    };
    const auto t0 = std::chrono::steady_clock::now();
    if (dist::size() > 1) {
      signals.reset();  // run_jobs_mpi holds its own
      threads_ = dist::size() - 1;
      run_jobs_mpi(order, finished, write_error);
      if (!write_error.empty())
        throw SpecError(dir_.string(), "(trials)", "",
                        "a run failed or could not be recorded (" + write_error +
                            "); the runs recorded so far are kept: continue with `mapwright "
                            "study --resume`");
      wall_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return;
    }
    {
      boost::asio::thread_pool pool(static_cast<size_t>(threads_));
      for (size_t idx : order) {
        boost::asio::post(pool, [&, idx] {
          if (stopping()) return;
          try {
            run_job(jobs_[idx], stopping);
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(io);
            if (write_error.empty()) write_error = e.what();
            write_failed = true;
            return;
          }
          const size_t f = ++finished;
          if (tty) {
            std::lock_guard<std::mutex> lock(io);
            std::cerr << "\rstudy " << suite_.name << ": " << f << "/" << jobs_.size() << " runs   "
                      << std::flush;
          }
        });
      }
      pool.join();
    }
    stopped_ = stopping();
    signals.reset();
    if (!write_error.empty())
      throw SpecError(dir_.string(), "(trials)", "",
                      "cannot record a finished run (" + write_error +
                          "); the runs recorded so far are kept: free space and continue with "
                          "`mapwright study --resume`");
    if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r";
    wall_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  /// Reference per layer: the exact mapper's answer. A finished sampled run that beat it would
  /// mean the exact mapper is wrong (or stopped at its time limit with a gap): it is counted,
  /// reported, and then taken as the reference so that no ratio falls below 1.
  void set_references() {
    ref_.assign(layers_.size(), std::numeric_limits<double>::infinity());
    beat_exact_.assign(layers_.size(), 0);
    for (size_t li = 0; li < layers_.size(); ++li)
      if (optimum_[li].found) ref_[li] = optimum_[li].cost;
    for (const auto& j : jobs_)
      if (j.done && j.best < ref_[j.layer]) ++beat_exact_[j.layer];
    for (const auto& j : jobs_)
      if (j.done) ref_[j.layer] = std::min(ref_[j.layer], j.best);
  }

  /// Samples run `j` needed to come within `pct` % of its layer's reference: an event at that
  /// sample or, when it never did, censored at its budget.
  core::TimeToEvent samples_to(const Job& j, double pct) const {
    const double target = ref_[j.layer] * (1 + pct / 100.0);
    for (size_t i = 0; i < j.curve.size(); ++i)
      if (j.curve[i] <= target) return {static_cast<double>(i + 1), true};
    return {static_cast<double>(j.budget), false};
  }

  /// A run's best cost after `b` samples relative to the reference.
  double cost_at(const Job& j, int64_t b) const {
    return j.curve.size() >= static_cast<size_t>(b) ? j.curve[b - 1] / ref_[j.layer]
                                                    : std::numeric_limits<double>::infinity();
  }

  /// "5pct" for 5: the suffix of the samples-to-target keys.
  static std::string pct_key(double t) { return std::to_string(static_cast<int>(t)) + "pct"; }

  /// A count of samples of searcher `k` for the CSVs and the table: ">B" (B: its budget) when
  /// not reached (+inf), "" for NaN.
  std::string samples_text(double x, const std::string& k) const {
    if (std::isnan(x)) return "";
    if (!std::isfinite(x)) return ">" + std::to_string(suite_.budget_of(k));
    return std::to_string(static_cast<long long>(std::llround(x)));
  }

  void write_runs_csv() const {
    std::ostringstream f;
    f << "layer,searcher,seed,reference,budget,finished,seconds,invalid,duplicates,best_cost,"
         "best_over_ref";
    for (double t : suite_.targets_pct) f << ",samples_to_" << t << "pct";
    for (auto b : suite_.iso_budgets) f << ",cost_ratio_at_" << b;
    f << "\n";
    for (const auto& j : jobs_) {
      f << csv_field(layers_[j.layer].name) << "," << j.searcher << "," << j.seed << ","
        << j.reference << "," << j.budget << "," << j.done << "," << j.seconds << "," << j.invalid
        << "," << j.duplicates << "," << j.best << "," << j.best / ref_[j.layer];
      for (double t : suite_.targets_pct) {
        const core::TimeToEvent s = samples_to(j, t);
        f << "," << (s.observed ? std::to_string(static_cast<long long>(s.time)) : std::string());
      }
      for (auto b : suite_.iso_budgets) f << "," << cost_at(j, b);
      f << "\n";
    }
    write_atomic(dir_ / "runs.csv", f.str());
  }

  /// The finished, non-reference runs of layer `li` by searcher.
  std::map<std::string, std::vector<const Job*>> runs_of(size_t li) const {
    std::map<std::string, std::vector<const Job*>> by;
    for (const auto& j : jobs_)
      if (j.layer == li && !j.reference && j.done) by[j.searcher].push_back(&j);
    return by;
  }

  /// Layer `li`'s median best-so-far curve per searcher (log-spaced rows), as CSV.
  std::string median_curves(size_t li, std::map<std::string, std::vector<const Job*>>& by) const {
    std::ostringstream cf;
    cf << "sample";
    for (const auto& k : suite_.searchers) cf << "," << k;
    cf << "\n";
    for (int64_t i = 0; i < suite_.budget; ++i) {
      // Log-spaced rows keep the file small.
      if (i > 50 && (i + 1) % std::max<int64_t>(1, (i + 1) / 50) != 0 && i + 1 != suite_.budget)
        continue;
      cf << (i + 1);
      for (const auto& k : suite_.searchers) {
        std::vector<double> v;
        for (const Job* j : by[k])
          if (static_cast<int64_t>(j->curve.size()) > i && std::isfinite(j->curve[i]))
            v.push_back(j->curve[i] / ref_[li]);
        cf << "," << (v.size() == by[k].size() && !v.empty() ? std::to_string(median(v)) : "");
      }
      cf << "\n";
    }
    return cf.str();
  }

  /// One searcher on one layer: samples to every target (KM median over seeds and its
  /// bootstrap interval), costs at every iso budget, invalid and duplicate counts.
  Cell make_cell(size_t li, const std::string& k, const std::vector<const Job*>& runs) const {
    Cell c;
    c.runs = runs;
    for (double t : suite_.targets_pct) {
      std::vector<core::TimeToEvent> d;
      for (const Job* j : runs) d.push_back(samples_to(*j, t));
      c.km.push_back(km_median_ci(d, boot_, "km|" + std::to_string(li) + "|" + k + "|" + fmt_g(t)));
      c.times.push_back(std::move(d));
    }
    for (auto b : suite_.iso_budgets) {
      std::vector<double> v;
      for (const Job* j : runs) v.push_back(cost_at(*j, b));
      c.ratio_at.push_back(std::move(v));
    }
    for (const Job* j : runs) {
      c.samples += j->samples;
      c.invalid += j->invalid;
      c.duplicates += j->duplicates;
    }
    return c;
  }

  /// One searcher's figures on one layer (JSON), and its summary.csv row.
  nlohmann::json cell_json(const std::string& layer, const std::string& k, const Cell& c,
                           std::ostream& sf) const {
    nlohmann::json e;
    e["seeds"] = c.runs.size();
    sf << csv_field(layer) << "," << k << "," << c.runs.size();
    std::ostringstream ci_cols;
    for (size_t ti = 0; ti < suite_.targets_pct.size(); ++ti) {
      const std::string p = pct_key(suite_.targets_pct[ti]);
      const core::BootstrapCI& km = c.km[ti];
      int reached = 0;
      for (const auto& d : c.times[ti]) reached += d.observed;
      e["samples_to_" + p] = finite_or_null(km.estimate);
      e["samples_to_" + p + "_ci"] = ci_json(km);
      e["reached_" + p] = reached;
      e["median_reached_" + p] = std::isfinite(km.estimate);
      sf << "," << samples_text(km.estimate, k) << "," << reached;
      ci_cols << "," << samples_text(km.lo, k) << "," << samples_text(km.hi, k);
    }
    for (size_t bi = 0; bi < suite_.iso_budgets.size(); ++bi) {
      const double m = median(c.ratio_at[bi]);
      e["cost_ratio_at_" + std::to_string(suite_.iso_budgets[bi])] = m;
      sf << "," << m;
    }
    e["invalid_rate"] = finite_or_null(invalid_rate(c.invalid, c.samples));
    e["duplicate_rate"] = finite_or_null(duplicate_rate(c.duplicates, c.samples));
    sf << ci_cols.str() << "," << fmt_num(invalid_rate(c.invalid, c.samples)) << ","
       << fmt_num(duplicate_rate(c.duplicates, c.samples)) << "\n";
    return e;
  }

  /// Layer `li`'s gnuplot script. gnuplot runs inside plots/, so the script names its files
  /// relative to it; the layer name (user text) only appears as a quoted gnuplot string.
  std::string layer_plot(size_t li) const {
    const std::string stem = std::to_string(li) + "_" + safe_name(layers_[li].name);
    std::ostringstream gp;
    gp << "set terminal svg size 720,420 dynamic font 'sans,12'\n"
       << "set output " << gp_quote(stem + ".svg") << "\n"
       << "set datafile separator ','\nset logscale x\nset logscale y\nset key top right\n"
       << "set xlabel 'samples'\nset ylabel "
       << gp_quote("best cost / optimum (median of " + std::to_string(suite_.seeds.size()) +
                   " seeds)")
       << "\nset title "
       << gp_quote(layers_[li].name + " (" + suite_.objective + ", " + arch_.name + ")")
       << " noenhanced\nset grid\n";
    gp << "plot ";
    for (size_t k = 0; k < suite_.searchers.size(); ++k)
      gp << (k ? ", " : "") << gp_quote("../curves/" + stem + ".csv") << " using 1:" << (k + 2)
         << " with lines lw 2 title " << gp_quote(suite_.searchers[k]) << " noenhanced";
    gp << "\n";
    return gp.str();
  }

  /// Per (layer, searcher) figures (cells_, summary.csv, med_), median curves (curves/) and
  /// their plots (plots/).
  void summarize_layers() {
    std::ostringstream sf;
    sf << "layer,searcher,seeds";
    for (double t : suite_.targets_pct)
      sf << ",median_samples_to_" << t << "pct,reached_" << t << "pct";
    for (auto b : suite_.iso_budgets) sf << ",median_cost_ratio_at_" << b;
    for (double t : suite_.targets_pct)
      sf << ",samples_to_" << t << "pct_ci_lo,samples_to_" << t << "pct_ci_hi";
    sf << ",invalid_rate,duplicate_rate\n";
    for (size_t li = 0; li < layers_.size(); ++li) {
      auto by = runs_of(li);
      const std::string stem = std::to_string(li) + "_" + safe_name(layers_[li].name);
      write_atomic(dir_ / "curves" / (stem + ".csv"), median_curves(li, by));
      for (const auto& k : suite_.searchers) {
        cells_[k].push_back(make_cell(li, k, by[k]));
        med_[layers_[li].name][k] = cell_json(layers_[li].name, k, cells_[k].back(), sf);
      }
      write_atomic(dir_ / "plots" / (std::to_string(li) + ".gp"), layer_plot(li));
    }
    write_atomic(dir_ / "summary.csv", sf.str());
    for (size_t li = 0; li < layers_.size(); ++li) {
      const std::string stem = std::to_string(li) + "_" + safe_name(layers_[li].name);
      layer_svgs_.push_back(gnuplot_svg(dir_ / "plots" / (std::to_string(li) + ".gp"),
                                        dir_ / "plots" / (stem + ".svg")));
      plotted_ = !layer_svgs_.back().empty() && plotted_;
    }
  }

  /// Searcher `k`'s values over layers at budget `b` (best / optimum per run).
  std::vector<std::vector<double>> ratios_at(const std::string& k, int64_t b) const {
    std::vector<std::vector<double>> v;
    for (const Cell& c : cells_.at(k)) {
      v.emplace_back();
      for (const Job* j : c.runs) v.back().push_back(cost_at(*j, b));
    }
    return v;
  }

  /// Per searcher: the gap to the optimum at every iso budget, samples to every target on the
  /// median layer (both with bootstrap intervals that resample seeds within each layer), and
  /// invalid and duplicate rates over all its runs.
  void summarize_searchers() {
    for (const auto& k : suite_.searchers) {
      SearcherFigures f;
      for (auto b : suite_.iso_budgets)
        f.gap.push_back(
            geomean_of_medians_ci(ratios_at(k, b), boot_, "gap|" + k + "|" + std::to_string(b)));
      for (size_t ti = 0; ti < suite_.targets_pct.size(); ++ti) {
        std::vector<std::vector<core::TimeToEvent>> per_layer;
        int reached = 0;
        for (const Cell& c : cells_.at(k)) {
          per_layer.push_back(c.times[ti]);
          reached += std::isfinite(c.km[ti].estimate);
        }
        f.median_layer.push_back(median_layer_km_ci(
            per_layer, boot_, "layer-km|" + k + "|" + fmt_g(suite_.targets_pct[ti])));
        f.layers_reached.push_back(reached);
      }
      for (const Cell& c : cells_.at(k)) {
        f.samples += c.samples;
        f.invalid += c.invalid;
        f.duplicates += c.duplicates;
      }
      figures_[k] = std::move(f);
    }
  }

  /// The ratios of every searcher against `base`: samples to within 5 % (median over layers
  /// of the per-layer KM-median ratios, flagged when bounds went in) and the geometric mean of
  /// the iso-budget cost ratios. Null when the suite does not have `base`.
  nlohmann::json ratios_vs(const std::string& base) const {
    nlohmann::json head;
    if (!cells_.count(base)) return head;
    head = nlohmann::json::object();
    const size_t t5 =
        static_cast<size_t>(std::find(suite_.targets_pct.begin(), suite_.targets_pct.end(), 5.0) -
                            suite_.targets_pct.begin());
    std::string base_key = safe_name(base);  // "ppo_box" for ppo-box
    std::replace(base_key.begin(), base_key.end(), '-', '_');
    for (const auto& k : suite_.searchers) {
      if (k == base) continue;
      std::vector<LayerRatio> lr;
      for (size_t li = 0; li < layers_.size(); ++li)
        lr.push_back(samples_ratio(cells_.at(k)[li].km[t5].estimate,
                                   cells_.at(base)[li].km[t5].estimate,
                                   static_cast<double>(suite_.budget)));
      const RatioSummary rs = median_ratio(lr);
      nlohmann::json e;
      e["median_samples_to_5pct_ratio"] = finite_or_null(rs.median);
      e["ratio_kind"] = ratio_kind_name(rs.kind);
      e["layers_with_ratio"] = rs.exact + rs.lower + rs.upper;
      e["ratios_that_are_lower_bounds"] = rs.lower;
      e["ratios_that_are_upper_bounds"] = rs.upper;
      e["layers_without_ratio"] = rs.unknown;
      for (auto b : suite_.iso_budgets) {
        double lg = 0;
        int n = 0;
        for (const auto& l : layers_) {
          const double x =
              med_.at(l.name).at(k)["cost_ratio_at_" + std::to_string(b)].get<double>();
          const double y =
              med_.at(l.name).at(base)["cost_ratio_at_" + std::to_string(b)].get<double>();
          if (std::isfinite(x) && std::isfinite(y)) {
            lg += std::log(x / y);
            ++n;
          }
        }
        e["geomean_cost_ratio_vs_" + base_key + "_at_" + std::to_string(b)] =
            n ? std::exp(lg / n) : 0.0;
      }
      head[k] = e;
    }
    return head;
  }

  /// Gap to the optimum per searcher: geometric mean over layers of the median (over seeds)
  /// best / optimum at each iso budget, minus 1, with its bootstrap interval (null: infinite,
  /// i.e. the median run of some layer had no valid mapping yet).
  nlohmann::json gaps_to_optimum() const {
    nlohmann::json gaps = nlohmann::json::object();
    for (const auto& k : suite_.searchers) {
      const SearcherFigures& f = figures_.at(k);
      for (size_t bi = 0; bi < suite_.iso_budgets.size(); ++bi) {
        const std::string b = std::to_string(suite_.iso_budgets[bi]);
        gaps[k]["gap_to_optimum_at_" + b] = finite_or_null(f.gap[bi].estimate - 1);
        gaps[k]["gap_to_optimum_at_" + b + "_ci"] = {finite_or_null(f.gap[bi].lo - 1),
                                                     finite_or_null(f.gap[bi].hi - 1)};
      }
    }
    return gaps;
  }

  /// Per searcher: samples to each target on the median layer with its interval, the layers
  /// where the KM median is reached, invalid and duplicate rates.
  nlohmann::json efficiency() const {
    nlohmann::json eff = nlohmann::json::object();
    for (const auto& k : suite_.searchers) {
      const SearcherFigures& f = figures_.at(k);
      nlohmann::json e;
      for (size_t ti = 0; ti < suite_.targets_pct.size(); ++ti) {
        const std::string p = pct_key(suite_.targets_pct[ti]);
        e["samples_to_" + p + "_median_layer"] = finite_or_null(f.median_layer[ti].estimate);
        e["samples_to_" + p + "_median_layer_ci"] = ci_json(f.median_layer[ti]);
        e["layers_reached_" + p] = f.layers_reached[ti];
      }
      e["samples"] = f.samples;
      e["invalid"] = f.invalid;
      e["duplicates"] = f.duplicates;
      e["invalid_rate"] = finite_or_null(invalid_rate(f.invalid, f.samples));
      e["duplicate_rate"] = finite_or_null(duplicate_rate(f.duplicates, f.samples));
      eff[k] = e;
    }
    return eff;
  }

  /// searchers.csv: one row per searcher with the figures of `efficiency` and the gaps.
  void write_searchers_csv() const {
    std::ostringstream f;
    f << "searcher";
    for (auto b : suite_.iso_budgets)
      f << ",gap_at_" << b << ",gap_at_" << b << "_ci_lo,gap_at_" << b << "_ci_hi";
    for (double t : suite_.targets_pct)
      f << ",samples_to_" << t << "pct_median_layer,samples_to_" << t << "pct_ci_lo,samples_to_"
        << t << "pct_ci_hi,layers_reached_" << t << "pct";
    f << ",invalid_rate,duplicate_rate\n";
    for (const auto& k : suite_.searchers) {
      const SearcherFigures& fg = figures_.at(k);
      f << k;
      for (size_t bi = 0; bi < suite_.iso_budgets.size(); ++bi)
        f << "," << fmt_num(fg.gap[bi].estimate - 1) << "," << fmt_num(fg.gap[bi].lo - 1) << ","
          << fmt_num(fg.gap[bi].hi - 1);
      for (size_t ti = 0; ti < suite_.targets_pct.size(); ++ti)
        f << "," << samples_text(fg.median_layer[ti].estimate, k) << ","
          << samples_text(fg.median_layer[ti].lo, k) << ","
          << samples_text(fg.median_layer[ti].hi, k) << "," << fg.layers_reached[ti];
      f << "," << fmt_num(invalid_rate(fg.invalid, fg.samples)) << ","
        << fmt_num(duplicate_rate(fg.duplicates, fg.samples)) << "\n";
    }
    write_atomic(dir_ / "searchers.csv", f.str());
  }

  /// The gap-to-optimum plot: geometric mean over layers of the median best / optimum at
  /// log-spaced budgets (and every iso budget) per searcher with its bootstrap band, as
  /// plots/gap.csv and plots/gap.gp. Its SVG goes into study.html only (the per-layer SVGs are
  /// the plots/ files): the script redraws it.
  void gap_plot() {
    std::vector<int64_t> grid(suite_.iso_budgets.begin(), suite_.iso_budgets.end());
    for (double x = 1; x < static_cast<double>(suite_.budget); x *= std::pow(10.0, 1.0 / 8))
      grid.push_back(static_cast<int64_t>(std::llround(x)));
    grid.push_back(suite_.budget);
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    std::ostringstream d;
    d << "# budget, then per searcher (" << suite_.searchers.size()
      << "): geometric mean over layers of the median best / optimum, bootstrap low, high\n";
    double ymax = 1;
    for (int64_t b : grid) {
      d << b;
      for (const auto& k : suite_.searchers) {
        const core::BootstrapCI ci =
            geomean_of_medians_ci(ratios_at(k, b), boot_, "gap|" + k + "|" + std::to_string(b));
        for (double x : {ci.estimate, ci.lo, ci.hi}) {
          d << "," << (std::isfinite(x) ? fmt_num(x) : std::string("NaN"));
          if (std::isfinite(x)) ymax = std::max(ymax, x);
        }
      }
      d << "\n";
    }
    write_atomic(dir_ / "plots" / "gap.csv", d.str());
    std::ostringstream gp;
    gp << "set terminal svg size 900,480 dynamic font 'sans,12'\n"
       << "set output " << gp_quote("gap.svg") << "\n"
       << "set datafile separator ','\nset datafile missing 'NaN'\n"
       << "set logscale x\nset logscale y\nset key top right\nset grid\n"
       << "set xlabel 'samples (budget)'\n"
       << "set ylabel "
       << gp_quote("gap to the optimum (geometric mean over layers of the median over " +
                   std::to_string(suite_.seeds.size()) + " seeds)")
       << "\nset title "
       << gp_quote("gap to the optimum vs budget, " +
                   fmt_g(std::round(boot_.confidence * 1000) / 10) + " % bootstrap band (" +
                   suite_.objective + ", " + arch_.name + ")")
       << " noenhanced\n";
    // The y axis is best / optimum on a log scale, labelled as the gap (ratio - 1): 1-2-5 steps
    // up to the largest value, none closer to the one below than 6 % of the axis.
    gp << "set ytics (";
    const double top = std::log(std::max(ymax, 1.1)), min_step = 0.06 * top;
    std::vector<double> tics = {0};
    for (double decade = 0.01; std::log(1 + decade) <= top; decade *= 10)
      for (double m : {1, 2, 5}) tics.push_back(m * decade);
    double last = -1;
    for (double g : tics) {
      const double at = std::log(1 + g);
      if (at > top || (last >= 0 && at - last < min_step)) continue;
      // A tic label is a format: "%%" draws "%".
      gp << (last < 0 ? "" : ", ") << gp_quote(fmt_g(g * 100) + " %%") << " " << 1 + g;
      last = at;
    }
    gp << ")\nset yrange [1:" << fmt_num(std::max(ymax, 1.1) * 1.05)
       << "]\nset xrange [1:" << suite_.budget << "]\n";
    gp << "plot ";
    for (size_t k = 0; k < suite_.searchers.size(); ++k) {
      const size_t c = 2 + 3 * k;
      gp << (k ? ", " : "") << "'gap.csv' using 1:" << c + 1 << ":" << c + 2
         << " with filledcurves fs transparent solid 0.15 noborder lc " << k + 1 << " notitle, "
         << "'gap.csv' using 1:" << c << " with linespoints lw 2 pt 7 ps 0.5 lc " << k + 1
         << " title " << gp_quote(suite_.searchers[k]) << " noenhanced";
    }
    gp << "\n";
    write_atomic(dir_ / "plots" / "gap.gp", gp.str());
    gap_svg_ = gnuplot_svg(dir_ / "plots" / "gap.gp", dir_ / "plots" / "gap.svg");
    std::error_code ec;
    fs::remove(dir_ / "plots" / "gap.svg", ec);
    plotted_ = !gap_svg_.empty() && plotted_;
  }

  nlohmann::json summary_json(const nlohmann::json& vs_marl, const nlohmann::json& vs_box,
                              const nlohmann::json& gaps, const nlohmann::json& eff) {
    nlohmann::json summary;
    summary["gap_to_optimum"] = gaps;
    summary["suite"] = suite_.name;
    summary["suite_file"] = o_.suite;
    summary["arch"] = arch_.name;
    summary["objective"] = suite_.objective;
    summary["searchers"] = suite_.searchers;
    summary["seeds"] = suite_.seeds;
    summary["budget"] = suite_.budget;
    if (suite_.rtl_reward)
      summary["reward"] = {{"source", "rtl"}, {"surrogate_warmup", suite_.surrogate_warmup}};
    if (!suite_.budget_caps.empty()) summary["budget_caps"] = suite_.budget_caps;
    summary["iso_budgets"] = suite_.iso_budgets;
    summary["targets_pct"] = suite_.targets_pct;
    summary["layer_order"] = nlohmann::json::array();
    for (const auto& l : layers_) summary["layer_order"].push_back(l.name);
    summary["reference"] = "exact mapper (proven optimum, or the best found with its proven gap)";
    summary["reference_time_limit_s"] = suite_.reference_time_limit_s;
    summary["reference_gap_target"] = suite_.reference_gap;
    summary["exact_seconds"] = exact_seconds_;
    summary["optimum"] = nlohmann::json::object();
    for (size_t li = 0; li < layers_.size(); ++li) {
      nlohmann::json rec = optimum_[li].record;
      rec["sampled_runs_that_beat_it"] = beat_exact_[li];
      total_beats_ += beat_exact_[li];
      summary["optimum"][layers_[li].name] = rec;
    }
    summary["sampled_runs_that_beat_the_exact_mapper"] = total_beats_;
    summary["reference_budget"] = suite_.budget * suite_.reference_multiplier;
    summary["reference_seed"] = suite_.reference_seed;
    summary["reference_searchers"] = suite_.reference_searchers;
    summary["options_file"] =
        suite_.options_file.empty() ? "(built-in defaults)" : suite_.options_file;
    summary["options"] = search::to_json(sopts_);
    summary["threads"] = threads_;
    summary["wall_seconds"] = wall_;
    summary["interrupted"] = stopped_;
    summary["layers"] = med_;
    summary["reference_cost"] = nlohmann::json::object();
    for (size_t li = 0; li < layers_.size(); ++li)
      summary["reference_cost"][layers_[li].name] = ref_[li];
    summary["efficiency"] = eff;
    summary["vs_marl"] = vs_marl;
    summary["vs_ppo_box"] = vs_box;
    summary["bootstrap"] = {
        {"seed", boot_.seed},
        {"resamples", boot_.resamples},
        {"confidence", boot_.confidence},
        {"method",
         "percentile bootstrap (inverse-ECDF quantiles of the replicates); the runs (seeds) of "
         "each layer are resampled with replacement, layers are kept; every statistic draws "
         "from its own seed derived from this seed and its name"}};
    summary["note"] =
        "The reference of every layer is its optimum (exact mapper); cost ratios are best / "
        "optimum (1 = optimal). samples_to_Xpct = Kaplan-Meier median over seeds of the samples "
        "a run needs to come within X% of the optimum, a run that never does being censored at "
        "its budget; null = not reached (fewer than half of the runs reach it within the "
        "budget). *_ci = [low, high] percentile bootstrap interval (see bootstrap); a null high "
        "end = not reached in the upper tail. gap_to_optimum_at_B = geometric mean over layers "
        "of the median best / optimum at B samples, minus 1 (null: the median run of some layer "
        "had no valid mapping). efficiency.*_median_layer = median over layers of the per-layer "
        "KM medians. vs_marl / vs_ppo_box: median_samples_to_5pct_ratio = median over layers of "
        "(searcher's KM median samples to 5%) / (the baseline's); where one of the two is not "
        "reached it counts as the budget and the layer's ratio is a bound (ratio_kind says what "
        "the median is: exact, lower_bound, upper_bound, or unknown when bounds of both "
        "directions went in); layers where neither is reached are left out "
        "(layers_without_ratio). geomean_cost_ratio_vs_<base>_at_B > 1 means the baseline found "
        "the lower cost at B samples. invalid_rate = invalid / samples, duplicate_rate = "
        "duplicates / (samples + duplicates), over all runs.";
    summary["runs_from_earlier_sessions"] = from_log_;
    return summary;
  }

  /// A gap as a percentage, 3 significant digits below 100 % ("n/a" for NaN, "inf" for +inf).
  static std::string pct_text(double g) {
    if (std::isnan(g)) return "n/a";
    if (!std::isfinite(g)) return "inf";
    std::ostringstream s;
    if (std::fabs(100 * g) >= 100)
      s << std::llround(100 * g) << "%";
    else
      s << std::setprecision(3) << 100 * g << "%";
    return s.str();
  }

  /// The table a user reads after `mapwright study`.
  void print(const nlohmann::json& vs_marl, const nlohmann::json& vs_box, std::ostream& out) {
    const std::string conf = fmt_g(std::round(boot_.confidence * 1000) / 10) + "%";
    out << "study " << suite_.name << ": " << layers_.size() << " layers x "
        << suite_.searchers.size() << " searchers x " << suite_.seeds.size() << " seeds, budget "
        << suite_.budget << ", measured against each layer's optimum (exact mapper, " << std::fixed
        << std::setprecision(1) << exact_seconds_ << " s for all layers), " << std::setprecision(0)
        << wall_ << " s of sampling on " << threads_ << " threads\n"
        << std::defaultfloat;
    out << std::left << std::setw(24) << "layer" << std::right;
    for (const auto& k : suite_.searchers) out << std::setw(12) << k;
    out << "   (samples to within 5% of the optimum: Kaplan-Meier median over seeds; >B = not "
           "reached)\n";
    const size_t t5 =
        static_cast<size_t>(std::find(suite_.targets_pct.begin(), suite_.targets_pct.end(), 5.0) -
                            suite_.targets_pct.begin());
    for (size_t li = 0; li < layers_.size(); ++li) {
      out << std::left << std::setw(24) << one_line(layers_[li].name).substr(0, 23) << std::right;
      for (const auto& k : suite_.searchers)
        out << std::setw(12) << samples_text(cells_.at(k)[li].km[t5].estimate, k);
      out << "\n";
    }
    out << "per searcher (" << conf
        << " bootstrap intervals, seeds resampled within each layer):\n";
    for (const auto& k : suite_.searchers) {
      const SearcherFigures& f = figures_.at(k);
      out << "  " << std::left << std::setw(8) << k << std::right;
      for (size_t ti = 0; ti < suite_.targets_pct.size(); ++ti)
        out << (ti ? "; " : " ") << "samples to " << fmt_g(suite_.targets_pct[ti])
            << "% (median layer) " << samples_text(f.median_layer[ti].estimate, k) << " ["
            << samples_text(f.median_layer[ti].lo, k) << ", "
            << samples_text(f.median_layer[ti].hi, k) << "]";
      out << "; invalid " << pct_text(invalid_rate(f.invalid, f.samples)) << ", duplicates "
          << pct_text(duplicate_rate(f.duplicates, f.samples)) << "\n";
      out << "  " << std::setw(8) << ""
          << " gap to the optimum";
      for (size_t bi = 0; bi < suite_.iso_budgets.size(); ++bi) {
        out << (bi ? "," : "") << " @" << suite_.iso_budgets[bi] << " ";
        if (suite_.budget_of(k) < suite_.iso_budgets[bi])
          out << "- (runs capped at " << suite_.budget_of(k) << ")";
        else
          out << pct_text(f.gap[bi].estimate - 1) << " [" << pct_text(f.gap[bi].lo - 1) << ", "
              << pct_text(f.gap[bi].hi - 1) << "]";
      }
      out << "\n";
    }
    for (const auto& [base, head] :
         {std::pair<std::string, const nlohmann::json&>{"marl", vs_marl}, {"ppo-box", vs_box}}) {
      for (const auto& k : suite_.searchers) {
        if (!head.contains(k)) continue;
        const nlohmann::json& e = head[k];
        const std::string kind = e["ratio_kind"].get<std::string>();
        out << k << " vs " << base << ": median samples-to-5% ratio "
            << (e["median_samples_to_5pct_ratio"].is_null()
                    ? std::string("n/a")
                    : (kind == "lower_bound"   ? ">= "
                       : kind == "upper_bound" ? "<= "
                       : kind == "unknown"     ? "~ "
                                               : "") +
                          fmt_g(e["median_samples_to_5pct_ratio"].get<double>()))
            << " (" << kind << "; " << e["layers_with_ratio"].get<int>() << " layers, "
            << e["ratios_that_are_lower_bounds"].get<int>() << " lower and "
            << e["ratios_that_are_upper_bounds"].get<int>() << " upper bounds, "
            << e["layers_without_ratio"].get<int>() << " left out: neither reached)\n";
      }
    }
    out << "sampled runs that beat the exact mapper: " << total_beats_ << "\n";
    out << "written to " << dir_.string()
        << " (study.html, runs.csv, summary.csv, searchers.csv, study.json, curves/, plots/"
        << (plotted_ ? "" : " [gnuplot failed or missing: no SVG]") << ")\n";
  }

  const StudyOptions& o_;
  StudySuite suite_;
  Arch arch_;
  Objective objective_;
  search::SearchOptions sopts_;
  std::vector<Layer> layers_;
  fs::path dir_;
  std::string print_;     ///< Fingerprint of suite, options and architecture.
  nlohmann::json state_;  ///< study-state.json of an earlier session (null: new study).
  std::vector<Optimum> optimum_;
  double exact_seconds_ = 0;
  std::vector<Job> jobs_;
  std::unique_ptr<TrialLog> log_;
  size_t from_log_ = 0;  ///< Runs finished in earlier sessions.
  int threads_ = 1;
  bool stopped_ = false;  ///< Interrupted (Ctrl-C).
  double wall_ = 0;
  std::vector<double> ref_;  ///< Reference cost per layer.
  std::vector<int> beat_exact_;
  int total_beats_ = 0;
  /// med_[layer][searcher]: medians over seeds.
  std::map<std::string, std::map<std::string, nlohmann::json>> med_;
  BootstrapSettings boot_;  ///< The suite's bootstrap settings.
  /// cells_[searcher][layer]: the searcher's runs on the layer and their statistics.
  std::map<std::string, std::vector<Cell>> cells_;
  std::map<std::string, SearcherFigures> figures_;  ///< Per searcher, over all layers.
  std::vector<std::string> layer_svgs_;  ///< Per layer, its median-curve plot ("" = none).
  std::string gap_svg_;                  ///< The gap-to-optimum plot ("" = none).
  bool plotted_ = true;
};

}  // namespace

// load_study_suite lives in study_suite.cpp (a small unit the fuzz target compiles).

int cmd_study(const StudyOptions& o, std::ostream& out) {
  // Under mpirun, ranks other than 0 compute searcher runs for rank 0 (dist.hpp).
  if (dist::size() > 1 && dist::rank() != 0) return StudyRun(o).serve();
  return StudyRun(o).run(out);
}

}  // namespace mapwright::flows
