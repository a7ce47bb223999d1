// The layer-search engine (flows/layer_search.hpp) through its evaluator seam: an evaluator sees
// every distinct mapping once, in sample order, and `observe` sees the same samples; an evaluator
// that scores like the surrogate gives the surrogate's search; a sample an evaluator scored from
// RTL metrics makes the best's metrics the RTL's and is recorded as such.
#include "mapwright/flows/layer_search.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;

namespace {

/// Scores like the surrogate; the sample `rtl_sample` (when the surrogate accepts it) gets
/// made-up RTL metrics of 1 cycle and 1 pJ, the best any sample can have. Logs what it saw.
class LoggingEvaluator final : public flows::BatchEvaluator {
 public:
  LoggingEvaluator(const flows::LayerSearchRequest& rq, int64_t rtl_sample)
      : rq_(rq), rtl_sample_(rtl_sample) {}

  std::vector<flows::Scored> evaluate(const std::vector<flows::FreshSample>& batch) override {
    std::vector<flows::Scored> out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      samples.push_back(batch[i].sample);
      mappings.push_back(core::mapping_to_yaml(*batch[i].mapping));
      flows::Scored& s = out[i];
      s.surrogate = model::Surrogate().evaluate(rq_.layer, rq_.arch, *batch[i].mapping);
      s.outcome.valid = s.surrogate.valid;
      if (!s.outcome.valid) {
        s.outcome.reason = s.outcome.failure_class = "invalid";
        continue;
      }
      s.outcome.cost = rq_.objective.cost(s.surrogate);
      if (batch[i].sample != rtl_sample_) continue;
      s.rtl = s.surrogate;
      s.rtl->cycles = 1;
      s.rtl->energy_pj = 1;
      s.outcome.cost = rq_.objective.cost(*s.rtl);
    }
    return out;
  }

  nlohmann::json reward_record(bool best_from_rtl) override {
    return {{"source", "logging"}, {"best_from_rtl", best_from_rtl}};
  }

  std::vector<int64_t> samples;       ///< Sample indices, in the order evaluated.
  std::vector<std::string> mappings;  ///< Their mappings as YAML.

 private:
  const flows::LayerSearchRequest& rq_;  ///< The search.
  const int64_t rtl_sample_;             ///< The sample with RTL metrics (-1: none).
};

struct Fixture {
  core::Layer layer = core::parse_layer_arg("conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1");
  core::Arch arch = core::load_arch("small4");
  search::SearchOptions options = flows::load_options_or_default("");
  core::Objective objective = core::parse_objective("edp");
  flows::LayerSearchRequest request{layer, arch, "random", options, 7, 60, objective};
};

}  // namespace

TEST(LayerSearch, AnEvaluatorSeesEachDistinctMappingOnceInSampleOrder) {
  const Fixture f;
  LoggingEvaluator ev(f.request, -1);
  std::vector<int64_t> observed;
  const flows::LayerSearch ls = flows::search_layer(
      f.request, ev, {{}, [&](const flows::SampleSeen& s) { observed.push_back(s.sample); }});
  ASSERT_EQ(static_cast<int64_t>(ev.samples.size()), ls.result.samples);
  for (size_t i = 0; i < ev.samples.size(); ++i) EXPECT_EQ(ev.samples[i], static_cast<int64_t>(i));
  EXPECT_EQ(observed, ev.samples);
  EXPECT_EQ(std::set<std::string>(ev.mappings.begin(), ev.mappings.end()).size(),
            ev.mappings.size());
  EXPECT_EQ(ls.reward["source"], "logging");
  EXPECT_FALSE(ls.reward["best_from_rtl"].get<bool>());

  // Scored like the surrogate, the search is the surrogate's.
  const flows::LayerSearch sur = flows::search_layer(f.request);
  EXPECT_EQ(sur.reward, nlohmann::json({{"source", "surrogate"}}));
  EXPECT_EQ(sur.result.best_so_far, ls.result.best_so_far);
  EXPECT_EQ(sur.result.best_sample, ls.result.best_sample);
  EXPECT_EQ(core::mapping_to_yaml(sur.best), core::mapping_to_yaml(ls.best));
  EXPECT_EQ(sur.metrics.cycles, ls.metrics.cycles);
}

