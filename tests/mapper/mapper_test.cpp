// The exact mapper: equals brute force over the compact space for each objective on small
// layers, is deterministic (also across thread counts), and a time-limited run still returns
// a valid mapping with a proven lower bound not above its cost.
#include "mapwright/mapper/mapper.hpp"

#include <gtest/gtest.h>

#include "exact_solve.hpp"
#include "sanitized.hpp"
#include "test_layers.hpp"

#include <limits>
#include <random>

#include "mapwright/mapspace/compact_space.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

using namespace test_layers;  // conv, gemm, small

double brute_force(const Layer& l, const Arch& a, const core::Objective& obj) {
  model::Surrogate sur;
  double best = std::numeric_limits<double>::infinity();
  CompactSpace(l, a).for_each([&](const Mapping& m) {
    const Metrics met = sur.evaluate(l, a, m);
    if (met.valid) best = std::min(best, obj.cost(met));
  });
  return best;
}

void expect_exact(const Layer& l, const Arch& a) {
  for (const char* name : {"latency", "energy", "edp"}) {
    const mapper::Result r = mapper_test::solve_exact(l, a, name);
    ASSERT_TRUE(r.found) << name;
    EXPECT_EQ(r.best_cost, brute_force(l, a, core::parse_objective(name)))
        << name << " " << l.describe();
    EXPECT_TRUE(r.optimal) << name;
    EXPECT_EQ(r.stop, mapper::StopReason::ProvedOptimal);
    EXPECT_EQ(r.lower_bound, r.best_cost);
    EXPECT_TRUE(r.metrics.valid);
  }
}

}  // namespace

TEST(Mapper, EqualsBruteForceConv) {
  expect_exact(conv(6, 5, 7, 3, 1, 1), small(4, 4, 96, 64, 256));
}
TEST(Mapper, EqualsBruteForceStride2) {
  expect_exact(conv(5, 3, 9, 3, 2, 1), small(4, 3, 80, 64, 128));
}
TEST(Mapper, EqualsBruteForceDepthwise) {
  expect_exact(conv(1, 1, 8, 3, 1, 1, 6), small(4, 4, 100, 30, 200));
}
TEST(Mapper, EqualsBruteForceGemm) {
  expect_exact(gemm(12, 20, 9), small(4, 4, 128, 96, 256));
}

// Under the burst port the compact space keeps the tiles that change a tensor's beats: the
// mapper equals brute force over it for each objective on small layers, no random mapping of
// the raw space beats it, and on at least one layer the packed port's compact space (scored
// under bursts) misses the optimum.
TEST(Mapper, BurstPortEqualsBruteForceAndBeatsThePackedSpace) {
  int better = 0;
  for (const auto& [l, a0] :
       {std::pair<Layer, Arch>{conv(1, 1, 8, 3, 1, 1, 6), small(4, 4, 100, 30, 200)},
        {gemm(12, 34, 9), small(4, 4, 128, 96, 256)},
        {conv(3, 2, 6, 3, 2, 1), small(4, 3, 80, 64, 128)}}) {
    Arch a = a0;
    a.dram_port = DramPort::Bursts;
    a.dram_bytes_per_cycle = 16;
    expect_exact(l, a);
    const mapper::Result r = mapper_test::solve_exact(l, a);
    const core::Objective edp = mapper::Options{}.objective;
    const MapSpace space(l, a);
    std::mt19937_64 rng(17);
    model::Surrogate sur;
    for (int i = 0; i < 3000; ++i) {
      ParamVector v;
      if (!space.sample_valid(rng, v)) break;
      const Metrics met = sur.evaluate(l, a, space.decode(v));
      ASSERT_GE(edp.cost(met), r.best_cost) << l.describe();
    }
    // The packed port's compact space, scored under the burst port.
    Arch packed = a;
    packed.dram_port = DramPort::Packed;
    double packed_best = std::numeric_limits<double>::infinity();
    CompactSpace(l, packed).for_each([&](const Mapping& m) {
      const Metrics met = sur.evaluate(l, a, m);
      if (met.valid) packed_best = std::min(packed_best, edp.cost(met));
    });
    EXPECT_LE(r.best_cost, packed_best) << l.describe();
    better += r.best_cost < packed_best;
  }
  EXPECT_GT(better, 0);
}

