// RTL reward (`mapwright search --reward rtl`): after a surrogate warm-up every distinct sample is
// simulated on the Verilated RTL in worker processes and its cost is the objective of the RTL
// metrics; the record counts the RTL-scored samples, the best mapping's metrics are the RTL's,
// one RTL run re-done independently agrees, the same seed gives the same search, and an
// architecture without a model or the exact mapper is refused. One worker pool serves several
// searches.
#include "mapwright/flows/layer_search.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "files.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"

#ifdef MAPWRIGHT_HAVE_RTL

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

namespace {

const char* kLayer = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1";

flows::RtlRewardOptions rtl_reward(int64_t warmup) {
  flows::RtlRewardOptions r;
  r.surrogate_warmup = warmup;
  r.jobs = 2;
  r.arch = "small4";
  return r;
}

/// What observe saw of one sample.
struct Seen {
  int64_t sample;
  bool valid;
  double cost;
  std::string reason;
  double surrogate_cost;  ///< 0 when the surrogate rejects the mapping.
  bool rtl;               ///< RTL metrics were reported.
  double rtl_cost;        ///< Objective of those metrics.
};

/// The RTL runs of a reward record without the simulations' wall time.
json without_time(json runs) {
  for (json& e : runs) e.erase("sim_seconds");
  return runs;
}

/// `mapwright search --reward rtl` of kLayer on small4 with ga, seed 1, 24 samples after a
/// warm-up of 8, in 2 workers, into `dir`.
flows::SearchCliOptions ga_search_on_small4(const fs::path& dir) {
  flows::SearchCliOptions o;
  o.arch = "small4";
  o.layer = kLayer;
  o.searcher = "ga";
  o.budget = 24;
  o.seed = 1;
  o.reward = "rtl";
  o.surrogate_warmup = 8;
  o.jobs = 2;
  o.worker_exe = MAPWRIGHT_WORKER_EXE;
  o.out_dir = dir.string();
  o.progress = false;
  return o;
}

}  // namespace

TEST(RtlReward, GaOnSmall4ScoresSamplesAfterTheWarmupOnTheRtl) {
  const core::Layer layer = core::parse_layer_arg(kLayer);
  const core::Arch arch = core::load_arch("small4");
  const core::Objective obj = core::parse_objective("edp");
  const search::SearchOptions opts = flows::load_options_or_default("");
  // The seed cmd_search gives layer 0 of a run seeded 1 (checked against the CLI flow below).
  const uint64_t seed = flows::layer_seed(1, 0);
  std::vector<Seen> seen;
  auto observe = [&](const flows::SampleSeen& s) {
    seen.push_back({s.sample, s.outcome->valid, s.outcome->cost, s.outcome->reason,
                    s.metrics->valid ? obj.cost(*s.metrics) : 0.0, s.rtl != nullptr,
                    s.rtl ? obj.cost(*s.rtl) : 0.0});
  };
  const auto workers = flows::rtl_reward_pool("small4", MAPWRIGHT_WORKER_EXE, 2);
  const flows::LayerSearchRequest rq{layer, arch, "ga", opts, seed, 24, obj};
  const flows::LayerSearch ls = flows::search_layer(
      rq, *flows::reward_evaluator(rq, rtl_reward(8), workers.get()), {{}, observe});
  ASSERT_EQ(ls.result.samples, 24);
  ASSERT_EQ(seen.size(), 24u);
  const json& w = ls.reward;
  EXPECT_EQ(w["source"], "rtl");
  EXPECT_EQ(w["surrogate_warmup"], 8);
  // Every sample after the warm-up that the surrogate accepts is simulated.
  int64_t after_warmup_valid = 0, surrogate_differs = 0;
  for (const Seen& s : seen) {
    if (s.sample < 8) {
      EXPECT_FALSE(s.rtl);
      if (s.valid) {
        EXPECT_DOUBLE_EQ(s.cost, s.surrogate_cost);
      }
      continue;
    }
    if (s.surrogate_cost == 0) continue;
    ++after_warmup_valid;
    if (s.valid) {
      ASSERT_TRUE(s.rtl) << "sample " << s.sample;
      EXPECT_DOUBLE_EQ(s.cost, s.rtl_cost) << "sample " << s.sample;
      surrogate_differs += s.cost != s.surrogate_cost;
    } else {
      EXPECT_EQ(s.reason.rfind("rtl: ", 0), 0u) << s.reason;
    }
  }
  EXPECT_EQ(w["rtl_samples"].get<int64_t>(), after_warmup_valid);
  EXPECT_EQ(after_warmup_valid, 16);  // The compact encoding's samples all fit.
  EXPECT_EQ(w["runs"].size(), 16u);
  EXPECT_GT(w["rtl_sim_seconds"].get<double>(), 0);
  // RTL and surrogate disagree somewhere (else this test would not tell them apart).
  EXPECT_GT(surrogate_differs, 0);
  // The operand seeds derive from the search seed and the sample index.
  for (const json& e : w["runs"])
    EXPECT_EQ(e["seed"].get<uint64_t>(), flows::rtl_operand_seed(seed, e["sample"].get<int64_t>()));
  // The workers serve the next search too: the same search again makes the same runs.
  const flows::LayerSearch again =
      flows::search_layer(rq, *flows::reward_evaluator(rq, rtl_reward(8), workers.get()));
  EXPECT_EQ(without_time(again.reward["runs"]), without_time(w["runs"]));

  // The best: its reported metrics are where its cost came from.
  ASSERT_TRUE(ls.result.found);
  EXPECT_DOUBLE_EQ(ls.result.best_cost, obj.cost(ls.metrics));
  if (w["best_from_rtl"].get<bool>()) {
    // An independent RTL run of the best mapping with the sample's seed gives the same numbers.
    rtlpool::RtlWorkerPool pool(MAPWRIGHT_WORKER_EXE, 1);
    rtlpool::RtlJob j;
    j.arch = "small4";
    j.layer = layer;
    j.mapping = ls.best;
    j.seed = flows::rtl_operand_seed(seed, ls.result.best_sample);
    pool.submit(j);
    std::vector<std::pair<size_t, rtlpool::RtlJobResult>> got;
    while (got.empty()) got = pool.poll(-1);
    ASSERT_TRUE(got[0].second.ok()) << got[0].second.failure;
    EXPECT_EQ(got[0].second.metrics.cycles, ls.metrics.cycles);
    EXPECT_DOUBLE_EQ(obj.cost(got[0].second.metrics), ls.result.best_cost);
  }

  // The CLI flow with seed 1 runs the same search (same seed -> same result) and records it.
  const fs::path dir = test_files::fresh_path("rtl_reward_cli");
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_search(ga_search_on_small4(dir), out), 0) << out.str();
  std::ifstream f(dir / "results.json");
  const json res = json::parse(f);
  EXPECT_EQ(res["reward"], "rtl");
  const json& L = res["layers"][0];
  EXPECT_EQ(L["reward"]["rtl_samples"], 16);
  // The same runs in the same order (the simulation's wall time aside).
  EXPECT_EQ(without_time(L["reward"]["runs"]), without_time(w["runs"]));
  for (size_t i = 0; i < w["runs"].size(); ++i)
    EXPECT_EQ(w["runs"][i]["sample"].get<int64_t>(), 8 + static_cast<int64_t>(i));
  EXPECT_DOUBLE_EQ(L["best"]["cost"].get<double>(), ls.result.best_cost);
  EXPECT_EQ(L["best"]["cost_source"], w["best_from_rtl"].get<bool>() ? "rtl" : "surrogate");
  EXPECT_EQ(L["best"]["metrics"]["cycles"].get<long long>(), ls.metrics.cycles);
  EXPECT_NE(out.str().find("rtl reward"), std::string::npos) << out.str();
  fs::remove_all(dir);
}

