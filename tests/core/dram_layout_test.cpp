// core::dram_segments (the DRAM runs of a DMA operation) against a brute-force enumeration of
// the tile's elements in the DRAM layout.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"

#include "test_layers.hpp"

using namespace mapwright::core;

namespace {

/// DRAM bytes of the op's tile, element by element.
std::set<uint64_t> brute_force(const Layer& l, const DramLayout& at, const TileOp& op) {
  std::set<uint64_t> bytes;
  const TileBox& b = op.box;
  auto range = [&](Dim d) { return std::make_pair(b.lo_of(d), b.lo_of(d) + b.ext_of(d)); };
  const auto [g0, g1] = range(Dim::G);
  const auto [n0, n1] = range(Dim::N);
  const auto [k0, k1] = range(Dim::K);
  const auto [c0, c1] = range(Dim::C);
  const auto [p0, p1] = range(Dim::P);
  const auto [q0, q1] = range(Dim::Q);
  const auto [r0, r1] = range(Dim::R);
  const auto [s0, s1] = range(Dim::S);
  for (int64_t g = g0; g < g1; ++g) switch (op.kind) {
      case OpKind::LoadInput:
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t p = p0; p < p1; ++p)
            for (int64_t r = r0; r < r1; ++r)
              for (int64_t q = q0; q < q1; ++q)
                for (int64_t s = s0; s < s1; ++s) {
                  const int64_t h = p * l.stride + r - l.pad, w = q * l.stride + s - l.pad;
                  if (h < 0 || h >= l.h || w < 0 || w >= l.w) continue;
                  for (int64_t c = c0; c < c1; ++c)
                    bytes.insert(
                        at.input +
                        static_cast<uint64_t>(((n * l.h + h) * l.w + w) * l.g * l.c + g * l.c + c));
                }
        break;
      case OpKind::LoadWeight:
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t s = s0; s < s1; ++s)
            for (int64_t c = c0; c < c1; ++c)
              for (int64_t k = k0; k < k1; ++k)
                bytes.insert(at.weight + static_cast<uint64_t>(
                                             (((g * l.r + r) * l.s + s) * l.c + c) * l.k + k));
        break;
      default: {
        const bool psum = op.kind != OpKind::StoreOutput;
        const uint64_t eb = psum ? 4 : 1;
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t p = p0; p < p1; ++p)
            for (int64_t q = q0; q < q1; ++q)
              for (int64_t k = k0; k < k1; ++k)
                for (uint64_t e = 0; e < eb; ++e)
                  bytes.insert((psum ? at.psum : at.output) +
                               eb * static_cast<uint64_t>(((n * l.p + p) * l.q + q) * l.g * l.k +
                                                          g * l.k + k) +
                               e);
      }
    }
  return bytes;
}

/// The DRAM runs of `op` and the sum over them of ceil(len / beat), for each beat size.
std::vector<long long> run_beats(const Layer& l, const DramLayout& at, const TileOp& op,
                                 const std::vector<long long>& beats) {
  std::vector<DramSegment> segs;
  dram_segments(l, at, op, segs);
  std::vector<long long> out;
  for (long long bb : beats) {
    long long sum = 0;
    for (const DramSegment& s : segs) sum += (static_cast<long long>(s.len) + bb - 1) / bb;
    out.push_back(sum);
  }
  return out;
}

/// Ten small layers with groups, batches, strides above the filter size and padding.
std::vector<Layer> ten_layers() {
  using mapwright::test_layers::conv;
  // conv(k, c, h, r, stride, pad, g, n)
  return {conv(6, 5, 9, 3, 1, 1),       conv(2, 2, 10, 3, 2, 1, 3, 2), conv(4, 3, 11, 2, 3, 1),
          conv(1, 1, 8, 3, 2, 1, 4),    conv(5, 8, 1, 1, 1, 0, 1, 3),  conv(3, 2, 5, 1, 2, 0, 1, 3),
          conv(2, 1, 7, 2, 3, 0, 2, 2), conv(3, 3, 6, 1, 1, 0, 1, 2),  conv(2, 1, 7, 2, 2, 1, 1, 2),
          conv(3, 2, 7, 2, 2, 1, 2, 3)};
}

