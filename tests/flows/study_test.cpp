// Study suites: refusals name the file, key and value. The study's statistics
// (flows/study/study_stats.hpp): ratios that are bounds, Kaplan-Meier medians of censored
// runs, geometric means of medians. A small study end to end: its KM medians against the runs
// it recorded, reproducible intervals, and study.html. StudyApp's typed result against the
// study.json it writes.
#include "mapwright/flows/study.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../../flows/study/study_stats.hpp"
#include "../../flows/study/study_store.hpp"
#include "files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/stats.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

namespace {

/// Each (text, key): the suite `head` + text, written to <dir>/s.yaml, is refused with an error
/// naming the file and `key`.
void expect_refused(const fs::path& dir, const std::string& head,
                    const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [text, key] : cases) {
    std::ofstream(dir / "s.yaml") << head << text;
    try {
      flows::load_study_suite((dir / "s.yaml").string());
      ADD_FAILURE() << "accepted " << text;
    } catch (const core::SpecError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("s.yaml"), std::string::npos) << m;
      EXPECT_NE(m.find(key), std::string::npos) << m;
    }
  }
}

}  // namespace

TEST(StudySuite, TargetsWithoutFivePercentAreRefused_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_bad");
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "name: s\nsearchers: [ga]\nseeds: [1]\nbudget: 10\n"
                                   "targets_pct: [10]\nlayers: ['gemm:M=8,N=8,K=8']\n";
  try {
    flows::load_study_suite((dir / "s.yaml").string());
    FAIL() << "accepted";
  } catch (const core::SpecError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("s.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find("targets_pct"), std::string::npos) << m;
    EXPECT_NE(m.find("must include 5"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

TEST(StudySuite, BadBootstrapSettingsAreRefused_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_bad_boot");
  fs::create_directories(dir);
  const std::string head =
      "name: s\nsearchers: [ga]\nseeds: [1]\nbudget: 10\nlayers: ['gemm:M=8,N=8,K=8']\n";
  expect_refused(dir, head,
                 {{"bootstrap: {confidence: 1.5}\n", "bootstrap.confidence"},
                  {"bootstrap: {resamples: 5}\n", "bootstrap.resamples"},
                  {"bootstrap: {samples: 500}\n", "samples"}});
  std::ofstream(dir / "s.yaml") << head
                                << "bootstrap: {resamples: 300, confidence: 0.9, seed: 8}\n";
  const auto s = flows::load_study_suite((dir / "s.yaml").string());
  EXPECT_EQ(s.bootstrap_resamples, 300);
  EXPECT_EQ(s.bootstrap_confidence, 0.9);
  EXPECT_EQ(s.bootstrap_seed, 8u);
  fs::remove_all(dir);
}

// reward.surrogate_prior: read with the RTL reward; refused with the surrogate reward (its points
// would be free samples) and out of range, naming the key.
TEST(StudySuite, SurrogatePriorIsForTheRtlRewardOnly_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_prior");
  fs::create_directories(dir);
  const std::string head =
      "name: s\nsearchers: [ga]\nseeds: [1]\nbudget: 10\nlayers: ['gemm:M=8,N=8,K=8']\n";
  expect_refused(dir, head,
                 {{"reward: {source: surrogate, surrogate_prior: 10}\n", "reward.surrogate_prior"},
                  {"reward: {source: rtl, surrogate_prior: -1}\n", "surrogate_prior"},
                  {"reward: {source: rtl, prior: 10}\n", "prior"}});
  std::ofstream(dir / "s.yaml") << head << "reward: {source: rtl, surrogate_prior: 64}\n";
  EXPECT_EQ(flows::load_study_suite((dir / "s.yaml").string()).surrogate_prior, 64);
  fs::remove_all(dir);
}

// budget_caps: a searcher's runs end at its cap (the others use the budget); a cap for a
// searcher the suite does not run, or above the budget, is refused naming the key.
TEST(StudySuite, BudgetCapsLimitOneSearcher_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_caps");
  fs::create_directories(dir);
  const std::string head =
      "name: s\nsearchers: [ga, random]\nseeds: [1]\nbudget: 12\n"
      "layers: ['gemm:M=8,N=8,K=8']\n";
  expect_refused(dir, head,
                 {{"budget_caps: {sa: 4}\n", "budget_caps.sa"},
                  {"budget_caps: {random: 13}\n", "random"},
                  {"budget_caps: [4]\n", "budget_caps"}});
  std::ofstream(dir / "s.yaml") << head << "budget_caps: {random: 5}\n";
  const auto s = flows::load_study_suite((dir / "s.yaml").string());
  EXPECT_EQ(s.budget_of("random"), 5);
  EXPECT_EQ(s.budget_of("ga"), 12);
  flows::StudyOptions o;
  o.suite = (dir / "s.yaml").string();
  o.out_dir = (dir / "out").string();
  o.jobs = 1;
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_study(o, out), 0) << out.str();
  const std::string runs = mapwright::test_files::read_file(dir / "out" / "runs.csv");
  EXPECT_NE(runs.find(",random,1,0,5,"), std::string::npos) << runs;
  EXPECT_NE(runs.find(",ga,1,0,12,"), std::string::npos) << runs;
  fs::remove_all(dir);
}

// A trial record keeps the samples a run evaluated (fewer than its budget when its searcher ran
// out of new points); a record written before that field existed reads its curve's length.
TEST(StudyStore, TrialRecordsKeepTheirSampleCount) {
  flows::Trial t;
  t.searcher = "ga";
  t.budget = 10;
  t.samples = 6;
  t.curve.assign(10, 5.0);
  EXPECT_EQ(flows::trial_from_json(flows::trial_to_json(t), "log:1").samples, 6);
  json old = flows::trial_to_json(t);
  old.erase("samples");
  EXPECT_EQ(flows::trial_from_json(old, "log:1").samples, 10);
  json bad = flows::trial_to_json(t);
  bad["samples"] = 11;
  try {
    flows::trial_from_json(bad, "log:3");
    FAIL() << "accepted more samples than the budget";
  } catch (const core::SpecError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("log:3"), std::string::npos) << m;
    EXPECT_NE(m.find("samples"), std::string::npos) << m;
  }
}

// Samples-to-target ratios: a median that is not reached (+inf) counts as the budget and
// makes the layer's ratio a bound; the median over layers says which way it bounds.
TEST(StudyStats, RatiosThatAreBoundsAreFlagged) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto exact = flows::samples_ratio(50, 200, 1000);
  EXPECT_EQ(exact.kind, flows::RatioKind::Exact);
  EXPECT_DOUBLE_EQ(exact.value, 0.25);
  const auto lower = flows::samples_ratio(inf, 200, 1000);  // searcher never: > 1000 / 200
  EXPECT_EQ(lower.kind, flows::RatioKind::Lower);
  EXPECT_DOUBLE_EQ(lower.value, 5);
  const auto upper = flows::samples_ratio(100, inf, 1000);  // baseline never: < 100 / 1000
  EXPECT_EQ(upper.kind, flows::RatioKind::Upper);
  EXPECT_DOUBLE_EQ(upper.value, 0.1);
  EXPECT_EQ(flows::samples_ratio(inf, inf, 1000).kind, flows::RatioKind::Unknown);

  const auto all_exact = flows::median_ratio({exact, {0.5, flows::RatioKind::Exact}});
  EXPECT_EQ(all_exact.kind, flows::RatioKind::Exact);
  EXPECT_DOUBLE_EQ(all_exact.median, 0.375);
  const auto with_lower = flows::median_ratio({exact, lower, {1, flows::RatioKind::Exact}});
  EXPECT_EQ(with_lower.kind, flows::RatioKind::Lower);
  EXPECT_DOUBLE_EQ(with_lower.median, 1);
  EXPECT_EQ(with_lower.lower, 1);
  const auto both = flows::median_ratio({exact, lower, upper});
  EXPECT_EQ(both.kind, flows::RatioKind::Unknown);
  const auto left_out = flows::median_ratio({exact, flows::samples_ratio(inf, inf, 1000), upper});
  EXPECT_EQ(left_out.unknown, 1);
  EXPECT_EQ(left_out.kind, flows::RatioKind::Upper);
  EXPECT_DOUBLE_EQ(left_out.median, 0.175);
  EXPECT_TRUE(std::isnan(flows::median_ratio({}).median));
  EXPECT_STREQ(flows::ratio_kind_name(flows::RatioKind::Lower), "lower_bound");
}

// The KM median of a layer's runs, censored at the budget: 3 of 5 runs reach the target at
// 10, 40 and 70 samples, two never do within 100 (censored at 100). S(10) = 4/5,
// S(40) = 3/5, S(70) = 2/5: the median is 70. With only 2 of 5 reaching it, it is not
// reached (+inf), whatever the budget.
TEST(StudyStats, KaplanMeierMedianOfCensoredRuns) {
  const flows::BootstrapSettings b{500, 0.95, 3};
  std::vector<core::TimeToEvent> runs = {
      {10, true}, {100, false}, {40, true}, {70, true}, {100, false}};
  const auto ci = flows::km_median_ci(runs, b, "x");
  EXPECT_EQ(ci.estimate, 70);
  EXPECT_LE(ci.lo, 70);
  // 3 or more censored runs in a draw (32 % of them): not reached.
  EXPECT_EQ(ci.hi, std::numeric_limits<double>::infinity());
  const auto again = flows::km_median_ci(runs, b, "x");
  EXPECT_EQ(again.lo, ci.lo);
  EXPECT_EQ(again.hi, ci.hi);
  runs[3] = {100, false};
  EXPECT_EQ(flows::km_median(runs), std::numeric_limits<double>::infinity());
  // The median layer: layers with medians 70, +inf and 20 -> 70.
  const std::vector<std::vector<core::TimeToEvent>> layers = {
      {{10, true}, {70, true}, {80, true}}, runs, {{20, true}}};
  EXPECT_EQ(flows::median_layer_km_ci(layers, b, "y").estimate, 70);
  // Different statistics draw from different seeds; the same label from the same one.
  EXPECT_NE(flows::statistic_seed(1, "a"), flows::statistic_seed(1, "b"));
  EXPECT_NE(flows::statistic_seed(1, "a"), flows::statistic_seed(2, "a"));
  EXPECT_EQ(flows::statistic_seed(1, "a"), flows::statistic_seed(1, "a"));
}

TEST(StudyStats, GeometricMeanOfMediansIsInfiniteWhenALayerHasNoValidMedian) {
  const double inf = std::numeric_limits<double>::infinity();
  // Medians 2 and 8: geometric mean 4.
  EXPECT_DOUBLE_EQ(flows::geomean_of_medians({{1, 2, 3}, {8, 8, 100}}), 4);
  // The median run of the second layer found nothing valid yet.
  EXPECT_EQ(flows::geomean_of_medians({{1, 2, 3}, {8, inf, inf}}), inf);
  EXPECT_TRUE(std::isnan(flows::geomean_of_medians({})));
  const auto ci = flows::geomean_of_medians_ci({{1, 2, 3}, {8, 8, 100}}, {400, 0.9, 1}, "g");
  EXPECT_DOUBLE_EQ(ci.estimate, 4);
  EXPECT_LE(ci.lo, ci.estimate);
  EXPECT_GE(ci.hi, ci.estimate);
  // Every draw's per-layer median lies between the layer's smallest and largest run.
  EXPECT_GE(ci.lo, std::sqrt(1.0 * 8) * (1 - 1e-12));
  EXPECT_LE(ci.hi, std::sqrt(3.0 * 100) * (1 + 1e-12));
}

namespace {

/// A layer YAML file named `name` in `dir`.
fs::path layer_file(const fs::path& dir, const std::string& file, const std::string& name, int k) {
  const fs::path f = dir / file;
  std::ofstream(f) << "name: '" << name << "'\ntype: conv\nK: " << k
                   << "\nC: 8\nH: 6\nW: 6\nR: 3\nS: 3\npad: 1\n";
  return f;
}

}  // namespace

// A small study end to end: the per-layer KM medians in study.json are those of the runs in
// runs.csv (censored at the budget when the column is empty); the bootstrap settings are
// recorded; a second study of the same suite reports the same intervals; study.html has the
// tables, escapes the layer names, and the study folder holds one SVG per layer.
TEST(Study, KaplanMeierMediansIntervalsAndPage) {
  const fs::path dir = mapwright::test_files::fresh_path("study_stats");
  fs::create_directories(dir);
  const std::string html_name = "<b>x</b> & \"y\"";
  const fs::path l0 = layer_file(dir, "l0.yaml", html_name, 8);
  const fs::path l1 = layer_file(dir, "l1.yaml", "plain", 12);
  std::ofstream(dir / "s.yaml")
      << "name: stats\narch: small4\nobjective: edp\nsearchers: [random, ga]\n"
         "seeds: [1, 2, 3, 4]\nbudget: 60\niso_budgets: [10, 60]\ntargets_pct: [5, 300]\n"
         "reference: {time_limit_s: 30, gap: 0}\n"
         "bootstrap: {resamples: 300, confidence: 0.9, seed: 7}\nlayers: ['"
      << l0.string() << "', '" << l1.string() << "']\n";
  flows::StudyOptions o;
  o.suite = (dir / "s.yaml").string();
  o.out_dir = (dir / "a").string();
  o.jobs = 2;
  std::ostringstream log;
  ASSERT_EQ(flows::cmd_study(o, log), 0) << log.str();
  const json s = json::parse(mapwright::test_files::read_file(dir / "a" / "study.json"));
  EXPECT_EQ(s["bootstrap"]["seed"], 7);
  EXPECT_EQ(s["bootstrap"]["resamples"], 300);
  EXPECT_EQ(s["bootstrap"]["confidence"], 0.9);

  // Recompute every KM median from runs.csv.
  std::map<std::pair<std::string, std::string>, std::vector<core::TimeToEvent>> runs;
  std::istringstream csv(mapwright::test_files::read_file(dir / "a" / "runs.csv"));
  std::string line;
  std::getline(csv, line);
  const std::string header = line;
  size_t col = 0;
  {
    std::istringstream h(header);
    std::string c;
    for (size_t i = 0; std::getline(h, c, ','); ++i)
      if (c == "samples_to_300pct") col = i;
  }
  ASSERT_GT(col, 0u) << header;
  int reached = 0;
  std::map<std::string, double> invalid, duplicates;  // per searcher, from runs.csv
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) f.push_back(c);
    // The name with quotes is one quoted CSV field.
    if (line[0] == '"') {
      const size_t end = line.find("\",");
      f.clear();
      f.push_back(html_name);
      std::istringstream rest(line.substr(end + 2));
      for (std::string c; std::getline(rest, c, ',');) f.push_back(c);
    }
    ASSERT_GT(f.size(), col) << line;
    invalid[f[1]] += std::stod(f[7]);
    duplicates[f[1]] += std::stod(f[8]);
    const bool hit = !f[col].empty();
    reached += hit;
    runs[{f[0], f[1]}].push_back({hit ? std::stod(f[col]) : 60.0, hit});
  }
  EXPECT_GT(reached, 0) << "no run reached 300 %: the test would not check a finite median";
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& [key, d] : runs) {
    const json& e = s["layers"][key.first][key.second];
    const auto km = core::kaplan_meier(d);
    if (km.median) {
      EXPECT_EQ(e["samples_to_300pct"], *km.median) << key.first << " " << key.second;
      EXPECT_TRUE(e["median_reached_300pct"].get<bool>());
      EXPECT_LE(e["samples_to_300pct_ci"][0].get<double>(), *km.median);
    } else {
      EXPECT_TRUE(e["samples_to_300pct"].is_null()) << key.first << " " << key.second;
      EXPECT_FALSE(e["median_reached_300pct"].get<bool>());
    }
  }
  for (const auto& k : {"random", "ga"}) {
    const json& e = s["efficiency"][k];
    EXPECT_TRUE(e.contains("samples_to_5pct_median_layer_ci")) << k;
    EXPECT_EQ(e["invalid"], invalid[k]) << k;
    EXPECT_EQ(e["duplicates"], duplicates[k]) << k;
    const double n = e["samples"].get<double>();
    EXPECT_GT(n, 0) << k;
    EXPECT_LE(n, 2 * 4 * 60) << k;
    EXPECT_DOUBLE_EQ(e["invalid_rate"].get<double>(), invalid[k] / n) << k;
    EXPECT_DOUBLE_EQ(e["duplicate_rate"].get<double>(), duplicates[k] / (n + duplicates[k])) << k;
    EXPECT_TRUE(s["gap_to_optimum"][k].contains("gap_to_optimum_at_60_ci")) << k;
  }
  EXPECT_TRUE(s["vs_marl"].empty());  // no marl in the suite

  // The same suite again: the same intervals.
  o.out_dir = (dir / "b").string();
  o.jobs = 1;
  ASSERT_EQ(flows::cmd_study(o, log), 0) << log.str();
  const json s2 = json::parse(mapwright::test_files::read_file(dir / "b" / "study.json"));
  EXPECT_EQ(s2["layers"], s["layers"]);
  EXPECT_EQ(s2["gap_to_optimum"], s["gap_to_optimum"]);
  EXPECT_EQ(s2["efficiency"], s["efficiency"]);

  const std::string html = mapwright::test_files::read_file(dir / "a" / "study.html");
  EXPECT_NE(html.find("Samples to reach the optimum"), std::string::npos);
  EXPECT_NE(html.find("Gap to the optimum at equal sample budgets"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos) << "a layer name reached the page raw";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  for (size_t p = html.find("http"); p != std::string::npos; p = html.find("http", p + 1))
    EXPECT_EQ(html.compare(p, 17, "http://www.w3.org"), 0)  // SVG namespaces; nothing fetched
        << html.substr(p, 80);
  size_t svgs = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "a"))
    svgs += e.path().extension() == ".svg";
  const bool gnuplot = html.find("<svg") != std::string::npos;
  EXPECT_EQ(svgs, gnuplot ? 2u : 0u);
  if (!HasFailure()) fs::remove_all(dir);
}

