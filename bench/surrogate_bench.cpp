// Surrogate throughput: evaluations per second on one core over random valid mappings of
// every unique ResNet-50 layer on the default architecture. Side by side in one run: the
// closed-form surrogate, the refined cycle estimate, the capacity check alone, the tile-program
// walk (the exact counts the closed form replaces) and the walked reference schedule (the exact
// cycles both estimates approximate), so the ratios between them are measured, not assumed.
// Decode plus evaluate from the compact search encoding (BM_DecodeEvaluateCompact) is the C++
// side of the Python module's batch form (bench/python_batch.py).
// On default-bursts: the surrogate and the burst-descriptor check alone over random mappings
// that fit the buffers, servable or not (what a search scores on that port).
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapspace/search_space.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

struct Case {
  Layer layer;
  Mapping mapping;
};

const Arch& arch() {
  static const Arch a = load_arch("default");
  return a;
}

/// 4096 random mappings spread over ResNet-50's unique layers on `a`: valid ones (sample_valid)
/// or, with `fitting`, any that fit the buffers (what a search scores, servable or not).
std::vector<Case> draw_cases(const Arch& a, uint64_t seed, bool fitting) {
  std::vector<Case> out;
  std::mt19937_64 rng(seed);
  const auto unique = zoo_network("resnet50").unique_layers();
  for (int i = 0; out.size() < 4096; ++i) {
    const Layer& l = unique[i % unique.size()].first;
    const MapSpace space(l, a);
    ParamVector v;
    if (!fitting) {
      if (space.sample_valid(rng, v)) out.push_back({l, space.decode(v)});
    } else if (const Mapping m = space.decode(space.sample_naive(rng));
               check_capacity(l, a, m).ok()) {
      out.push_back({l, m});
    }
  }
  return out;
}

/// Valid mappings on the default architecture (seed 42).
const std::vector<Case>& cases() {
  static const std::vector<Case> cs = draw_cases(arch(), 42, false);
  return cs;
}

const Arch& bursts_arch() {
  static const Arch a = load_arch("default-bursts");
  return a;
}

/// Mappings that fit default-bursts' buffers, with or without a burst descriptor (seed 43).
const std::vector<Case>& fitting_cases() {
  static const std::vector<Case> cs = draw_cases(bursts_arch(), 43, true);
  return cs;
}

/// Surrogate evaluations per second over `cs` on `a`.
void surrogate_evaluate(benchmark::State& state, const std::vector<Case>& cs, const Arch& a) {
  model::Surrogate s;
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(s.evaluate(c.layer, a, c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_SurrogateEvaluate(benchmark::State& state) {
  surrogate_evaluate(state, cases(), arch());
}
BENCHMARK(BM_SurrogateEvaluate);

/// Decode and evaluate from the compact search encoding (core::SearchSpace), what a sampling
/// searcher and the Python module's Space.evaluate_batch do per point: uniform random vectors
/// over ResNet-50's unique layers on the default architecture (seed 42), 4096 per layer.
void BM_DecodeEvaluateCompact(benchmark::State& state) {
  struct LayerCodes {
    std::unique_ptr<SearchSpace> space;  ///< The layer's compact encoding.
    std::vector<ParamVector> codes;      ///< Random points of it.
  };
  static const std::vector<LayerCodes> layers = [] {
    std::vector<LayerCodes> out;
    std::mt19937_64 rng(42);
    for (const auto& [l, count] : zoo_network("resnet50").unique_layers()) {
      LayerCodes lc{std::make_unique<SearchSpace>(l, arch()), {}};
      for (int i = 0; i < 4096; ++i) {
        ParamVector v;
        for (const auto& p : lc.space->params())
          v.push_back(std::uniform_int_distribution<long long>(0, p.cardinality - 1)(rng));
        lc.codes.push_back(v);
      }
      out.push_back(std::move(lc));
    }
    return out;
  }();
  model::Surrogate s;
  size_t i = 0;
  for (auto _ : state) {
    const LayerCodes& lc = layers[(i >> 12) % layers.size()];
    const ParamVector& v = lc.codes[i++ & 4095];
    benchmark::DoNotOptimize(s.evaluate(lc.space->layer(), arch(), lc.space->decode(v)));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeEvaluateCompact);

void BM_SurrogateEvaluateBursts(benchmark::State& state) {
  surrogate_evaluate(state, fitting_cases(), bursts_arch());
}
BENCHMARK(BM_SurrogateEvaluateBursts);

void BM_DescriptorProblem(benchmark::State& state) {
  const auto& cs = fitting_cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(descriptor_problem(c.layer, bursts_arch(), c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
  long long without = 0;
  for (const Case& c : cs)
    without += !descriptor_problem(c.layer, bursts_arch(), c.mapping).empty();
  state.counters["without_pct"] = 100.0 * static_cast<double>(without) / cs.size();
}
BENCHMARK(BM_DescriptorProblem);

void BM_RefinedCycles(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::refined_cycles(c.layer, arch(), c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RefinedCycles);

// Bank conflicts of 17-bank input and weight buffers (model/bank_conflicts.hpp): the factored
// closed form (its fold-list cache warm after the first of many passes over the 4096 cases), and
// the per-fold walk of the tile program it equals.
void BM_BankStallsClosedForm(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::closed_form_bank_stalls(c.layer, c.mapping, 17));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankStallsClosedForm);

// The same banked terms summed op shape by op shape with every fold list built anew (the closed
// form before the factored one and its fold-list cache), and the factored form with the calling
// thread's fold-list cache emptied before every evaluation (every list built: its worst case).
void BM_BankTotalsShapeSum(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::shape_sum_bank_totals(c.layer, c.mapping, 17));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankTotalsShapeSum);

void BM_BankTotalsColdCache(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    model::clear_bank_fold_cache();
    benchmark::DoNotOptimize(model::closed_form_bank_totals(c.layer, c.mapping, 17));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankTotalsColdCache);

void BM_BankStallsWalk(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::fold_bank_stalls(c.layer, arch(), c.mapping, 17));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BankStallsWalk)->MinTime(2.0);

void BM_CapacityCheckOnly(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(check_capacity(c.layer, arch(), c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CapacityCheckOnly);

void BM_WalkCounts(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(count_by_walk(c.layer, arch(), c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WalkCounts)->MinTime(2.0);

void BM_ReferenceSchedule(benchmark::State& state) {
  const auto& cs = cases();
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::simulate_schedule(c.layer, arch(), c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReferenceSchedule)->MinTime(2.0);

// The same on the default array with 17-bank input and weight buffers (default-banked's
// banking): every compute op adds its bank cycles (model::OpBankCycles).
void BM_ReferenceScheduleBanked(benchmark::State& state) {
  const auto& cs = cases();
  Arch banked = arch();
  banked.buffer_banks = 17;
  size_t i = 0;
  for (auto _ : state) {
    const Case& c = cs[i++ & 4095];
    benchmark::DoNotOptimize(model::simulate_schedule(c.layer, banked, c.mapping));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReferenceScheduleBanked)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