TEST(Mapper, DeterministicAcrossRunsAndThreads) {
  const Arch small8 = load_arch("small8"), def = load_arch("default-ideal");
  for (const auto& [l, a] :
       {std::pair<Layer, Arch>{zoo_layer("resnet18", "layer4.0.conv2", "test"), small8},
        {zoo_layer("bert_base_s512", "ffn2", "test"), def}}) {
    mapper::Options o;
    o.threads = 1;
    const mapper::Result r1 = mapper::solve(l, a, o);
    o.threads = 2;
    const mapper::Result r2 = mapper::solve(l, a, o);
    o.threads = 3;
    const mapper::Result r3 = mapper::solve(l, a, o);
    ASSERT_TRUE(r1.found);
    for (const mapper::Result* r : {&r2, &r3}) {
      EXPECT_EQ(r1.best, r->best) << l.name;
      EXPECT_EQ(r1.best_cost, r->best_cost);
      EXPECT_EQ(r1.lower_bound, r->lower_bound);
      EXPECT_EQ(r1.nodes, r->nodes);
      EXPECT_EQ(r1.evaluations, r->evaluations);
      EXPECT_EQ(r1.pruned_bound, r->pruned_bound);
    }
    EXPECT_LE(r1.gap, 1e-3);
  }
}

TEST(Mapper, KeepsTheBestDistinctMappingsDeterministically) {
  const Arch small8 = load_arch("small8");
  const Layer l = zoo_layer("resnet18", "layer2.0.conv1", "test");
  model::Surrogate sur;
  mapper::Options o;
  o.keep = 4;
  o.threads = 1;
  const mapper::Result r1 = mapper::solve(l, small8, o);
  o.threads = 2;
  const mapper::Result r2 = mapper::solve(l, small8, o);
  ASSERT_TRUE(r1.found);
  ASSERT_EQ(r1.top.size(), 4u);
  EXPECT_EQ(r1.top[0].first, r1.best);
  for (size_t i = 0; i < r1.top.size(); ++i) {
    EXPECT_EQ(r1.top[i].first, r2.top[i].first) << i;  // same answer whatever the threads
    const core::Metrics m = sur.evaluate(l, small8, r1.top[i].first);
    ASSERT_TRUE(m.valid);
    EXPECT_EQ(o.objective.cost(m), o.objective.cost(r1.top[i].second)) << i;
    if (i > 0) {
      EXPECT_LE(o.objective.cost(r1.top[i - 1].second), o.objective.cost(r1.top[i].second)) << i;
      for (size_t j = 0; j < i; ++j) EXPECT_NE(r1.top[i].first, r1.top[j].first) << i << " " << j;
    }
  }
  // keep = 1 (the default) gives the same best, alone.
  o.keep = 1;
  const mapper::Result r3 = mapper::solve(l, small8, o);
  EXPECT_EQ(r3.best, r1.best);
  EXPECT_EQ(r3.top.size(), 1u);
}

TEST(Mapper, GapTargetGivesAProvenBracket) {
  // With a 5 % target the answer may be sub-optimal, but the bound is below the true optimum
  // and the reported gap is within the target.
  const Layer l = conv(6, 5, 7, 3, 1, 1);
  const Arch a = small(4, 4, 96, 64, 256);
  mapper::Options o;
  o.target_gap = 0.05;
  const mapper::Result r = mapper::solve(l, a, o);
  const double opt = brute_force(l, a, o.objective);
  ASSERT_TRUE(r.found);
  EXPECT_LE(r.lower_bound, opt);
  EXPECT_GE(r.best_cost, opt);
  EXPECT_LE(r.gap, 0.05);
  EXPECT_NE(r.stop, mapper::StopReason::TimeLimit);
}

