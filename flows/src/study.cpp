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
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/yaml_util.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "flows_util.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_sigint(int) { g_stop = 1; }

template <typename T>
std::vector<T> get_list(const YAML::Node& root, const std::string& key, const std::string& where,
                        bool required) {
  std::vector<T> out;
  const YAML::Node n = root[key];
  if (!n) {
    if (required) throw SpecError(where, key, "", "required key is missing");
    return out;
  }
  if (!n.IsSequence() || n.size() == 0)
    throw SpecError(where, key, node_text(n), "expected a non-empty list");
  for (size_t i = 0; i < n.size(); ++i) {
    try {
      out.push_back(n[i].as<T>());
    } catch (const YAML::Exception&) {
      throw SpecError(where, key + "[" + std::to_string(i) + "]", node_text(n[i]),
                      "wrong type");
    }
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Job {
  size_t layer = 0;         ///< Index into the suite's layers.
  std::string searcher;     ///< Kind.
  uint64_t seed = 0;        ///< Seed.
  int64_t budget = 0;       ///< Samples.
  bool reference = false;   ///< Reference (long) run.
  bool done = false;        ///< Finished (not interrupted).
  std::vector<double> curve;  ///< Best-so-far.
  double best = std::numeric_limits<double>::infinity();  ///< Best cost.
  double seconds = 0;       ///< Wall time.
};

}  // namespace

StudySuite load_study_suite(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "",
             {"name", "description", "arch", "objective", "options", "searchers", "seeds",
              "budget", "iso_budgets", "targets_pct", "reference", "layers"});
  StudySuite s;
  s.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  s.arch = get_string(root, "arch", path, "", s.arch);
  s.objective = get_string(root, "objective", path, "", s.objective);
  parse_objective(s.objective, path);
  s.options_file = get_string(root, "options", path, "", "");
  s.searchers = get_list<std::string>(root, "searchers", path, true);
  for (const auto& k : s.searchers) require_searcher_kind(k, path + ": searchers");
  s.seeds = get_list<uint64_t>(root, "seeds", path, true);
  s.budget = get_int(root, "budget", path, "", s.budget);
  if (s.budget <= 0) throw SpecError(path, "budget", std::to_string(s.budget), "must be positive");
  s.iso_budgets = get_list<int64_t>(root, "iso_budgets", path, false);
  if (s.iso_budgets.empty()) s.iso_budgets = {s.budget};
  for (auto b : s.iso_budgets)
    if (b <= 0 || b > s.budget)
      throw SpecError(path, "iso_budgets", std::to_string(b), "must be between 1 and budget");
  s.targets_pct = get_list<double>(root, "targets_pct", path, false);
  if (s.targets_pct.empty()) s.targets_pct = {5, 10};
  // The headline ratios are samples to within 5 %: that target must be measured.
  if (std::find(s.targets_pct.begin(), s.targets_pct.end(), 5.0) == s.targets_pct.end())
    throw SpecError(path, "targets_pct", std::to_string(s.targets_pct.front()),
                    "must include 5 (the headline ratios use samples to within 5 %)");
  for (double t : s.targets_pct)
    if (!(t > 0 && t < 1000))
      throw SpecError(path, "targets_pct", std::to_string(t), "must be in (0, 1000)");
  if (const YAML::Node ref = root["reference"]) {
    check_keys(ref, path, "reference", {"budget_multiplier", "seed", "searchers"});
    if (ref["searchers"]) {
      s.reference_searchers = get_list<std::string>(ref, "searchers", path + ": reference", true);
      for (const auto& k : s.reference_searchers)
        require_searcher_kind(k, path + ": reference.searchers");
    }
    s.reference_multiplier = get_int(ref, "budget_multiplier", path, "reference", 20);
    s.reference_seed = static_cast<uint64_t>(get_int(ref, "seed", path, "reference", 1000));
    if (s.reference_multiplier < 1)
      throw SpecError(path, "reference.budget_multiplier", std::to_string(s.reference_multiplier),
                      "must be >= 1");
  }
  if (s.reference_searchers.empty()) s.reference_searchers = s.searchers;
  s.layers = get_list<std::string>(root, "layers", path, true);
  for (const auto& l : s.layers) parse_layer_arg(l, path + ": layers");
  return s;
}

