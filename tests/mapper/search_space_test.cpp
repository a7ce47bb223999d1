// The compact search encoding (mapspace/search_space.hpp): every decoded random vector fits the
// buffers; the 15 order representatives cover every reuse class for any trips; every compact
// mapping of small layers and the exact mapper's optimum of zoo layers (EDP, latency, energy)
// are reachable (encode then decode gives identical surrogate metrics); space sizes and decode
// speed are printed next to the raw MapSpace's.
#include "mapwright/mapspace/search_space.hpp"

#include <gtest/gtest.h>

#include "exact_solve.hpp"
#include "sanitized.hpp"
#include "test_layers.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "mapwright/mapspace/compact_space.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/mapper/mapper.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

using namespace test_layers;  // conv, gemm, small

std::vector<Layer> zoo_layers() {
  return {zoo_layer("resnet18", "layer2.0.conv1", "test"),
          zoo_layer("mobilenet_v2", "features.2.dw", "test"), zoo_layer("vgg16", "conv3_2", "test"),
          zoo_layer("bert_base_s128", "ffn1", "test"),
          zoo_layer("resnet50", "layer4.0.conv3", "test")};
}

/// Draws `n` vectors uniformly over the full parameter ranges of `space`, decodes each and calls
/// `check(vector, mapping)`, stopping at a fatal failure; returns how many decodes repaired their
/// vector.
template <class Check>
long long decode_random_vectors(const SearchSpace& space, std::mt19937_64& rng, int n,
                                Check check) {
  long long repaired = 0;
  for (int i = 0; i < n && !::testing::Test::HasFatalFailure(); ++i) {
    ParamVector v(space.params().size());
    for (size_t j = 0; j < v.size(); ++j)
      v[j] = std::uniform_int_distribution<long long>(0, space.params()[j].cardinality - 1)(rng);
    bool rep = false;
    const Mapping m = space.decode(v, &rep);
    repaired += rep;
    check(v, m);
  }
  return repaired;
}

bool same_metrics(const Metrics& a, const Metrics& b) {
  return a.valid == b.valid && a.cycles == b.cycles && a.energy_pj == b.energy_pj;
}

}  // namespace

TEST(SearchSpace, OrderRepresentativesCoverEveryClass) {
  std::mt19937_64 rng(5);
  const auto& reps = search_order_reps();
  for (const auto& o : reps) {  // each is a permutation of N K C P Q R S
    std::array<int, kNumDims> seen{};
    for (Dim d : o) ++seen[static_cast<int>(d)];
    for (int d = 0; d < kNumOrderedDims; ++d) EXPECT_EQ(seen[d], 1);
  }
  for (int it = 0; it < 300; ++it) {
    std::array<long long, kNumDims> T{};
    for (auto& t : T) t = std::uniform_int_distribution<long long>(1, 3)(rng);
    std::vector<OrderReuse> have;
    for (const auto& o : reps) have.push_back(order_reuse(T, o));
    for (long long i = 0; i < 5040; i += (it % 7) + 1) {  // every order lands in a class
      const OrderReuse r = order_reuse(T, order_from_index(i));
      EXPECT_NE(std::find(have.begin(), have.end(), r), have.end()) << "order " << i;
    }
    for (const auto& o : order_classes(T))
      EXPECT_NE(std::find(have.begin(), have.end(), order_reuse(T, o)), have.end());
  }
}