/// Calls f(layer, layout, mapping, op) for every DMA operation of `samples` random valid
/// mappings (seed `seed`) of each layer on small4.
template <class F>
void for_each_dma_op(const std::vector<Layer>& layers, int samples, uint64_t seed, F f) {
  const Arch a = load_arch("small4");
  std::mt19937_64 rng(seed);
  for (const Layer& l : layers) {
    const DramLayout at = dram_layout(l);
    const MapSpace space(l, a);
    for (int i = 0; i < samples; ++i) {
      ParamVector v;
      ASSERT_TRUE(space.sample_valid(rng, v));
      const Mapping m = space.decode(v);
      walk_tile_program(l, a, m, [&](const TileOp& op) {
        if (op.kind != OpKind::Compute) f(l, at, m, op);
      });
    }
  }
}

}  // namespace

// Every DMA operation of random mappings of layers with groups, strides above the filter size
// and padding: the runs cover exactly the tile's bytes, each once, add up to the op's bytes,
// lie in the tensor's region, and no two consecutive runs touch (they are merged).
TEST(DramSegments, CoverExactlyTheTileBytes) {
  std::vector<Layer> layers = ten_layers();
  layers.resize(5);  // the first five
  for (const Layer& l : layers)
    EXPECT_EQ(dram_layout(l).bytes,
              static_cast<uint64_t>(l.input_elems() + l.weight_elems() + 5 * l.output_elems()));
  long long ops = 0;
  for_each_dma_op(
      layers, 30, 3, [&](const Layer& l, const DramLayout& at, const Mapping&, const TileOp& op) {
        std::vector<DramSegment> segs;
        dram_segments(l, at, op, segs);
        std::multiset<uint64_t> got;
        uint64_t sum = 0;
        for (size_t j = 0; j < segs.size(); ++j) {
          ASSERT_GT(segs[j].len, 0u);
          if (j > 0) {
            ASSERT_NE(segs[j - 1].addr + segs[j - 1].len, segs[j].addr);
          }
          for (uint64_t x = 0; x < segs[j].len; ++x) got.insert(segs[j].addr + x);
          sum += segs[j].len;
        }
        ASSERT_EQ(sum, static_cast<uint64_t>(op.bytes)) << op_kind_name(op.kind);
        const std::set<uint64_t> want = brute_force(l, at, op);
        ASSERT_EQ(got.size(), want.size()) << op_kind_name(op.kind) << " " << l.describe();
        ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin()))
            << op_kind_name(op.kind) << " " << l.describe();
        ++ops;
      });
  EXPECT_GT(ops, 1000);
}

// burst_beats, computed from the tile's shape, against the runs dram_segments lists, for beats
// of 1, 3, 4 and 16 bytes: layers whose input tiles hold both edges of a row with gaps between
// (stride 2 and 3 with 1x1 and 2x2 filters, one with padding 1: when the row tile holds two
// filter rows and the column tile one, runs join across rows and images), groups,
// padding and batches.
TEST(BurstBeats, EqualTheSumOverTheRuns) {
  const std::vector<Layer> layers = ten_layers();
  long long ops = 0;
  for_each_dma_op(layers, 40, 5,
                  [&](const Layer& l, const DramLayout& at, const Mapping& m, const TileOp& op) {
                    const std::vector<long long> beats = {1, 3, 4, 16};
                    const std::vector<long long> want = run_beats(l, at, op, beats);
                    for (size_t i = 0; i < beats.size(); ++i) {
                      const long long bb = beats[i];
                      ASSERT_EQ(burst_beats(l, op, bb), want[i])
                          << op_kind_name(op.kind) << " " << l.describe() << " beat " << bb << "\n"
                          << mapping_to_yaml(m);
                    }
                    ++ops;
                  });
  EXPECT_GT(ops, 1500);
}