int cmd_study(const StudyOptions& o, std::ostream& out) {
  StudySuite suite = load_study_suite(o.suite);
  if (!o.options_file.empty()) suite.options_file = o.options_file;
  const Arch arch = load_arch(suite.arch);
  const Objective objective = parse_objective(suite.objective, o.suite);
  const search::SearchOptions sopts = load_options_or_default(suite.options_file);
  std::vector<Layer> layers;
  for (const auto& l : suite.layers) layers.push_back(parse_layer_arg(l, o.suite));
  const fs::path dir = o.out_dir.empty() ? fs::path("runs") / ("study-" + safe_name(suite.name))
                                         : fs::path(o.out_dir);
  fs::create_directories(dir / "curves");
  fs::create_directories(dir / "plots");

  std::vector<Job> jobs;
  for (size_t li = 0; li < layers.size(); ++li) {
    for (const auto& k : suite.reference_searchers) {
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
  // Longest first, so the pool ends together.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs[a].budget > jobs[b].budget; });

  const int threads = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const bool tty = isatty(STDERR_FILENO);
  std::atomic<size_t> finished{0};
  std::mutex io;
  g_stop = 0;
  auto old = std::signal(SIGINT, on_sigint);
  const auto t0 = std::chrono::steady_clock::now();
  {
    boost::asio::thread_pool pool(threads);
    for (size_t idx : order) {
      boost::asio::post(pool, [&, idx] {
        Job& j = jobs[idx];
        if (g_stop) return;
        const auto s = std::chrono::steady_clock::now();
        // Each run gets a seed derived from (seed, layer, searcher) so runs are independent.
        const uint64_t seed = j.seed * 1000003ULL + j.layer * 101ULL +
                              static_cast<uint64_t>(std::hash<std::string>{}(j.searcher) % 97);
        LayerSearch ls = search_layer(layers[j.layer], arch, j.searcher, sopts, seed, j.budget,
                                      objective, [](const search::SearchProgress&) { return !g_stop; });
        j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
        j.curve = std::move(ls.result.best_so_far);
        j.best = ls.result.found ? ls.result.best_cost : std::numeric_limits<double>::infinity();
        j.done = !ls.result.stopped_early;
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
  std::signal(SIGINT, old);
  if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r";
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Reference best per layer: the best of everything finished.
  std::vector<double> ref(layers.size(), std::numeric_limits<double>::infinity());
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
    std::ofstream f(dir / "runs.csv");
    f << "layer,searcher,seed,reference,budget,finished,seconds,best_cost,best_over_ref";
    for (double t : suite.targets_pct) f << ",samples_to_" << t << "pct";
    for (auto b : suite.iso_budgets) f << ",cost_ratio_at_" << b;
    f << "\n";
    for (const auto& j : jobs) {
      f << layers[j.layer].name << "," << j.searcher << "," << j.seed << "," << j.reference << ","
        << j.budget << "," << j.done << "," << j.seconds << "," << j.best << ","
        << j.best / ref[j.layer];
      for (double t : suite.targets_pct) {
        bool reached = false;
        const double s = samples_to(j, t, reached);
        f << "," << (reached ? std::to_string(static_cast<long long>(s)) : std::string(""));
      }
      for (auto b : suite.iso_budgets) f << "," << cost_at(j, b);
      f << "\n";
    }
  }

  // Per (layer, searcher) medians over seeds, and normalized median curves for the plots.
  nlohmann::json summary;
  std::ofstream sf(dir / "summary.csv");
  sf << "layer,searcher,seeds";
  for (double t : suite.targets_pct) sf << ",median_samples_to_" << t << "pct,reached_" << t << "pct";
  for (auto b : suite.iso_budgets) sf << ",median_cost_ratio_at_" << b;
  sf << "\n";
  // med[layer][searcher] -> values
  std::map<std::string, std::map<std::string, nlohmann::json>> med;
  for (size_t li = 0; li < layers.size(); ++li) {
    std::ofstream cf(dir / "curves" / (std::to_string(li) + "_" + safe_name(layers[li].name) + ".csv"));
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
        sf << "," << (ok ? std::to_string(static_cast<long long>(m)) : ">" + std::to_string(suite.budget))
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
    std::ofstream gp(dir / "plots" / (std::to_string(li) + ".gp"));
    gp << "set terminal svg size 720,420 dynamic font 'sans,12'\n"
       << "set output " << gp_quote(stem + ".svg") << "\n"
       << "set datafile separator ','\nset logscale x\nset logscale y\nset key top right\n"
       << "set xlabel 'samples'\nset ylabel " << gp_quote("best cost / reference (median of " + std::to_string(suite.seeds.size()) + " seeds)")
       << "\nset title " << gp_quote(layers[li].name + " (" + suite.objective + ", " + arch.name + ")")
       << " noenhanced\nset grid\n";
    gp << "plot ";
    for (size_t k = 0; k < suite.searchers.size(); ++k)
      gp << (k ? ", " : "") << gp_quote("../curves/" + stem + ".csv") << " using 1:" << (k + 2)
         << " with lines lw 2 title " << gp_quote(suite.searchers[k]) << " noenhanced";
    gp << "\n";
  }
  sf.close();
  bool plotted = true;
  for (size_t li = 0; li < layers.size(); ++li) {
    const std::string stem = std::to_string(li) + "_" + safe_name(layers[li].name);
    plotted = !gnuplot_svg(dir / "plots" / (std::to_string(li) + ".gp"), dir / "plots" / (stem + ".svg")).empty() && plotted;
  }

  // Headline ratios against MARL.
  nlohmann::json head;
  const bool have_marl = std::find(suite.searchers.begin(), suite.searchers.end(), "marl") != suite.searchers.end();
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
      e["median_samples_to_5pct_ratio"] = s2t.empty() ? nlohmann::json() : nlohmann::json(median(s2t));
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
  summary["suite"] = suite.name;
  summary["suite_file"] = o.suite;
  summary["arch"] = arch.name;
  summary["objective"] = suite.objective;
  summary["searchers"] = suite.searchers;
  summary["seeds"] = suite.seeds;
  summary["budget"] = suite.budget;
  summary["reference_budget"] = suite.budget * suite.reference_multiplier;
  summary["reference_seed"] = suite.reference_seed;
  summary["reference_searchers"] = suite.reference_searchers;
  summary["options_file"] = suite.options_file.empty() ? "(built-in defaults)" : suite.options_file;
  summary["options"] = search::to_json(sopts);
  summary["threads"] = threads;
  summary["wall_seconds"] = wall;
  summary["interrupted"] = g_stop != 0;
  summary["layers"] = med;
  summary["reference_cost"] = nlohmann::json::object();
  for (size_t li = 0; li < layers.size(); ++li) summary["reference_cost"][layers[li].name] = ref[li];
  summary["vs_marl"] = head;
  summary["note"] =
      "median_samples_to_5pct_ratio = median over layers of (searcher's median samples to reach "
      "within 5% of the reference) / (MARL's); a searcher that did not reach the target counts as "
      "budget+1 (the ratio is then a lower bound). geomean_cost_ratio_vs_marl_at_B > 1 means MARL "
      "found the lower cost at B samples.";
  std::ofstream(dir / "study.json") << summary.dump(2) << "\n";

  if (o.json) {
    out << summary.dump(2) << "\n";
  } else {
    out << "study " << suite.name << ": " << layers.size() << " layers x " << suite.searchers.size()
        << " searchers x " << suite.seeds.size() << " seeds, budget " << suite.budget
        << " (reference " << suite.budget * suite.reference_multiplier << "), " << std::fixed
        << std::setprecision(0) << wall << " s on " << threads << " threads\n" << std::defaultfloat;
    out << std::left << std::setw(24) << "layer" << std::right;
    for (const auto& k : suite.searchers) out << std::setw(12) << k;
    out << "   (median samples to within 5% of the reference; >B = not reached)\n";
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
          << (e["median_samples_to_5pct_ratio"].is_null() ? std::string("n/a")
                                                          : std::to_string(e["median_samples_to_5pct_ratio"].get<double>()))
          << " (" << e["ratios_that_are_lower_bounds"].get<int>() << " of "
          << e["layers_with_ratio"].get<size_t>() << " are lower bounds)";
      for (auto b : suite.iso_budgets)
        out << "; cost ratio @" << b << " " << std::fixed << std::setprecision(3)
            << e["geomean_cost_ratio_vs_marl_at_" + std::to_string(b)].get<double>()
            << std::defaultfloat;
      out << "\n";
    }
    out << "written to " << dir.string() << " (runs.csv, summary.csv, study.json, curves/, plots/"
        << (plotted ? "" : " [gnuplot failed or missing: no SVG]") << ")\n";
  }
  return g_stop ? 130 : 0;
}

}  // namespace mapwright::flows