TEST(SearchSpace, EveryDecodedRandomVectorFits) {
  std::mt19937_64 rng(42);
  model::Surrogate sur;
  std::vector<std::pair<Layer, Arch>> cases;
  for (const Layer& l : zoo_layers()) {
    cases.push_back({l, load_arch("small8")});
    cases.push_back({l, load_arch("small4")});
    cases.push_back({l, small(8, 4, 4096, 2048, 1024)});
  }
  cases.push_back({conv(6, 5, 7, 3, 1, 1), small(4, 4, 96, 64, 256)});
  cases.push_back({conv(1, 1, 8, 3, 1, 1, 6), small(4, 4, 100, 30, 200)});
  cases.push_back({gemm(12, 20, 9), small(4, 4, 128, 96, 256)});
  for (const auto& c : cases) {
    const Layer& l = c.first;
    const Arch& a = c.second;
    const SearchSpace space(l, a);
    const int n = 2000;
    const long long repaired =
        decode_random_vectors(space, rng, n, [&](const ParamVector&, const Mapping& m) {
          ASSERT_TRUE(space.check(m).ok()) << l.describe() << ": " << space.check(m).reason();
          ASSERT_NO_THROW(check_mapping(m, l, a, "test"));
          ASSERT_TRUE(sur.evaluate(l, a, m).valid);
          bool rep2 = true;  // a decoded mapping is a fixed point: it encodes to a fitting vector
          Mapping back = space.decode(space.encode(m), &rep2);
          const auto T = trip_counts(l, m);
          EXPECT_TRUE(order_reuse(T, back.order) == order_reuse(T, m.order));
          back.order = m.order;  // the first representative of the same class
          EXPECT_EQ(back, m) << l.describe();
          EXPECT_FALSE(rep2);
        });
    if (HasFatalFailure()) return;
    std::cout << "[ info ] " << l.name << " on " << a.name << " " << a.input_buf_bytes << "/"
              << a.weight_buf_bytes << "/" << a.accum_buf_bytes << ": " << repaired << "/" << n
              << " repaired\n";
  }
}

// On the bursts DRAM port decode also repairs an input tile without a burst descriptor:
// random vectors of small layers with strides up to 3 above filters of 1..3, padding, groups and
// batches decode to mappings the RTL can run (core::check_valid). A vector whose own tiles fit
// the buffers keeps them unless they lack a descriptor; then only the P, Q, G and N tiles shrink.
TEST(SearchSpace, BurstsPortDecodedVectorsHaveADescriptor) {
  std::mt19937_64 rng(77);
  auto pick = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(rng);
  };
  Arch a = load_arch("small4");
  a.dram_port = DramPort::Bursts;
  long long decoded = 0, kept = 0, needed = 0;
  for (int li = 0; li < 120; ++li) {
    const long long r = pick(1, 3), stride = pick(1, 3), pad = pick(0, r - 1);
    const long long h = pick(std::max(r, 4LL), 12), g = pick(1, 3);
    const Layer l = g > 1 ? conv(1, 1, h, r, stride, pad, g, pick(1, 2))
                          : conv(pick(1, 8), pick(1, 6), h, r, stride, pad, 1, pick(1, 2));
    const SearchSpace space(l, a);
    std::array<int, kNumDims> param{};
    param.fill(-1);
    for (size_t j = 0; j < space.params().size(); ++j)
      for (int d = 0; d < kNumDims; ++d)
        if (space.params()[j].name == std::string("tile_") + dim_name(static_cast<Dim>(d)))
          param[d] = static_cast<int>(j);
    for (int i = 0; i < 60; ++i) {
      ParamVector v(space.params().size());
      for (size_t j = 0; j < v.size(); ++j)
        v[j] = space.params()[j].name.rfind("db_", 0) == 0
                   ? 0  // no double buffering: the capacity repair changes only tiles
                   : pick(0, space.params()[j].cardinality - 1);
      bool rep = false;
      const Mapping m = space.decode(v, &rep);
      const Validity val = check_valid(l, a, m);
      ASSERT_TRUE(val.ok()) << l.describe() << ": " << val.reason();
      ++decoded;
      Mapping own = m;  // the vector's own tiles
      for (int d = 0; d < kNumDims; ++d)
        if (param[d] >= 0) own.tile[d] = space.tile_sizes(static_cast<Dim>(d))[v[param[d]]];
      if (!check_capacity(l, a, own).ok()) continue;
      if (descriptor_problem(l, a, own).empty()) {
        ++kept;
        EXPECT_FALSE(rep) << l.describe();
        EXPECT_EQ(m.tile, own.tile) << l.describe();
        continue;
      }
      ++needed;
      EXPECT_TRUE(rep) << l.describe();
      for (int d = 0; d < kNumDims; ++d) {
        const Dim dim = static_cast<Dim>(d);
        if (dim == Dim::P || dim == Dim::Q || dim == Dim::G || dim == Dim::N) {
          EXPECT_LE(m.tile[d], own.tile[d]) << dim_name(dim) << "; " << l.describe();
        } else {
          EXPECT_EQ(m.tile[d], own.tile[d]) << dim_name(dim) << "; " << l.describe();
        }
      }
    }
  }
  std::printf(
      "[ info ] %lld decoded vectors: %lld fit with a descriptor as drawn, %lld fit "
      "without one and were repaired\n",
      decoded, kept, needed);
  EXPECT_GT(needed, 50) << "too few vectors needed the repair";
}