// Every input tile box of whole pixels (every range of N, P, R, Q and S) of small layers with
// padding, strides above the filter tile and batches: the cases where the column tile holds
// both edges of a row with gaps between, so that runs join across rows and images, included.
TEST(BurstBeats, EqualTheRunsOfEveryInputBox) {
  using mapwright::test_layers::conv;
  const Layer layers[] = {conv(2, 1, 7, 2, 2, 1, 1, 2), conv(3, 2, 7, 2, 2, 1, 2, 3),
                          conv(1, 3, 5, 1, 2, 0, 1, 2), conv(1, 1, 6, 3, 2, 1, 1, 2)};
  long long boxes = 0, joined = 0;
  for (const Layer& l : layers) {
    const DramLayout at = dram_layout(l);
    auto ranges = [](long long n) {
      std::vector<std::pair<long long, long long>> r;
      for (long long lo = 0; lo < n; ++lo)
        for (long long e = 1; lo + e <= n; ++e) r.push_back({lo, e});
      return r;
    };
    TileOp op;
    op.kind = OpKind::LoadInput;
    op.box.ext[static_cast<int>(Dim::G)] = l.g;
    op.box.ext[static_cast<int>(Dim::C)] = l.c;
    op.box.ext[static_cast<int>(Dim::K)] = 1;
    auto set = [&](Dim d, std::pair<long long, long long> r) {
      op.box.lo[static_cast<int>(d)] = r.first;
      op.box.ext[static_cast<int>(d)] = r.second;
    };
    for (auto n : ranges(l.n))
      for (auto p : ranges(l.p))
        for (auto r : ranges(l.r))
          for (auto q : ranges(l.q))
            for (auto s : ranges(l.s)) {
              set(Dim::N, n);
              set(Dim::P, p);
              set(Dim::R, r);
              set(Dim::Q, q);
              set(Dim::S, s);
              const std::vector<long long> beats = {1, 2, 5, 16};
              const std::vector<long long> want = run_beats(l, at, op, beats);
              for (size_t i = 0; i < beats.size(); ++i) {
                const long long bb = beats[i];
                ASSERT_EQ(burst_beats(l, op, bb), want[i]) << l.describe() << " beat " << bb;
              }
              const RowBlocks cb =
                  row_blocks(q.first, q.second, s.first, s.second, l.stride, l.pad, l.w);
              const RowBlocks rb =
                  row_blocks(p.first, p.second, r.first, r.second, l.stride, l.pad, l.h);
              if (cb.join_saving(l.g * l.c, 16) > 0 && (rb.rows > rb.blocks || n.second > 1))
                ++joined;
              ++boxes;
            }
  }
  EXPECT_GT(boxes, 5000);
  EXPECT_GT(joined, 50);
}

// The RTL's bursts port takes one descriptor (run length, four loops) per transfer: where one
// exists it stands for exactly the transfer's runs, in order; where none does, the reason is
// given. Most transfers of random mappings have one.
TEST(BurstDescriptor, StandsForExactlyTheRunsOrSaysWhyNot) {
  const std::vector<Layer> layers = ten_layers();
  long long ops = 0, with = 0, multi_loop = 0;
  for_each_dma_op(layers, 40, 7,
                  [&](const Layer& l, const DramLayout& at, const Mapping& m, const TileOp& op) {
                    std::vector<DramSegment> runs;
                    dram_segments(l, at, op, runs);
                    std::string why;
                    const auto d = burst_descriptor(runs, why);
                    ++ops;
                    if (!d) {
                      EXPECT_FALSE(why.empty());
                      return;
                    }
                    ++with;
                    multi_loop += d->count[1] > 1;
                    const std::vector<DramSegment> back = descriptor_runs(*d);
                    ASSERT_EQ(back.size(), runs.size()) << l.describe() << mapping_to_yaml(m);
                    for (size_t i = 0; i < runs.size(); ++i) {
                      ASSERT_EQ(back[i].addr, runs[i].addr) << i << " " << l.describe();
                      ASSERT_EQ(back[i].len, runs[i].len) << i << " " << l.describe();
                    }
                  });
  EXPECT_GT(ops, 1500);
  EXPECT_GE(with * 10, ops * 9) << with << " of " << ops << " transfers have a descriptor";
  EXPECT_GT(multi_loop, 100);

  // By hand: a nest with a negative stride, runs of two lengths, and runs that are no nest.
  std::string why;
  const auto d = burst_descriptor({{100, 4}, {110, 4}, {60, 4}, {70, 4}}, why);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->count[0], 2u);
  EXPECT_EQ(d->stride[0], 10);
  EXPECT_EQ(d->count[1], 2u);
  EXPECT_EQ(d->stride[1], -40);
  EXPECT_FALSE(burst_descriptor({{0, 4}, {10, 5}}, why).has_value());
  EXPECT_NE(why.find("runs of 4 and 5 bytes"), std::string::npos) << why;
  EXPECT_FALSE(burst_descriptor({{0, 2}, {10, 2}, {30, 2}}, why).has_value());
  EXPECT_NE(why.find("not a nest"), std::string::npos) << why;
  const auto empty = burst_descriptor({}, why);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->run, 0u);
}

