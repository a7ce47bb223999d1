// The study flow: runs searchers x seeds x layers on the surrogate in a thread pool, builds the
// per-layer reference best, and reports samples-to-target and iso-sample costs (medians over
// seeds), headline ratios (MARL vs each baseline), CSVs and gnuplot SVG plots.
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

#include "mapwright/core/error.hpp"
#include "mapwright/core/stats.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/yaml_util.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "common/text.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"
#include "common/process.hpp"
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
    const nlohmann::json head = headline(), gaps = gaps_to_optimum();
    const nlohmann::json summary = summary_json(head, gaps);
    write_atomic(dir_ / "study.json", summary.dump(2) + "\n");
    if (o_.json)
      out << summary.dump(2) << "\n";
    else
      print(head, gaps, out);
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
          j.budget = suite_.budget;
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

  /// One searcher run (in a pool thread); records it in the trial log when it finished.
  void run_job(Job& j, const std::function<bool()>& stopping) {
    const auto s = std::chrono::steady_clock::now();
    // Each run gets a seed derived from (seed, layer, searcher) so runs are independent.
    const uint64_t seed = j.seed * 1000003ULL + j.layer * 101ULL +
                          static_cast<uint64_t>(std::hash<std::string>{}(j.searcher) % 97);
    LayerSearch ls =
        search_layer(layers_[j.layer], arch_, j.searcher, sopts_, seed, j.budget, objective_,
                     [&](const search::SearchProgress&) { return !stopping(); });
    j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    j.curve = std::move(ls.result.best_so_far);
    // A run that used up what its searcher can propose keeps its best for the rest of the
    // budget (it cannot find anything new). The exact mapper has one answer, held from its
    // first "sample" on.
    if ((ls.result.exhausted || j.searcher == "exact") && !j.curve.empty())
      j.curve.resize(static_cast<size_t>(j.budget), j.curve.back());
    j.duplicates = ls.result.duplicates;
    j.invalid = ls.result.invalid;
    j.best = ls.result.found ? ls.result.best_cost : std::numeric_limits<double>::infinity();
    j.done = !ls.result.stopped_early;
    if (j.done) log_->append(j);
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

  /// Samples a run needed to come within `pct` % of its layer's reference (budget + 1 when it
  /// did not: censored).
  double samples_to(const Job& j, double pct, bool& reached) const {
    const double target = ref_[j.layer] * (1 + pct / 100.0);
    for (size_t i = 0; i < j.curve.size(); ++i)
      if (j.curve[i] <= target) {
        reached = true;
        return static_cast<double>(i + 1);
      }
    reached = false;
    return static_cast<double>(j.budget + 1);
  }

  /// A run's best cost after `b` samples relative to the reference.
  double cost_at(const Job& j, int64_t b) const {
    return j.curve.size() >= static_cast<size_t>(b) ? j.curve[b - 1] / ref_[j.layer]
                                                    : std::numeric_limits<double>::infinity();
  }

  void write_runs_csv() const {
    std::ostringstream f;
    f << "layer,searcher,seed,reference,budget,finished,seconds,invalid,duplicates,best_cost,"
         "best_over_ref";
    for (double t : suite_.targets_pct) f << ",samples_to_" << t << "pct";
    for (auto b : suite_.iso_budgets) f << ",cost_ratio_at_" << b;
    f << "\n";
    for (const auto& j : jobs_) {
      f << layers_[j.layer].name << "," << j.searcher << "," << j.seed << "," << j.reference << ","
        << j.budget << "," << j.done << "," << j.seconds << "," << j.invalid << "," << j.duplicates
        << "," << j.best << "," << j.best / ref_[j.layer];
      for (double t : suite_.targets_pct) {
        bool reached = false;
        const double s = samples_to(j, t, reached);
        f << "," << (reached ? std::to_string(static_cast<long long>(s)) : std::string(""));
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

  /// One searcher's medians over seeds on one layer (JSON), and its summary.csv row.
  nlohmann::json searcher_medians(const std::string& layer, const std::string& k,
                                  const std::vector<const Job*>& runs, std::ostream& sf) const {
    nlohmann::json e;
    e["seeds"] = runs.size();
    sf << layer << "," << k << "," << runs.size();
    for (double t : suite_.targets_pct) {
      std::vector<double> v;
      int reached = 0;
      for (const Job* j : runs) {
        bool r = false;
        v.push_back(samples_to(*j, t, r));
        reached += r;
      }
      const double m = median(v);
      const bool ok = reached * 2 > static_cast<int>(v.size());  // median is not censored
      e["samples_to_" + std::to_string(static_cast<int>(t)) + "pct"] = m;
      e["reached_" + std::to_string(static_cast<int>(t)) + "pct"] = reached;
      e["median_reached_" + std::to_string(static_cast<int>(t)) + "pct"] = ok;
      sf << ","
         << (ok ? std::to_string(static_cast<long long>(m)) : ">" + std::to_string(suite_.budget))
         << "," << reached;
    }
    for (auto b : suite_.iso_budgets) {
      std::vector<double> v;
      for (const Job* j : runs) v.push_back(cost_at(*j, b));
      const double m = median(v);
      e["cost_ratio_at_" + std::to_string(b)] = m;
      sf << "," << m;
    }
    sf << "\n";
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

  /// Per (layer, searcher) medians over seeds (summary.csv, med_), median curves (curves/) and
  /// their plots (plots/).
  void summarize_layers() {
    std::ostringstream sf;
    sf << "layer,searcher,seeds";
    for (double t : suite_.targets_pct)
      sf << ",median_samples_to_" << t << "pct,reached_" << t << "pct";
    for (auto b : suite_.iso_budgets) sf << ",median_cost_ratio_at_" << b;
    sf << "\n";
    for (size_t li = 0; li < layers_.size(); ++li) {
      auto by = runs_of(li);
      const std::string stem = std::to_string(li) + "_" + safe_name(layers_[li].name);
      write_atomic(dir_ / "curves" / (stem + ".csv"), median_curves(li, by));
      for (const auto& k : suite_.searchers)
        med_[layers_[li].name][k] = searcher_medians(layers_[li].name, k, by[k], sf);
      write_atomic(dir_ / "plots" / (std::to_string(li) + ".gp"), layer_plot(li));
    }
    write_atomic(dir_ / "summary.csv", sf.str());
    for (size_t li = 0; li < layers_.size(); ++li) {
      const std::string stem = std::to_string(li) + "_" + safe_name(layers_[li].name);
      plotted_ = !gnuplot_svg(dir_ / "plots" / (std::to_string(li) + ".gp"),
                              dir_ / "plots" / (stem + ".svg"))
                      .empty() &&
                 plotted_;
    }
  }

  /// Headline ratios of every searcher against MARL (when the suite has it).
  nlohmann::json headline() {
    nlohmann::json head;
    if (std::find(suite_.searchers.begin(), suite_.searchers.end(), "marl") ==
        suite_.searchers.end())
      return head;
    for (const auto& k : suite_.searchers) {
      if (k == "marl") continue;
      std::vector<double> s2t;
      int lower_bounds = 0;
      for (const auto& l : layers_) {
        const auto& a = med_[l.name]["marl"];
        const auto& b = med_[l.name][k];
        if (!a["median_reached_5pct"].get<bool>()) continue;  // MARL did not reach: no ratio
        s2t.push_back(b["samples_to_5pct"].get<double>() / a["samples_to_5pct"].get<double>());
        lower_bounds += !b["median_reached_5pct"].get<bool>();
      }
      nlohmann::json e;
      e["median_samples_to_5pct_ratio"] =
          s2t.empty() ? nlohmann::json() : nlohmann::json(median(s2t));
      e["layers_with_ratio"] = s2t.size();
      e["ratios_that_are_lower_bounds"] = lower_bounds;
      for (auto b : suite_.iso_budgets) {
        double lg = 0;
        int n = 0;
        for (const auto& l : layers_) {
          const double x = med_[l.name][k]["cost_ratio_at_" + std::to_string(b)].get<double>();
          const double y = med_[l.name]["marl"]["cost_ratio_at_" + std::to_string(b)].get<double>();
          if (std::isfinite(x) && std::isfinite(y)) {
            lg += std::log(x / y);
            ++n;
          }
        }
        e["geomean_cost_ratio_vs_marl_at_" + std::to_string(b)] = n ? std::exp(lg / n) : 0.0;
      }
      head[k] = e;
    }
    return head;
  }

  /// Gap to the optimum per searcher: geometric mean over layers of the median (over seeds)
  /// best / optimum at each iso budget, minus 1.
  nlohmann::json gaps_to_optimum() {
    nlohmann::json gaps = nlohmann::json::object();
    for (const auto& k : suite_.searchers) {
      for (auto b : suite_.iso_budgets) {
        double lg = 0;
        int n = 0;
        for (const auto& l : layers_) {
          const double x = med_[l.name][k]["cost_ratio_at_" + std::to_string(b)].get<double>();
          if (std::isfinite(x) && x > 0) {
            lg += std::log(x);
            ++n;
          }
        }
        gaps[k]["gap_to_optimum_at_" + std::to_string(b)] =
            n ? nlohmann::json(std::exp(lg / n) - 1) : nlohmann::json();
      }
    }
    return gaps;
  }

  nlohmann::json summary_json(const nlohmann::json& head, const nlohmann::json& gaps) {
    nlohmann::json summary;
    summary["gap_to_optimum"] = gaps;
    summary["suite"] = suite_.name;
    summary["suite_file"] = o_.suite;
    summary["arch"] = arch_.name;
    summary["objective"] = suite_.objective;
    summary["searchers"] = suite_.searchers;
    summary["seeds"] = suite_.seeds;
    summary["budget"] = suite_.budget;
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
    summary["vs_marl"] = head;
    summary["note"] =
        "The reference of every layer is its optimum (exact mapper); cost ratios are best / "
        "optimum (1 = optimal). median_samples_to_5pct_ratio = median over layers of (searcher's "
        "median samples to reach within 5% of the optimum) / (MARL's); a searcher that did not "
        "reach the target counts as budget+1 (the ratio is then a lower bound). "
        "geomean_cost_ratio_vs_marl_at_B > 1 means MARL found the lower cost at B samples.";
    summary["runs_from_earlier_sessions"] = from_log_;
    return summary;
  }

  /// The table a user reads after `mapwright study`.
  void print(const nlohmann::json& head, const nlohmann::json& gaps, std::ostream& out) {
    out << "study " << suite_.name << ": " << layers_.size() << " layers x "
        << suite_.searchers.size() << " searchers x " << suite_.seeds.size() << " seeds, budget "
        << suite_.budget << ", measured against each layer's optimum (exact mapper, " << std::fixed
        << std::setprecision(1) << exact_seconds_ << " s for all layers), " << std::setprecision(0)
        << wall_ << " s of sampling on " << threads_ << " threads\n"
        << std::defaultfloat;
    out << std::left << std::setw(24) << "layer" << std::right;
    for (const auto& k : suite_.searchers) out << std::setw(12) << k;
    out << "   (median samples to within 5% of the optimum; >B = not reached)\n";
    for (const auto& l : layers_) {
      out << std::left << std::setw(24) << l.name.substr(0, 23) << std::right;
      for (const auto& k : suite_.searchers) {
        const auto& e = med_[l.name][k];
        out << std::setw(12)
            << (e["median_reached_5pct"].get<bool>()
                    ? std::to_string(static_cast<long long>(e["samples_to_5pct"].get<double>()))
                    : ">" + std::to_string(suite_.budget));
      }
      out << "\n";
    }
    for (const auto& [k, e] : head.items()) {
      out << k << " vs marl: median samples-to-5% ratio "
          << (e["median_samples_to_5pct_ratio"].is_null()
                  ? std::string("n/a")
                  : std::to_string(e["median_samples_to_5pct_ratio"].get<double>()))
          << " (" << e["ratios_that_are_lower_bounds"].get<int>() << " of "
          << e["layers_with_ratio"].get<size_t>() << " are lower bounds)";
      for (auto b : suite_.iso_budgets)
        out << "; cost ratio @" << b << " " << std::fixed << std::setprecision(3)
            << e["geomean_cost_ratio_vs_marl_at_" + std::to_string(b)].get<double>()
            << std::defaultfloat;
      out << "\n";
    }
    out << "gap to the optimum (geometric mean over layers of the median best/optimum - 1):\n";
    for (const auto& k : suite_.searchers) {
      out << "  " << std::left << std::setw(8) << k << std::right;
      for (auto b : suite_.iso_budgets) {
        const auto& g = gaps[k]["gap_to_optimum_at_" + std::to_string(b)];
        out << "  @" << b << " "
            << (g.is_null() ? std::string("n/a")
                            : fmt_g(std::round(1000 * 100 * g.get<double>()) / 1000) + " %");
      }
      out << "\n";
    }
    out << "sampled runs that beat the exact mapper: " << total_beats_ << "\n";
    out << "written to " << dir_.string() << " (runs.csv, summary.csv, study.json, curves/, plots/"
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
  bool plotted_ = true;
};

}  // namespace

// load_study_suite lives in study_suite.cpp (a small unit the fuzz target compiles).

int cmd_study(const StudyOptions& o, std::ostream& out) {
  return StudyRun(o).run(out);
}

}  // namespace mapwright::flows
