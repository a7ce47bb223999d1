// Equal-effort tuning (`mapwright tune`): a small plan end to end (two searchers, two
// configurations each: the base and one draw), the winner is the lowest score, tuned.yaml is
// valid and takes each searcher's section from its winner, the draws follow the seed; bad plans
// are refused naming the file and key.
#include "mapwright/flows/tune.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/search/options.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

namespace {

const char* kSuite = R"(name: tune-tiny
arch: small8
objective: edp
searchers: [marl, ga]
seeds: [1]
budget: 48
iso_budgets: [16, 48]
targets_pct: [5]
reference: {time_limit_s: 30}
layers:
  - conv:K=16,C=8,H=8,W=8,R=3,S=3,pad=1
)";

const char* kSpace = R"(space:
  marl:
    learner.lr: {min: 0.005, max: 0.05, log: true}
    initial_samples: {min: 8, max: 24, int: true}
  ga:
    population: {min: 8, max: 32, int: true, log: true}
    mutation_prob: {min: 0.02, max: 0.3}
)";

/// A folder with the suite and a plan of `trials` configurations.
fs::path write_plan(const std::string& name, const std::string& extra, int trials = 2) {
  const fs::path dir = test_files::fresh_path("tune_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "suite.yaml") << kSuite;
  std::ofstream(dir / "plan.yaml") << "name: tiny\nsuite: " << (dir / "suite.yaml").string()
                                   << "\ntrials: " << trials << "\nseed: 5\n"
                                   << extra;
  return dir;
}

std::string scalar(const fs::path& yaml, const std::string& section, const std::string& key) {
  YAML::Node n = core::load_yaml_file(yaml.string())[section];
  std::stringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) n.reset(n[part]);
  return n.as<std::string>();
}

}  // namespace

TEST(Tune, EachSearcherGetsTheSameTrialsAndKeepsItsBestConfiguration) {
  const fs::path dir = write_plan("run", kSpace);
  flows::TuneOptions o;
  o.plan = (dir / "plan.yaml").string();
  o.out_dir = (dir / "out").string();
  o.jobs = 2;
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_tune(o, out), 0) << out.str();
  EXPECT_NE(out.str().find("tune tiny: 2 configurations per searcher"), std::string::npos)
      << out.str();
  const json r = json::parse(test_files::read_file(dir / "out" / "tune.json"));
  for (const char* kind : {"marl", "ga"}) {
    const json& s = r["searchers"][kind];
    ASSERT_EQ(s["trials"].size(), 2u) << kind;     // equal effort: the same count for both
    EXPECT_TRUE(s["trials"][0]["knobs"].empty());  // trial 0 is the base
    // The winner has the lowest score (ties keep the earlier trial).
    const size_t w = s["winner"].get<size_t>();
    for (const auto& t : s["trials"]) {
      if (t["score"].is_number() && s["trials"][w]["score"].is_number()) {
        EXPECT_LE(s["trials"][w]["score"].get<double>(), t["score"].get<double>()) << kind;
      }
    }
    EXPECT_TRUE(s["trials"][0]["gap_to_optimum"].contains("48")) << s.dump();
  }
  // The drawn knobs are in range and written into trial 1's options file.
  const json& ga1 = r["searchers"]["ga"]["trials"][1]["knobs"];
  const int pop = std::stoi(ga1["population"].get<std::string>());
  EXPECT_GE(pop, 8);
  EXPECT_LE(pop, 32);
  EXPECT_EQ(scalar(dir / "out" / "options" / "trial-1.yaml", "ga", "population"),
            ga1["population"].get<std::string>());
  EXPECT_EQ(scalar(dir / "out" / "options" / "trial-1.yaml", "marl", "learner.lr"),
            r["searchers"]["marl"]["trials"][1]["knobs"]["learner.lr"].get<std::string>());
  // tuned.yaml: valid options, each section from its searcher's winner.
  const fs::path tuned = dir / "out" / "tuned.yaml";
  EXPECT_NO_THROW(search::load_search_options(tuned.string()));
  const size_t gw = r["searchers"]["ga"]["winner"].get<size_t>();
  const fs::path ga_win = dir / "out" / "options" / ("trial-" + std::to_string(gw) + ".yaml");
  EXPECT_EQ(scalar(tuned, "ga", "population"), scalar(ga_win, "ga", "population"));
  EXPECT_EQ(scalar(tuned, "ga", "mutation_prob"), scalar(ga_win, "ga", "mutation_prob"));

  // A second tuning in the folder needs --resume; resumed, the same plan draws the same
  // configurations and keeps every finished run: the same result.
  EXPECT_THROW(flows::cmd_tune(o, out), core::SpecError);
  o.resume = true;
  std::ostringstream out2;
  ASSERT_EQ(flows::cmd_tune(o, out2), 0) << out2.str();
  EXPECT_EQ(test_files::read_file(dir / "out" / "tune.json"), r.dump(2) + "\n");
}

TEST(Tune, BadPlansAreRefusedNamingTheFileAndKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"space:\n  marl: {learner.lr: {min: 0.01, max: 0.1}}\n  ga: {populaton: {min: 8, max: "
       "32}}\n",
       "space.ga.populaton"},
      {"space:\n  marl: {learner.lr: {min: 0.01, max: 0.1}}\n", "space"},  // ga has no knobs
      {"space:\n  marl: {learner.lr: {min: 0.1, max: 0.01}}\n  ga: {tournament: {min: 2, max: "
       "5}}\n",
       "space.marl.learner.lr.max"},
      {"space:\n  marl: {learner.lr: {min: 0, max: 0.1, log: true}}\n  ga: {tournament: {min: "
       "2, max: 5}}\n",
       "space.marl.learner.lr.min"},
      {"space:\n  marl: {learner.lr: {min: 0.01, max: 0.1}}\n  ga: {tournament: {min: 2, max: "
       "5}}\n  sa: {cooling: {min: 0.9, max: 0.99}}\n",
       "space.sa"},  // not a searcher of the suite
  };
  for (const auto& [text, key] : cases) {
    const fs::path dir = write_plan("bad", text);
    flows::TuneOptions o;
    o.plan = (dir / "plan.yaml").string();
    o.out_dir = (dir / "out").string();
    std::ostringstream out;
    try {
      flows::cmd_tune(o, out);
      ADD_FAILURE() << "accepted " << text;
    } catch (const core::SpecError& e) {
      EXPECT_NE(std::string(e.what()).find("plan.yaml: key '" + key + "'"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "out" / "study-0")) << "ran before the plan was checked";
  }
}