TEST(Mapper, TimeLimitedRunIsValidWithBound) {
  // The raw space of this layer takes tens of seconds: a 0.3 s limit stops it early.
  const Layer l = zoo_layer("bert_base_s512", "ffn2", "test");
  const Arch a = load_arch("default-ideal");
  mapper::Options o;
  o.time_limit_s = 0.3;
  o.target_gap = 0;
  o.compact = false;
  const mapper::Result r = mapper::solve(l, a, o);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.stop, mapper::StopReason::TimeLimit);
  EXPECT_FALSE(r.optimal);
  EXPECT_TRUE(r.metrics.valid);
  EXPECT_LE(r.lower_bound, r.best_cost);
  EXPECT_GT(r.lower_bound, 0);
  EXPECT_GE(r.gap, 0);
  EXPECT_GE(r.seconds, o.time_limit_s);  // it ran to the limit (no upper bound: load varies)
  model::Surrogate sur;
  EXPECT_EQ(o.objective.cost(sur.evaluate(l, a, r.best)), r.best_cost);
  // The bound is below the optimum proved by the compact search.
  o.compact = true;
  o.time_limit_s = 0;
  const mapper::Result exact = mapper::solve(l, a, o);
  EXPECT_LE(r.lower_bound, exact.best_cost);
  EXPECT_GE(r.best_cost, exact.best_cost);
  std::printf("  time-limited: %s, gap %.4f%% after %.2f s\n", mapper::stop_reason_name(r.stop),
              100 * r.gap, r.seconds);
}

TEST(Mapper, NoRandomMappingBeatsItOnZooLayers) {
  const Arch a = load_arch("default-ideal");
  std::mt19937_64 rng(99);
  model::Surrogate sur;
  for (const auto& [net, name] : {std::pair<std::string, std::string>{"resnet18", "layer2.0.conv2"},
                                  {"mobilenet_v2", "features.2.conv.1"},
                                  {"bert_base_s128", "ffn1"}}) {
    Layer l;
    try {
      l = zoo_layer(net, name, "test");
    } catch (const SpecError&) {
      l = zoo_network(net).unique_layers()[1].first;
    }
    mapper::Options o;
    const mapper::Result r = mapper::solve(l, a, o);
    ASSERT_TRUE(r.found);
    const MapSpace space(l, a);
    double best_sample = std::numeric_limits<double>::infinity();
    ParamVector v;
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE(space.sample_valid(rng, v));
      best_sample = std::min(best_sample, o.objective.cost(sur.evaluate(l, a, space.decode(v))));
    }
    // Random samples are no better than the proven bound, and the optimum is at least as good.
    EXPECT_LE(r.best_cost, best_sample) << l.name;
    EXPECT_LE(r.lower_bound, best_sample) << l.name;
    std::printf("  %s: optimum %.4e, best of 3000 random %.4e (x%.2f)\n", l.name.c_str(),
                r.best_cost, best_sample, best_sample / r.best_cost);
  }
}