// A surrogate prior (--surrogate-prior): marl clusters on 64 surrogate-scored points that cost
// no budget, so with no warm-up every one of its samples is scored on the RTL; the run records
// the prior.
TEST(RtlReward, MarlWithASurrogatePriorSpendsEverySampleOnTheRtl) {
  const fs::path dir = test_files::fresh_path("rtl_reward_prior");
  flows::SearchCliOptions o = ga_search_on_small4(dir);
  o.searcher = "marl";
  o.budget = 12;
  o.surrogate_warmup = 0;
  o.surrogate_prior = 64;
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_search(o, out), 0) << out.str();
  const json res = json::parse(test_files::read_file(dir / "results.json"));
  EXPECT_EQ(res["surrogate_prior"], 64);
  const json& L = res["layers"][0];
  EXPECT_EQ(L["reward"]["rtl_samples"], 12);  // The compact encoding's samples all fit.
  EXPECT_EQ(L["searcher"]["prior"]["points"], 64);
  EXPECT_TRUE(L["searcher"]["prior"]["used_by_searcher"].get<bool>());
  EXPECT_FALSE(L["searcher"]["clustering"].is_null());
  EXPECT_NE(out.str().find("prior of 64 surrogate-scored points"), std::string::npos) << out.str();
  fs::remove_all(dir);
}

TEST(RtlReward, RefusesAnArchWithoutAModelAndTheExactMapper) {
  // 6 DRAM bytes per cycle: the RTL takes multiples of 4, so no model can be built.
  const std::string odd = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/odd_beat.yaml";
  const core::Layer layer = core::parse_layer_arg(kLayer);
  const core::Arch arch = core::load_arch(odd);
  const core::Objective obj = core::parse_objective("edp");
  const search::SearchOptions opts = flows::load_options_or_default("");
  flows::RtlRewardOptions r = rtl_reward(0);
  r.arch = odd;
  try {
    flows::rtl_reward_pool(odd, MAPWRIGHT_WORKER_EXE, 2);
    FAIL() << "no error";
  } catch (const core::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("--arch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("odd_beat.yaml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the RTL takes a multiple of 4"), std::string::npos)
        << e.what();
  }
  try {
    rtlpool::RtlWorkerPool pool(MAPWRIGHT_WORKER_EXE, 1);
    flows::reward_evaluator({layer, arch, "exact", opts, 1, 4, obj}, r, &pool);
    FAIL() << "no error";
  } catch (const core::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("the exact mapper optimizes the surrogate"),
              std::string::npos)
        << e.what();
  }
}

#endif  // MAPWRIGHT_HAVE_RTL