// StudyApp in process: its typed result holds the figures that study.json reports (gaps to the
// optimum, cells, references), the folder it wrote, and prints the table `mapwright study`
// prints.
TEST(Study, AppResultIsWhatStudyJsonReports) {
  const fs::path dir = mapwright::test_files::fresh_path("study_app");
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "name: s\narch: small4\nsearchers: [ga, random]\nseeds: [1, 2]\n"
                                   "budget: 16\niso_budgets: [4, 16]\n"
                                   "layers: ['gemm:M=8,N=8,K=8']\n";
  flows::StudyOptions o;
  o.suite = (dir / "s.yaml").string();
  o.out_dir = (dir / "out").string();
  o.jobs = 1;
  flows::StudyApp app(o, flows::load_study_suite(o.suite));
  const flows::StudyResult r = app.run();
  EXPECT_EQ(r.dir, fs::path(o.out_dir));
  EXPECT_FALSE(r.interrupted);
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_FALSE(r.figures.vs_marl.has_value());  // no marl in the suite
  const json s = json::parse(mapwright::test_files::read_file(dir / "out" / "study.json"));
  const std::string& layer = r.layers[0];
  EXPECT_EQ(s["reference_cost"][layer].get<double>(), r.figures.reference_cost[0]);
  for (const std::string k : {"ga", "random"}) {
    const flows::StudySearcherSummary& f = r.figures.searchers.at(k);
    ASSERT_EQ(f.gap_to_optimum.size(), 2u) << k;
    for (size_t bi = 0; bi < 2; ++bi) {
      const json& g =
          s["gap_to_optimum"][k]["gap_to_optimum_at_" + std::to_string(r.suite.iso_budgets[bi])];
      if (std::isfinite(f.gap_to_optimum[bi].estimate))
        EXPECT_EQ(g.get<double>(), f.gap_to_optimum[bi].estimate) << k;
      else
        EXPECT_TRUE(g.is_null()) << k;
    }
    const flows::StudyCell& c = r.figures.cells.at(k)[0];
    EXPECT_EQ(c.seeds, 2u) << k;
    EXPECT_EQ(s["layers"][layer][k]["reached_5pct"].get<int>(), c.reached[0]) << k;
    EXPECT_EQ(s["efficiency"][k]["samples"].get<int64_t>(), f.samples) << k;
  }
  std::ostringstream table;
  flows::print_study(r, table);
  EXPECT_NE(table.str().find("study s: 1 layers x 2 searchers x 2 seeds, budget 16"),
            std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("written to " + o.out_dir), std::string::npos) << table.str();
  fs::remove_all(dir);
}