TEST(Mapper, NoSingleParameterChangeImprovesTheOptimumOnZooLayers) {
  // Every raw mapping one parameter away from the optimum (any tile size of one loop, any of
  // the 5040 orders, any PE use, dataflow or double-buffer choice) is no better.
  const Arch a = load_arch("default-ideal");
  model::Surrogate sur;
  const std::vector<std::pair<std::string, std::string>> layers = {
      {"resnet18", "layer2.0.conv2"}, {"resnet18", "conv1"},
      {"resnet50", "layer3.0.conv1"}, {"vgg16", "conv1_2"},
      {"bert_base_s512", "ffn2"},     {"mobilenet_v2", "features.2.dw"}};
  int layers_checked = 0;
  for (const auto& [net, name] : layers) {
    Layer l;
    try {
      l = zoo_layer(net, name, "test");
    } catch (const SpecError&) {
      continue;
    }
    ++layers_checked;
    mapper::Options o;
    o.target_gap = 0;
    const mapper::Result r = mapper::solve(l, a, o);
    ASSERT_TRUE(r.found);
    auto check = [&](const Mapping& m) {
      const Metrics met = sur.evaluate(l, a, m);
      if (met.valid) {
        ASSERT_GE(o.objective.cost(met), r.best_cost) << l.name << "\n" << mapping_to_yaml(m);
      }
    };
    Mapping m = r.best;
    for (int d = 0; d < kNumDims; ++d)
      for (long long t = 1; t <= l.dim(static_cast<Dim>(d)); ++t) {
        m = r.best;
        m.tile[d] = t;
        check(m);
      }
    for (long long i = 0; i < 5040; ++i) {
      m = r.best;
      m.order = order_from_index(i);
      check(m);
    }
    for (int pr = 1; pr <= a.rows; ++pr)
      for (int pc = 1; pc <= a.cols; ++pc)
        for (int df = 0; df < 3; ++df)
          for (int db = 0; db < 8; ++db) {
            m = r.best;
            m.pe_rows = pr;
            m.pe_cols = pc;
            m.dataflow = static_cast<Dataflow>(df);  // WS, OS, IS
            m.db_input = db & 1;
            m.db_weight = db & 2;
            m.db_accum = db & 4;
            check(m);
          }
  }
  EXPECT_GE(layers_checked, 4);
}

TEST(Mapper, CompactEqualsRawSpaceSearchOnZooLayers) {
  // The same branch-and-bound over every tile size, PE use and double-buffer choice (the raw
  // space; orders by reuse class) finds the same optimum as over the compact space.
  const Arch a = load_arch("default-ideal");
  int k = 0;  // the case's index (test_cases::runs)
  for (const auto& [net, name] : {std::pair<std::string, std::string>{"resnet18", "conv1"},
                                  {"resnet18", "layer4.0.conv2"},
                                  {"mobilenet_v2", "features.2.dw"},
                                  {"resnet50", "layer2.0.conv2"}}) {
    const Layer l = zoo_layer(net, name, "test");
    for (const char* obj : {"edp", "latency", "energy"}) {
      if (!test_cases::runs(k++)) continue;
      mapper::Options o;
      o.objective = core::parse_objective(obj);
      o.target_gap = 0;
      const mapper::Result compact = mapper::solve(l, a, o);
      o.compact = false;
      o.time_limit_s = 15;
#ifdef __SANITIZE_ADDRESS__
      // Under ASan + UBSan (scripts/run-sanitized-tests.sh) the raw search runs several times
      // slower; the test needs the proof, not the speed, so it gets a longer limit there.
      o.time_limit_s = 120;
#endif
      const mapper::Result raw = mapper::solve(l, a, o);
      ASSERT_EQ(raw.stop, mapper::StopReason::ProvedOptimal) << name << " " << obj;
      EXPECT_EQ(compact.best_cost, raw.best_cost) << name << " " << obj;
      EXPECT_TRUE(compact.optimal);
    }
  }
}

TEST(Mapper, ObjectiveNames) {
  EXPECT_EQ(core::parse_objective("edp").latency, 1);
  EXPECT_EQ(core::parse_objective("latency").energy, 0);
  EXPECT_EQ(core::parse_objective("energy").latency, 0);
}

TEST(Mapper, ObjectiveNames_bad) {
  try {
    core::parse_objective("speed", "--objective");
    FAIL() << "accepted an unknown objective";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.where(), "--objective");
    EXPECT_EQ(e.value(), "speed");
    EXPECT_NE(std::string(e.what()).find("known: edp, latency, energy"), std::string::npos);
  }
}

TEST(Mapper, NothingFits) {
  const Layer l = conv(6, 5, 7, 3, 1, 1);
  const mapper::Result r = mapper::solve(l, small(4, 4, 0, 0, 0));
  EXPECT_FALSE(r.found);
  EXPECT_FALSE(r.optimal);
  EXPECT_EQ(r.stop, mapper::StopReason::Infeasible);
}
