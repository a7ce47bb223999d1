// The co-design study (`mapwright study` with a `kind: codesign` suite) on the tiny space: each
// case's reference is the exact search's proved optimum at the case's area budget, no run beats
// it, the statistics are the Kaplan-Meier medians of the recorded runs, a resumed study (torn
// log line included) ends with the same figures, and bad suites are refused naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"
#include "codesign/codesign_study.hpp"
#include "files.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/study.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/stats.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace mapwright;
using namespace mapwright::flows;
using namespace mapwright::test_files;

namespace {

const std::string kData = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/";
const std::string kSuite = kData + "codesign_study_tiny.yaml";

/// `mapwright study` on `suite` into `dir`; returns its exit code.
int run_study(const std::string& suite, const fs::path& dir, bool resume) {
  StudyOptions o;
  o.suite = suite;
  o.out_dir = dir.string();
  o.resume = resume;
  o.jobs = 2;
  std::ostringstream out;
  return cmd_study(o, out);
}

/// The runs of runs.jsonl (after its header line).
std::vector<json> logged_runs(const fs::path& dir) {
  std::istringstream in(read_file(dir / "runs.jsonl"));
  std::vector<json> runs;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) runs.push_back(json::parse(line));
  return runs;
}

/// A suite file in `dir` with `text`.
std::string suite_file(const fs::path& dir, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / "suite.yaml") << text;
  return (dir / "suite.yaml").string();
}

}  // namespace

TEST(CodesignStudy, ReferencesAreTheProvedOptimaAndNoRunBeatsThem) {
  const fs::path dir = fresh_path("cdstudy");
  ASSERT_EQ(run_study(kSuite, dir, false), 0);
  const json s = json::parse(read_file(dir / "codesign-study.json"));
  ASSERT_EQ(s["cases"].size(), 2u);
  EXPECT_EQ(s["runs"].get<int>(), 2 * 2 * 3);
  EXPECT_EQ(s["runs_below_optimum"].get<int>(), 0);
  // Each case's reference: the exact search on the space at the case's budget.
  CodesignSpace space = load_codesign_space(kData + "codesign_tiny.yaml");
  std::vector<double> optimum;
  for (const double area : {space.max_area_mm2, 0.12}) {
    space.max_area_mm2 = area;
    codesign::PointEvaluator ev(space);
    const codesign::SearchOutcome ex = codesign::search_exact(ev, 0);
    ASSERT_TRUE(ex.proved);
    ASSERT_GE(ex.best, 0);
    EXPECT_LE(ex.points[ex.best].area_mm2, area);
    optimum.push_back(ex.points[ex.best].cost);
  }
  EXPECT_EQ(s["cases"][0]["optimum"].get<double>(), optimum[0]);
  EXPECT_EQ(s["cases"][1]["optimum"].get<double>(), optimum[1]);
  EXPECT_TRUE(s["cases"][1]["proved"].get<bool>());
  EXPECT_GE(optimum[1], optimum[0]);  // a tighter budget cannot do better
  // Every recorded point's cost is at least its case's optimum; each run has the budget's points
  // (or fewer when its searcher was exhausted).
  for (const json& r : logged_runs(dir)) {
    const double opt = optimum[r["case"].get<size_t>()];
    EXPECT_LE(r["costs"].size(), 60u);
    for (const json& c : r["costs"])
      if (!c.is_null()) {
        EXPECT_GE(c.get<double>(), opt);
      }
  }
}

TEST(CodesignStudy, FiguresAreTheKaplanMeierMediansOfTheLoggedRuns) {
  const fs::path dir = fresh_path("cdstudy_km");
  ASSERT_EQ(run_study(kSuite, dir, false), 0);
  const json s = json::parse(read_file(dir / "codesign-study.json"));
  const std::vector<json> runs = logged_runs(dir);
  for (size_t c = 0; c < 2; ++c)
    for (const std::string k : {"random", "ga"})
      for (const json& t : s["cases"][c]["searchers"][k]["targets"]) {
        const double target =
            s["cases"][c]["optimum"].get<double>() * (1 + t["target_pct"].get<double>() / 100);
        std::vector<core::TimeToEvent> tte;
        for (const json& r : runs) {
          if (r["case"] != c || r["searcher"] != k) continue;
          core::TimeToEvent e{static_cast<double>(r["costs"].size()), false};
          double best = INFINITY;
          for (size_t i = 0; i < r["costs"].size(); ++i) {
            if (!r["costs"][i].is_null()) best = std::min(best, r["costs"][i].get<double>());
            if (best <= target) {
              e = {static_cast<double>(i + 1), true};
              break;
            }
          }
          tte.push_back(e);
        }
        ASSERT_EQ(tte.size(), 3u);
        int reached = 0;
        for (const auto& e : tte) reached += e.observed;
        EXPECT_EQ(t["reached"].get<int>(), reached);
        const core::KaplanMeier km = core::kaplan_meier(tte);
        const json& est = t["km_median_points"]["estimate"];
        if (km.median) {
          EXPECT_EQ(est.get<double>(), *km.median) << k << " case " << c;
        } else {
          EXPECT_TRUE(est.is_null()) << k << " case " << c;
        }
      }
}