TEST(LayerSearch, ABestScoredFromRtlMetricsReportsThem) {
  const Fixture f;
  LoggingEvaluator ev(f.request, 3);
  const flows::LayerSearch ls = flows::search_layer(f.request, ev);
  ASSERT_TRUE(ls.result.found);
  EXPECT_EQ(ls.result.best_sample, 3);
  EXPECT_EQ(ls.result.best_cost, 1);
  EXPECT_EQ(ls.metrics.cycles, 1);
  EXPECT_EQ(ls.metrics.energy_pj, 1);
  EXPECT_TRUE(ls.reward["best_from_rtl"].get<bool>());
}

// The gamma encoding (the paper's setting): a vector that names no mapping of the array is an
// invalid sample of kind "encoding" that the evaluator never sees; every distinct vector is a
// sample, even when two name one mapping; every sample is observed in order, and the best
// decodes to a mapping the surrogate scores at the best cost.
TEST(LayerSearch, GammaVectorsThatNameNoMappingAreEncodingFailures) {
  Fixture f;
  f.request.encoding = flows::Encoding::Gamma;
  f.request.budget = 400;
  LoggingEvaluator ev(f.request, -1);
  std::vector<int64_t> observed;
  int64_t unmapped = 0;
  const flows::LayerSearch ls =
      flows::search_layer(f.request, ev, {{}, [&](const flows::SampleSeen& s) {
                                            observed.push_back(s.sample);
                                            if (s.metrics->invalid == core::InvalidKind::Encoding) {
                                              ++unmapped;
                                              EXPECT_FALSE(s.outcome->valid);
                                              EXPECT_FALSE(s.metrics->reason.empty());
                                            }
                                          }});
  EXPECT_EQ(ls.searcher["encoding"], "gamma");
  EXPECT_EQ(ls.result.samples, 400);
  ASSERT_EQ(static_cast<int64_t>(observed.size()), 400);
  for (size_t i = 0; i < observed.size(); ++i) EXPECT_EQ(observed[i], static_cast<int64_t>(i));
  EXPECT_GT(unmapped, 0);
  EXPECT_EQ(ls.result.failures.at("encoding"), unmapped);
  EXPECT_EQ(static_cast<int64_t>(ev.samples.size()), 400 - unmapped);  // the rest were scored
  ASSERT_TRUE(ls.result.found);
  EXPECT_EQ(f.objective.cost(model::Surrogate().evaluate(f.layer, f.arch, ls.best)),
            ls.result.best_cost);
  EXPECT_TRUE(ls.best.db_input && ls.best.db_weight && ls.best.db_accum);
  EXPECT_EQ(flows::encoding_from_name("gamma"), flows::Encoding::Gamma);
  EXPECT_THROW(flows::encoding_from_name("maestro"), std::invalid_argument);
}

// A surrogate prior (LayerSearchRequest::surrogate_prior): the searcher is primed with that many
// surrogate-scored points, which the evaluator never sees and the budget never pays for; the
// record says so; the samples are the budget's, evaluated from sample 0.
TEST(LayerSearch, ASurrogatePriorIsNeitherEvaluatedNorCountedAndIsRecorded) {
  Fixture f;
  f.request.searcher = "sa";
  f.request.budget = 20;
  f.request.surrogate_prior = 64;
  LoggingEvaluator ev(f.request, -1);
  int64_t observed = 0;
  const flows::LayerSearch ls =
      flows::search_layer(f.request, ev, {{}, [&](const flows::SampleSeen&) { ++observed; }});
  EXPECT_EQ(ls.result.samples, 20);
  EXPECT_EQ(observed, 20);
  ASSERT_EQ(ev.samples.size(), 20u);
  EXPECT_EQ(ev.samples.front(), 0);
  const nlohmann::json& prior = ls.searcher["prior"];
  EXPECT_EQ(prior["source"], "surrogate");
  EXPECT_EQ(prior["points"], 64);
  EXPECT_TRUE(prior["used_by_searcher"].get<bool>());
  EXPECT_GT(prior["valid"].get<int64_t>(), 0);  // compact: every point fits
  // Without a prior: no record, and another walk (sa started elsewhere).
  f.request.surrogate_prior = 0;
  const flows::LayerSearch cold = flows::search_layer(f.request);
  EXPECT_FALSE(cold.searcher.contains("prior"));
  EXPECT_NE(cold.result.best_so_far, ls.result.best_so_far);
}
