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
#include "flows_util.hpp"
#include "study_store.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

using core::median;

/// One searcher run of the study: what it is, and once finished (`done`), what it found.
struct Job : Trial {
  bool done = false;  ///< Finished (not interrupted), here or in an earlier session.
};

}  // namespace

// load_study_suite lives in study_suite.cpp (a small unit the fuzz target compiles).

int cmd_study(const StudyOptions& o, std::ostream& out) {
  StudySuite suite = load_study_suite(o.suite);
  if (!o.options_file.empty()) suite.options_file = o.options_file;
  const Arch arch = load_arch(suite.arch);
  const Objective objective = parse_objective(suite.objective, o.suite);
  const search::SearchOptions sopts = load_options_or_default(suite.options_file);
  std::vector<Layer> layers;
  // Every layer needs its own name: the summaries are keyed by it. An inline layer is named
  // after its spec (file-name safe: no commas for the CSVs); a name given twice gets #index.
  std::map<std::string, int> seen;
  for (size_t li = 0; li < suite.layers.size(); ++li) {
    Layer l = parse_layer_arg(suite.layers[li], o.suite);
    if (l.name == "inline") l.name = safe_name(suite.layers[li]);
    if (seen[l.name]++ > 0) l.name += "#" + std::to_string(li);
    layers.push_back(l);
  }
  const fs::path dir = o.out_dir.empty() ? fs::path("runs") / ("study-" + safe_name(suite.name))
                                         : fs::path(o.out_dir);
  const FolderLock folder_lock(dir, "--out");  // one process per study folder
  remove_stale_temporaries(dir);               // left by a process killed in the middle of a write
  make_output_dir(dir / "curves");             // fails here, before any work, when unwritable
  make_output_dir(dir / "plots");
  // What makes the study: the suite file, the options and the architecture. A resumed study
  // must have the same.
  const std::string print = fingerprint(read_text(o.suite) + "\n--\n" +
                                        search::to_json(sopts).dump() + "\n--\n" + arch.name);
  const fs::path state_file = dir / "study-state.json";
  nlohmann::json state;
  if (fs::exists(state_file)) {
    if (!o.resume)
      throw SpecError("--out", "out", dir.string(),
                      "already holds a study (study-state.json); add --resume to continue it or "
                      "choose another --out");
    try {
      state = nlohmann::json::parse(read_text(state_file));
    } catch (const nlohmann::json::exception& e) {
      throw SpecError(state_file.string(), "(json)", "", e.what());
    }
    if (!state.is_object() || state.value("fingerprint", "") != print)
      throw SpecError(state_file.string(), "fingerprint",
                      state.is_object() ? state.value("fingerprint", "") : "",
                      "the suite, its options or its architecture changed since this study "
                      "started (now " +
                          print + "); start it in another --out");
  } else if (fs::exists(dir / "trials.jsonl")) {
    throw SpecError("--out", "out", dir.string(),
                    "has trials.jsonl but no study-state.json: not a study folder this "
                    "version can resume; choose another --out");
  }
  const bool resuming = !state.is_null();

  // The reference of every layer: its optimum, proven by the exact mapper (or, if the time
  // limit stops it, the best mapping found with the lower bound it has proven).
  struct Optimum {
    bool found = false;     ///< A valid mapping exists.
    double cost = 0;        ///< Best cost found by the exact mapper.
    nlohmann::json record;  ///< Bound, gap, optimal, effort.
  };
  std::vector<Optimum> optimum(layers.size());
  const auto t_exact = std::chrono::steady_clock::now();
  double exact_seconds = 0;
  if (resuming) {
    // The optimum as the first session found it (a time-limited exact search is not repeatable).
    const auto& so = state.at("optimum");
    if (!so.is_array() || so.size() != layers.size())
      throw SpecError(state_file.string(), "optimum", "", "must list one record per layer");
    for (size_t li = 0; li < layers.size(); ++li) {
      optimum[li].found = so[li].at("found").get<bool>();
      optimum[li].cost = so[li].at("cost").get<double>();
      optimum[li].record = so[li].at("record");
    }
    exact_seconds = state.at("exact_seconds").get<double>();
  } else {
    ExactOptions ex;
    ex.time_limit_s = suite.reference_time_limit_s;
    ex.gap = suite.reference_gap;
    ex.threads = o.jobs;
    for (size_t li = 0; li < layers.size(); ++li) {
      LayerSearch ls = search_layer(layers[li], arch, "exact", sopts, 0, 1, objective, {}, {}, ex);
      optimum[li].found = ls.result.found;
      optimum[li].cost = ls.result.found ? ls.result.best_cost : 0;
      optimum[li].record = ls.exact;
      if (ls.result.found) optimum[li].record["cost"] = ls.result.best_cost;
    }
    exact_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_exact).count();
    state = {{"format", 1},
             {"fingerprint", print},
             {"suite_file", o.suite},
             {"exact_seconds", exact_seconds},
             {"optimum", nlohmann::json::array()}};
    for (const auto& op : optimum)
      state["optimum"].push_back({{"found", op.found}, {"cost", op.cost}, {"record", op.record}});
    write_atomic(state_file, state.dump(2) + "\n");
  }

  std::vector<Job> jobs;
  for (size_t li = 0; li < layers.size(); ++li) {
    for (const auto& k :
         suite.reference_multiplier > 0 ? suite.reference_searchers : std::vector<std::string>{}) {
      Job r;
      r.layer = li;
      r.searcher = k;
      r.seed = suite.reference_seed;
      r.budget = suite.budget * suite.reference_multiplier;
      r.reference = true;
      jobs.push_back(r);
    }
    for (const auto& k : suite.searchers) {
      for (uint64_t seed : suite.seeds) {
        Job j;
        j.layer = li;
        j.searcher = k;
        j.seed = seed;
        j.budget = suite.budget;
        jobs.push_back(j);
      }
    }
  }
  // Runs finished in earlier sessions come from the trial log; the others are run now.
  TrialLog log(dir / "trials.jsonl");
  if (log.dropped_torn_line())
    std::cerr << "study: dropped a trial record cut short by an earlier crash; its run is "
                 "repeated\n";
  size_t from_log = 0;
  {
    std::map<decltype(Trial().key()), const Trial*> have;
    for (const Trial& t : log.loaded()) have[t.key()] = &t;
    for (Job& j : jobs) {
      const auto it = have.find(j.key());
      if (it == have.end()) continue;
      static_cast<Trial&>(j) = *it->second;
      j.done = true;
      ++from_log;
    }
  }
  // Longest first, so the pool ends together.
  std::vector<size_t> order;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!jobs[i].done) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs[a].budget > jobs[b].budget; });

  const int threads = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const bool tty = isatty(STDERR_FILENO);
  std::atomic<size_t> finished{from_log};
  std::mutex io;
  std::string write_error;  // the first failure to record a trial (a full disk): stops the study
  std::atomic<bool> write_failed{false};
  std::optional<InterruptSignals> signals(std::in_place);
  auto stopping = [&] { return write_failed || InterruptSignals::count() > 0; };
  const auto t0 = std::chrono::steady_clock::now();
  {
    boost::asio::thread_pool pool(threads);
    for (size_t idx : order) {
      boost::asio::post(pool, [&, idx] {
        Job& j = jobs[idx];
        if (stopping()) return;
        const auto s = std::chrono::steady_clock::now();
        // Each run gets a seed derived from (seed, layer, searcher) so runs are independent.
        const uint64_t seed = j.seed * 1000003ULL + j.layer * 101ULL +
                              static_cast<uint64_t>(std::hash<std::string>{}(j.searcher) % 97);
        LayerSearch ls =
            search_layer(layers[j.layer], arch, j.searcher, sopts, seed, j.budget, objective,
                         [&](const search::SearchProgress&) { return !stopping(); });
        j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
        j.curve = std::move(ls.result.best_so_far);
        // A run that used up what its searcher can propose keeps its best for the rest of the
        // budget (it cannot find anything new).
        // The exact mapper has one answer, held from its first "sample" on.
        if ((ls.result.exhausted || j.searcher == "exact") && !j.curve.empty())
          j.curve.resize(static_cast<size_t>(j.budget), j.curve.back());
        j.duplicates = ls.result.duplicates;
        j.invalid = ls.result.invalid;
        j.best = ls.result.found ? ls.result.best_cost : std::numeric_limits<double>::infinity();
        j.done = !ls.result.stopped_early;
        if (j.done) {
          try {
            log.append(j);
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(io);
            if (write_error.empty()) write_error = e.what();
            write_failed = true;
            return;
          }
        }
        const size_t f = ++finished;
        if (tty) {
          std::lock_guard<std::mutex> lock(io);
          std::cerr << "\rstudy " << suite.name << ": " << f << "/" << jobs.size() << " runs   "
                    << std::flush;
        }
      });
    }
    pool.join();
  }
  const bool stopped = stopping();
  signals.reset();
  if (!write_error.empty())
    throw SpecError(dir.string(), "(trials)", "",
                    "cannot record a finished run (" + write_error +
                        "); the runs recorded so far "
                        "are kept: free space and continue with `mapwright study --resume`");
  if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r";
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Reference per layer: the exact mapper's answer. A finished sampled run that beat it would
  // mean the exact mapper is wrong (or stopped at its time limit with a gap): it is counted,
  // reported, and then taken as the reference so that no ratio falls below 1.
  std::vector<double> ref(layers.size(), std::numeric_limits<double>::infinity());
  std::vector<int> beat_exact(layers.size(), 0);
  for (size_t li = 0; li < layers.size(); ++li)
    if (optimum[li].found) ref[li] = optimum[li].cost;
  for (const auto& j : jobs)
    if (j.done && j.best < ref[j.layer]) ++beat_exact[j.layer];
  for (const auto& j : jobs)
    if (j.done) ref[j.layer] = std::min(ref[j.layer], j.best);

  auto samples_to = [&](const Job& j, double pct, bool& reached) -> double {
    const double target = ref[j.layer] * (1 + pct / 100.0);
    for (size_t i = 0; i < j.curve.size(); ++i)
      if (j.curve[i] <= target) {
        reached = true;
        return static_cast<double>(i + 1);
      }
    reached = false;
    return static_cast<double>(j.budget + 1);  // censored
  };
  auto cost_at = [&](const Job& j, int64_t b) {
    return j.curve.size() >= static_cast<size_t>(b) ? j.curve[b - 1] / ref[j.layer]
                                                    : std::numeric_limits<double>::infinity();
  };

  // runs.csv
  {
    std::ostringstream f;
    f << "layer,searcher,seed,reference,budget,finished,seconds,invalid,duplicates,best_cost,"
         "best_over_ref";
    for (double t : suite.targets_pct) f << ",samples_to_" << t << "pct";
    for (auto b : suite.iso_budgets) f << ",cost_ratio_at_" << b;
    f << "\n";
    for (const auto& j : jobs) {
      f << layers[j.layer].name << "," << j.searcher << "," << j.seed << "," << j.reference << ","
        << j.budget << "," << j.done << "," << j.seconds << "," << j.invalid << "," << j.duplicates
        << "," << j.best << "," << j.best / ref[j.layer];
      for (double t : suite.targets_pct) {
        bool reached = false;
        const double s = samples_to(j, t, reached);
        f << "," << (reached ? std::to_string(static_cast<long long>(s)) : std::string(""));
      }
      for (auto b : suite.iso_budgets) f << "," << cost_at(j, b);
      f << "\n";
    }
    write_atomic(dir / "runs.csv", f.str());
  }

  // Per (layer, searcher) medians over seeds, and normalized median curves for the plots.
  nlohmann::json summary;
  std::ostringstream sf;
  sf << "layer,searcher,seeds";
  for (double t : suite.targets_pct)
    sf << ",median_samples_to_" << t << "pct,reached_" << t << "pct";
  for (auto b : suite.iso_budgets) sf << ",median_cost_ratio_at_" << b;
  sf << "\n";
  // med[layer][searcher] -> values
  std::map<std::string, std::map<std::string, nlohmann::json>> med;
  for (size_t li = 0; li < layers.size(); ++li) {
    std::ostringstream cf;
    cf << "sample";
    for (const auto& k : suite.searchers) cf << "," << k;
    cf << "\n";
    std::map<std::string, std::vector<const Job*>> by;
    for (const auto& j : jobs)
      if (j.layer == li && !j.reference && j.done) by[j.searcher].push_back(&j);
    for (int64_t i = 0; i < suite.budget; ++i) {
      // Log-spaced rows keep the file small.
      if (i > 50 && (i + 1) % std::max<int64_t>(1, (i + 1) / 50) != 0 && i + 1 != suite.budget)
        continue;
      cf << (i + 1);
      for (const auto& k : suite.searchers) {
        std::vector<double> v;
        for (const Job* j : by[k])
          if (static_cast<int64_t>(j->curve.size()) > i && std::isfinite(j->curve[i]))
            v.push_back(j->curve[i] / ref[li]);
        cf << "," << (v.size() == by[k].size() && !v.empty() ? std::to_string(median(v)) : "");
      }
      cf << "\n";
    }
    write_atomic(dir / "curves" / (std::to_string(li) + "_" + safe_name(layers[li].name) + ".csv"),
                 cf.str());
    for (const auto& k : suite.searchers) {
      nlohmann::json e;
      e["seeds"] = by[k].size();
      sf << layers[li].name << "," << k << "," << by[k].size();
      for (double t : suite.targets_pct) {
        std::vector<double> v;
        int reached = 0;
        for (const Job* j : by[k]) {
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
           << (ok ? std::to_string(static_cast<long long>(m)) : ">" + std::to_string(suite.budget))
           << "," << reached;
      }
      for (auto b : suite.iso_budgets) {
        std::vector<double> v;
        for (const Job* j : by[k]) v.push_back(cost_at(*j, b));
        const double m = median(v);
        e["cost_ratio_at_" + std::to_string(b)] = m;
        sf << "," << m;
      }
      sf << "\n";
      med[layers[li].name][k] = e;
    }
    // Plot this layer. gnuplot runs inside plots/, so the script names its files relative to
    // it; the layer name (user text) only appears as a quoted gnuplot string.
    const std::string stem = std::to_string(li) + "_" + safe_name(layers[li].name);
    std::ostringstream gp;
    gp << "set terminal svg size 720,420 dynamic font 'sans,12'\n"
       << "set output " << gp_quote(stem + ".svg") << "\n"
       << "set datafile separator ','\nset logscale x\nset logscale y\nset key top right\n"
       << "set xlabel 'samples'\nset ylabel "
       << gp_quote("best cost / optimum (median of " + std::to_string(suite.seeds.size()) +
                   " seeds)")
       << "\nset title "
       << gp_quote(layers[li].name + " (" + suite.objective + ", " + arch.name + ")")
       << " noenhanced\nset grid\n";
    gp << "plot ";
    for (size_t k = 0; k < suite.searchers.size(); ++k)
      gp << (k ? ", " : "") << gp_quote("../curves/" + stem + ".csv") << " using 1:" << (k + 2)
         << " with lines lw 2 title " << gp_quote(suite.searchers[k]) << " noenhanced";
    gp << "\n";
    write_atomic(dir / "plots" / (std::to_string(li) + ".gp"), gp.str());
  }
  write_atomic(dir / "summary.csv", sf.str());
  bool plotted = true;
  for (size_t li = 0; li < layers.size(); ++li) {
    const std::string stem = std::to_string(li) + "_" + safe_name(layers[li].name);
    plotted =
        !gnuplot_svg(dir / "plots" / (std::to_string(li) + ".gp"), dir / "plots" / (stem + ".svg"))
             .empty() &&
        plotted;
  }

  // Headline ratios against MARL.
  nlohmann::json head;
  const bool have_marl =
      std::find(suite.searchers.begin(), suite.searchers.end(), "marl") != suite.searchers.end();
  if (have_marl) {
    for (const auto& k : suite.searchers) {
      if (k == "marl") continue;
      std::vector<double> s2t;
      int lower_bounds = 0;
      for (const auto& l : layers) {
        const auto& a = med[l.name]["marl"];
        const auto& b = med[l.name][k];
        if (!a["median_reached_5pct"].get<bool>()) continue;  // MARL did not reach: no ratio
        s2t.push_back(b["samples_to_5pct"].get<double>() / a["samples_to_5pct"].get<double>());
        lower_bounds += !b["median_reached_5pct"].get<bool>();
      }
      nlohmann::json e;
      e["median_samples_to_5pct_ratio"] =
          s2t.empty() ? nlohmann::json() : nlohmann::json(median(s2t));
      e["layers_with_ratio"] = s2t.size();
      e["ratios_that_are_lower_bounds"] = lower_bounds;
      for (auto b : suite.iso_budgets) {
        double lg = 0;
        int n = 0;
        for (const auto& l : layers) {
          const double x = med[l.name][k]["cost_ratio_at_" + std::to_string(b)].get<double>();
          const double y = med[l.name]["marl"]["cost_ratio_at_" + std::to_string(b)].get<double>();
          if (std::isfinite(x) && std::isfinite(y)) {
            lg += std::log(x / y);
            ++n;
          }
        }
        e["geomean_cost_ratio_vs_marl_at_" + std::to_string(b)] = n ? std::exp(lg / n) : 0.0;
      }
      head[k] = e;
    }
  }
  // Gap to the optimum per searcher: geometric mean over layers of the median (over seeds)
  // best / optimum at each iso budget, minus 1.
  nlohmann::json gaps = nlohmann::json::object();
  for (const auto& k : suite.searchers) {
    for (auto b : suite.iso_budgets) {
      double lg = 0;
      int n = 0;
      for (const auto& l : layers) {
        const double x = med[l.name][k]["cost_ratio_at_" + std::to_string(b)].get<double>();
        if (std::isfinite(x) && x > 0) {
          lg += std::log(x);
          ++n;
        }
      }
      gaps[k]["gap_to_optimum_at_" + std::to_string(b)] =
          n ? nlohmann::json(std::exp(lg / n) - 1) : nlohmann::json();
    }
  }
  summary["gap_to_optimum"] = gaps;
  summary["suite"] = suite.name;
  summary["suite_file"] = o.suite;
  summary["arch"] = arch.name;
  summary["objective"] = suite.objective;
  summary["searchers"] = suite.searchers;
  summary["seeds"] = suite.seeds;
  summary["budget"] = suite.budget;
  summary["reference"] = "exact mapper (proven optimum, or the best found with its proven gap)";
  summary["reference_time_limit_s"] = suite.reference_time_limit_s;
  summary["reference_gap_target"] = suite.reference_gap;
  summary["exact_seconds"] = exact_seconds;
  summary["optimum"] = nlohmann::json::object();
  int total_beats = 0;
  for (size_t li = 0; li < layers.size(); ++li) {
    nlohmann::json rec = optimum[li].record;
    rec["sampled_runs_that_beat_it"] = beat_exact[li];
    total_beats += beat_exact[li];
    summary["optimum"][layers[li].name] = rec;
  }
  summary["sampled_runs_that_beat_the_exact_mapper"] = total_beats;
  summary["reference_budget"] = suite.budget * suite.reference_multiplier;
  summary["reference_seed"] = suite.reference_seed;
  summary["reference_searchers"] = suite.reference_searchers;
  summary["options_file"] = suite.options_file.empty() ? "(built-in defaults)" : suite.options_file;
  summary["options"] = search::to_json(sopts);
  summary["threads"] = threads;
  summary["wall_seconds"] = wall;
  summary["interrupted"] = stopped;
  summary["layers"] = med;
  summary["reference_cost"] = nlohmann::json::object();
  for (size_t li = 0; li < layers.size(); ++li)
    summary["reference_cost"][layers[li].name] = ref[li];
  summary["vs_marl"] = head;
  summary["note"] =
      "The reference of every layer is its optimum (exact mapper); cost ratios are best / optimum "
      "(1 = optimal). median_samples_to_5pct_ratio = median over layers of (searcher's median "
      "samples to reach within 5% of the optimum) / (MARL's); a searcher that did not reach the "
      "target counts as "
      "budget+1 (the ratio is then a lower bound). geomean_cost_ratio_vs_marl_at_B > 1 means MARL "
      "found the lower cost at B samples.";
  summary["runs_from_earlier_sessions"] = from_log;
  write_atomic(dir / "study.json", summary.dump(2) + "\n");

  if (o.json) {
    out << summary.dump(2) << "\n";
  } else {
    out << "study " << suite.name << ": " << layers.size() << " layers x " << suite.searchers.size()
        << " searchers x " << suite.seeds.size() << " seeds, budget " << suite.budget
        << ", measured against each layer's optimum (exact mapper, " << std::fixed
        << std::setprecision(1) << exact_seconds << " s for all layers), " << std::setprecision(0)
        << wall << " s of sampling on " << threads << " threads\n"
        << std::defaultfloat;
    out << std::left << std::setw(24) << "layer" << std::right;
    for (const auto& k : suite.searchers) out << std::setw(12) << k;
    out << "   (median samples to within 5% of the optimum; >B = not reached)\n";
    for (const auto& l : layers) {
      out << std::left << std::setw(24) << l.name.substr(0, 23) << std::right;
      for (const auto& k : suite.searchers) {
        const auto& e = med[l.name][k];
        out << std::setw(12)
            << (e["median_reached_5pct"].get<bool>()
                    ? std::to_string(static_cast<long long>(e["samples_to_5pct"].get<double>()))
                    : ">" + std::to_string(suite.budget));
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
      for (auto b : suite.iso_budgets)
        out << "; cost ratio @" << b << " " << std::fixed << std::setprecision(3)
            << e["geomean_cost_ratio_vs_marl_at_" + std::to_string(b)].get<double>()
            << std::defaultfloat;
      out << "\n";
    }
    out << "gap to the optimum (geometric mean over layers of the median best/optimum - 1):\n";
    for (const auto& k : suite.searchers) {
      out << "  " << std::left << std::setw(8) << k << std::right;
      for (auto b : suite.iso_budgets) {
        const auto& g = gaps[k]["gap_to_optimum_at_" + std::to_string(b)];
        out << "  @" << b << " "
            << (g.is_null() ? std::string("n/a")
                            : fmt_g(std::round(1000 * 100 * g.get<double>()) / 1000) + " %");
      }
      out << "\n";
    }
    out << "sampled runs that beat the exact mapper: " << total_beats << "\n";
    out << "written to " << dir.string() << " (runs.csv, summary.csv, study.json, curves/, plots/"
        << (plotted ? "" : " [gnuplot failed or missing: no SVG]") << ")\n";
  }
  if (stopped && !o.json)
    out << "interrupted: continue with `mapwright study --suite " << o.suite << " --out "
        << dir.string() << " --resume`\n";
  return stopped ? 130 : 0;
}

}  // namespace mapwright::flows