TEST(CodesignStudy, ResumedStudyEndsWithTheSameFigures) {
  const fs::path dir = fresh_path("cdstudy_resume");
  ASSERT_EQ(run_study(kSuite, dir, false), 0);
  const json whole = json::parse(read_file(dir / "codesign-study.json"));
  // Without --resume the folder is refused.
  EXPECT_THROW(run_study(kSuite, dir, false), core::SpecError);
  // Keep the header and four runs, then half a line (a write a kill interrupted).
  std::istringstream in(read_file(dir / "runs.jsonl"));
  std::string kept, line;
  for (int i = 0; i < 5 && std::getline(in, line); ++i) kept += line + "\n";
  std::getline(in, line);
  std::ofstream(dir / "runs.jsonl", std::ios::trunc) << kept << line.substr(0, line.size() / 2);
  ASSERT_EQ(run_study(kSuite, dir, true), 0);
  const json resumed = json::parse(read_file(dir / "codesign-study.json"));
  EXPECT_EQ(resumed["searchers"], whole["searchers"]);
  for (size_t c = 0; c < 2; ++c)
    EXPECT_EQ(resumed["cases"][c]["searchers"], whole["cases"][c]["searchers"]);
  EXPECT_EQ(logged_runs(dir).size(), 12u);
  // The journal answered the solves the first session made.
  const std::string journal = read_file(dir / "solves-0.jsonl");
  EXPECT_NE(journal.find("mapwright codesign solves"), std::string::npos);
  // A changed suite is refused.
  const fs::path other = fresh_path("cdstudy_other");
  std::string text = read_file(kSuite);
  text.replace(text.find("seeds: [1, 2, 3]"), 16, "seeds: [1, 2, 4]");
  const std::string rel = "space: codesign_tiny.yaml";
  for (size_t p; (p = text.find(rel)) != std::string::npos;)
    text.replace(p, rel.size(), "space: " + kData + "codesign_tiny.yaml");
  const std::string changed = suite_file(other, text);
  EXPECT_THROW(run_study(changed, dir, true), core::SpecError);
}

TEST(CodesignStudy, BadSuitesAreRefusedNamingTheKey) {
  const fs::path dir = fresh_path("cdstudy_bad");
  const std::string space = kData + "codesign_tiny.yaml";
  const std::string head = "kind: codesign\ncases: [{space: " + space + "}]\n";
  auto refused = [&](const std::string& text, const std::string& key) {
    try {
      codesign::load_codesign_study(suite_file(dir, text));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const core::SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused(head + "searchers: [exact]\nseeds: [1]\n", "searchers[0]");
  refused(head + "searchers: [grid]\nseeds: [1]\n", "searchers[0]");
  refused(head + "searchers: [ga]\nseeds: [1, 1]\n", "seeds");
  refused(head + "searchers: [ga]\nseeds: [1]\nbudget: 10\niso_budgets: [20]\n", "iso_budgets");
  refused(head + "searchers: [ga]\nseeds: [1]\nsamples: 10\n", "samples");
  refused("kind: codesign\ncases: [{space: nowhere.yaml}]\nsearchers: [ga]\nseeds: [1]\n",
          "nowhere.yaml");
  refused("kind: codesign\ncases: [{space: " + space +
              ", max_area_mm2: -1}]\nsearchers: [ga]\nseeds: [1]\n",
          "max_area_mm2");
  refused(head + "searchers: [ga]\nseeds: [1]\ntargets_pct: [1000]\n", "targets_pct");
  // A mapping suite that says another kind is refused by the mapping loader.
  EXPECT_THROW(load_study_suite(suite_file(dir, "kind: other\nsearchers: [ga]\n")),
               core::SpecError);
  EXPECT_TRUE(codesign::is_codesign_study(kSuite));
  EXPECT_FALSE(codesign::is_codesign_study(kData + "codesign_tiny.yaml"));
}