TEST(SearchSpace, EveryCompactMappingOfSmallLayersIsReachable) {
  model::Surrogate sur;
  const std::vector<std::pair<Layer, Arch>> cases = {
      {conv(6, 5, 7, 3, 1, 1), small(4, 4, 96, 64, 256)},
      {conv(5, 3, 9, 3, 2, 1), small(4, 3, 80, 64, 128)},
      {conv(1, 1, 8, 3, 1, 1, 6), small(4, 4, 100, 30, 200)},
      {gemm(12, 20, 9), small(4, 4, 128, 96, 256)}};
  for (const auto& [l, a] : cases) {
    const SearchSpace space(l, a);
    long long n = 0, bad = 0;
    CompactSpace(l, a).for_each([&](const Mapping& m) {
      if (n++ % 7) return;  // a deterministic seventh of the compact space
      bool rep = true;
      const Mapping back = space.decode(space.encode(m), &rep);
      const bool ok = !rep && same_metrics(sur.evaluate(l, a, m), sur.evaluate(l, a, back));
      bad += !ok;
      if (!ok && bad < 5) ADD_FAILURE() << l.describe() << "\n" << mapping_to_yaml(m);
    });
    EXPECT_EQ(bad, 0) << l.describe() << " of " << n;
  }
}

TEST(SearchSpace, ExactOptimaOfZooLayersAreReachable) {
  model::Surrogate sur;
  std::vector<Layer> layers = zoo_layers();
  layers.push_back(zoo_layer("resnet18", "conv1", "test"));  // P = Q = 112, R = S = 7
  layers.push_back(zoo_layer("mobilenet_v2", "features.1.dw", "test"));
  int k = 0;  // the case's index (test_cases::runs)
  for (const Arch& a : {load_arch("default-ideal"), load_arch("small8")}) {
    for (const Layer& l : layers) {
      const SearchSpace space(l, a);
      const MapSpace raw(l, a);
      std::cout << "[ info ] " << l.name << " on " << a.name << ": raw 10^" << raw.log10_size()
                << ", search 10^" << space.log10_size() << " (" << space.params().size()
                << " parameters)\n";
      for (const char* name : {"edp", "latency", "energy"}) {
        if (!test_cases::runs(k++)) continue;
        const mapper::Result r = mapper_test::solve_exact(l, a, name);
        ASSERT_TRUE(r.found) << l.name << " " << name;
        bool rep = true;
        const Mapping back = space.decode(space.encode(r.best), &rep);
        EXPECT_FALSE(rep) << l.name << " " << name;
        const Metrics met = sur.evaluate(l, a, back);
        EXPECT_TRUE(same_metrics(met, r.metrics))
            << l.name << " on " << a.name << " " << name << ": "
            << core::parse_objective(name).cost(met) << " vs " << r.best_cost << "\n"
            << mapping_to_yaml(r.best) << "decoded:\n"
            << mapping_to_yaml(back);
      }
    }
  }
}

// Random vectors over the whole parameter ranges decode to mappings that fit (decode repairs the
// ones that overflow a buffer), the same mapping each time. Decode speed is measured by
// bench/encoding_bench, not here.
TEST(SearchSpace, DecodesEveryRandomVectorToAFittingMapping) {
  const Layer l = zoo_layer("vgg16", "conv3_2", "test");
  const Arch a = load_arch("small8");
  const SearchSpace space(l, a);
  std::mt19937_64 rng(1);
  model::Surrogate sur;
  const int n = 2000;
  const long long repaired =
      decode_random_vectors(space, rng, n, [&](const ParamVector& v, const Mapping& m) {
        const Metrics met = sur.evaluate(l, a, m);
        ASSERT_TRUE(met.valid) << met.reason;
        ASSERT_TRUE(space.decode(v) == m);
      });
  if (HasFatalFailure()) return;
  EXPECT_GT(repaired, 0);  // the full ranges overflow the 8x8 array's buffers
  EXPECT_LT(repaired, n);
}