// descriptor_problem (distinct input tile shapes, no tile-program walk) gives the verdict of
// burst_descriptor_problem (every transfer of the tile program) on random mappings of random
// small layers with strides up to 3, padding, groups and batches, both ways; check_valid names
// the kind and the transfer. The packed port never has a problem.
TEST(DescriptorProblem, AgreesWithTheTileProgramWalk) {
  using mapwright::test_layers::conv;
  Arch bursts = load_arch("small4");
  bursts.dram_port = DramPort::Bursts;
  const Arch packed = load_arch("small4");
  std::mt19937_64 rng(29);
  auto pick = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(rng);
  };
  long long checked = 0, problems = 0, slow_ok = 0;
  for (int li = 0; li < 160; ++li) {
    const long long r = pick(1, 5), stride = pick(1, 3), pad = pick(0, r - 1);
    const long long h = pick(std::max(r - 2 * pad, 1LL), 12), g = pick(1, 3);
    Layer l;
    try {
      l = g > 1 ? conv(1, 1, h, r, stride, pad, g, pick(1, 2))
                : conv(pick(1, 6), pick(1, 6), h, r, stride, pad, 1, pick(1, 2));
    } catch (const std::exception&) {
      continue;  // not a layer (make_layer refuses it)
    }
    const MapSpace space(l, bursts);
    for (int i = 0; i < 25; ++i) {
      const Mapping m = space.decode(space.sample_naive(rng));
      if (!check_capacity(l, bursts, m).ok()) continue;
      const std::string walk = burst_descriptor_problem(l, bursts, m);
      const std::string fast = descriptor_problem(l, bursts, m);
      ASSERT_EQ(walk.empty(), fast.empty())
          << l.describe() << mapping_to_yaml(m) << "walk: " << walk << "\nfast: " << fast;
      ++checked;
      const Validity v = check_valid(l, bursts, m);
      if (!fast.empty()) {
        ++problems;
        EXPECT_EQ(v.kind, InvalidKind::Descriptor);
        EXPECT_NE(v.reason().find("a load_input has"), std::string::npos) << v.reason();
        EXPECT_NE(v.reason().find("dram.port bursts"), std::string::npos) << v.reason();
      } else {
        EXPECT_TRUE(v.ok()) << v.reason();
        slow_ok += l.stride > 1;
      }
      EXPECT_EQ(descriptor_problem(l, packed, m), "");
      EXPECT_TRUE(check_valid(l, packed, m).ok());
    }
  }
  std::printf("%lld mappings: %lld without a descriptor, %lld strided ones with\n", checked,
              problems, slow_ok);
  EXPECT_GT(checked, 2000);
  EXPECT_GT(problems, 50) << "too few mappings without a descriptor to test the verdict";
  EXPECT_GT(slow_ok, 200) << "too few strided mappings with one";
}