// Every shipped mapping-study suite loads (the co-design suites have their own loader and
// tests), and every options file a suite names exists.
TEST(StudySuite, EveryShippedSuiteLoads) {
  const fs::path src = MAPWRIGHT_SOURCE_DIR;
  int suites = 0;
  for (const auto& e : fs::directory_iterator(src / "configs" / "studies")) {
    if (e.path().extension() != ".yaml") continue;
    if (mapwright::test_files::read_file(e.path()).find("kind: codesign") != std::string::npos)
      continue;
    flows::StudySuite s;
    ASSERT_NO_THROW(s = flows::load_study_suite(e.path().string())) << e.path();
    if (!s.options_file.empty()) EXPECT_TRUE(fs::exists(src / s.options_file)) << e.path();
    ++suites;
  }
  EXPECT_GE(suites, 10);
}

// encoding: gamma runs the samplers over ArchGym's 17 GAMMA parameters (random vectors mostly
// name no mapping: invalid samples), and final_quality_of: random sets each layer's target at the
// median over random's seeds of its best at the budget; every searcher's samples to reach it
// and random's over theirs are reported, and bad values of both keys are refused.
TEST(Study, GammaEncodingAndFinalQualityTarget_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_gamma");
  fs::create_directories(dir);
  const std::string head =
      "name: g\narch: small4\nsearchers: [random, ga]\nseeds: [1, 2, 3]\n"
      "budget: 300\niso_budgets: [300]\n"
      "layers: ['conv:K=8,C=8,H=6,W=6,R=3,S=3,pad=1']\n";
  expect_refused(
      dir, head,
      {{"encoding: maestro\n", "encoding"}, {"final_quality_of: sa\n", "final_quality_of"}});
  std::ofstream(dir / "s.yaml") << head << "encoding: gamma\nfinal_quality_of: random\n";
  flows::StudyOptions o;
  o.suite = (dir / "s.yaml").string();
  o.out_dir = (dir / "out").string();
  o.jobs = 1;
  flows::StudyApp app(o, flows::load_study_suite(o.suite));
  const flows::StudyResult r = app.run();
  const json s = json::parse(mapwright::test_files::read_file(dir / "out" / "study.json"));
  EXPECT_EQ(s["encoding"], "gamma");
  const flows::StudySearcherSummary& rnd = r.figures.searchers.at("random");
  EXPECT_GT(rnd.invalid, rnd.samples / 4) << "random GAMMA vectors are mostly invalid";
  EXPECT_LT(rnd.invalid, rnd.samples);
  ASSERT_TRUE(r.figures.final_quality.has_value());
  const flows::StudyFinalQuality& q = *r.figures.final_quality;
  EXPECT_EQ(q.of, "random");
  ASSERT_EQ(q.target_gap.size(), 1u);
  EXPECT_GE(q.target_gap[0], 0.0);
  // Two of random's three runs end at or below the median of their finals: its KM median is
  // reached within the budget.
  EXPECT_LE(q.samples_to.at("random")[0].estimate, 300.0);
  const json& e = s["final_quality"]["layers"][r.layers[0]];
  EXPECT_EQ(e["target_gap"].get<double>(), q.target_gap[0]);
  EXPECT_EQ(e["samples_to"]["random"]["median"].get<double>(),
            q.samples_to.at("random")[0].estimate);
  EXPECT_TRUE(e["ratio"].contains("ga"));
  EXPECT_FALSE(e["ratio"].contains("random"));
  std::ostringstream table;
  flows::print_study(r, table);
  EXPECT_NE(table.str().find("samples to random's final quality"), std::string::npos)
      << table.str();
  const std::string page = mapwright::test_files::read_file(dir / "out" / "study.html");
  EXPECT_NE(page.find("Samples to random's final quality"), std::string::npos);
  fs::remove_all(dir);
}

#ifdef MAPWRIGHT_HAVE_RTL
// reward: rtl: the searchers' samples after the warm-up are simulated (the study records the
// reward; every run finishes); the exact mapper cannot take it.
TEST(Study, RtlRewardArmRunsEverySearcherOnTheRtl) {
  const fs::path dir = mapwright::test_files::fresh_path("study_rtl");
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "name: s\narch: small4\nsearchers: [ga, random]\nseeds: [1]\n"
                                   "budget: 12\nreward: {source: rtl, surrogate_warmup: 4, "
                                   "surrogate_prior: 16}\n"
                                   "layers: ['conv:K=4,C=4,H=6,W=6,R=3,S=3,pad=1']\n";
  flows::StudyOptions o;
  o.suite = (dir / "s.yaml").string();
  o.out_dir = (dir / "out").string();
  o.jobs = 2;
  o.worker_exe = MAPWRIGHT_WORKER_EXE;
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_study(o, out), 0) << out.str();
  const json s = json::parse(mapwright::test_files::read_file(dir / "out" / "study.json"));
  EXPECT_EQ(s["reward"]["source"], "rtl");
  EXPECT_EQ(s["reward"]["surrogate_warmup"], 4);
  EXPECT_EQ(s["reward"]["surrogate_prior"], 16);
  const std::string runs = mapwright::test_files::read_file(dir / "out" / "runs.csv");
  EXPECT_NE(runs.find(",ga,1,0,12,1,"), std::string::npos) << runs;
  EXPECT_NE(runs.find(",random,1,0,12,1,"), std::string::npos) << runs;
  // Every run's samples after the warm-up that fit were simulated.
  std::ifstream log(dir / "out" / "trials.jsonl");
  int trials = 0;
  for (std::string line; std::getline(log, line); ++trials) {
    const json t = json::parse(line);
    EXPECT_GT(t.value("rtl_samples", 0), 0) << line.substr(0, 120);
    EXPECT_LE(t.value("rtl_samples", 0), 12 - 4) << line.substr(0, 120);
  }
  EXPECT_EQ(trials, 2);

  std::ofstream(dir / "bad.yaml") << "name: s\nsearchers: [exact]\nseeds: [1]\nbudget: 12\n"
                                     "reward: {source: rtl}\nlayers: ['gemm:M=8,N=8,K=8']\n";
  EXPECT_THROW(flows::load_study_suite((dir / "bad.yaml").string()), core::SpecError);
  fs::remove_all(dir);
}
#endif
