// `mapwright codesign`: the exact hardware search against enumeration of every point, the
// admissibility of each lower bound against the exact cost of the points of random boxes, the
// space file's refusals (one test per rule) and the command line (exit codes, output files).
#include <gtest/gtest.h>
#include <filesystem>
#include <optional>
#include <fstream>
#include <functional>
#include <signal.h>
#include <set>
#include <random>

#include "codesign/codesign_search.hpp"
#include "codesign/rtl_check.hpp"
#include "files.hpp"
#include "run_cli.hpp"
#include "sanitized.hpp"
#include "test_arch.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/model/clock.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/support/error.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using namespace mapwright::flows;
using namespace mapwright::flows::codesign;

namespace {

const std::string kData = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/";
/// Where inline space texts claim to live, so that relative network files resolve.
const std::string kWhere = kData + "inline_space.yaml";

/// The tiny space's text with the objective, constraints and buffer energy given.
std::string tiny_text(const std::string& objective, const std::string& constraints,
                      const std::string& buffer_energy = "capacity") {
  return "base: tiny2.yaml\nbuffer_energy: " + buffer_energy +
         "\n"
         "parameters:\n"
         "  dataflows: [[ws], [os], [ws, os, is]]\n"
         "  rows: {pow2: [2, 8]}\n"
         "  cols: [2, 4, 8]\n"
         "  dram_bytes_per_cycle: [4, 8, 16]\n"
         "  accum_kib: {from: 1, to: 4, step: 1}\n"
         "  weight_kib: {from: 1, to: 3, step: 1}\n"
         "  input_kib: [1, 2, 3]\n"
         "constraints: " +
         constraints + "\nworkload: tiny_net.yaml\nobjective: " + objective + "\n";
}

bool in_box(const HwBox& b, const HwIndex& i) {
  for (int p = 0; p < kNumHwParams; ++p)
    if (i[p] < b.lo[p] || i[p] > b.hi[p]) return false;
  return true;
}

/// The exact search's answer equals the best of every point, and its bound is that cost.
void expect_exact_equals_grid(const CodesignSpace& s) {
  ASSERT_GE(s.size(), 2000);
  PointEvaluator eg(s), ee(s);
  const SearchOutcome grid = search_grid(eg, 0);
  const SearchOutcome exact = search_exact(ee, 0);
  ASSERT_EQ(grid.points.size(), static_cast<size_t>(s.size()));
  ASSERT_GE(grid.best, 0);
  ASSERT_GE(exact.best, 0);
  const PointResult& g = grid.points[grid.best];
  const PointResult& e = exact.points[exact.best];
  EXPECT_EQ(e.cost, g.cost);
  EXPECT_EQ(e.index, g.index);
  EXPECT_TRUE(exact.proved);
  EXPECT_EQ(exact.lower_bound, e.cost);
  EXPECT_LT(exact.points.size(), grid.points.size() / 4);  // the bounds cut most of the space
  for (const PointResult& p : exact.points) EXPECT_TRUE(p.exact);
  // Anytime: stopped at once, its bound stays below the optimum and its design above it.
  PointEvaluator ea(s);
  const SearchOutcome early = search_exact(ea, 1e-4);
  EXPECT_TRUE(early.timed_out || early.proved);
  EXPECT_LE(early.lower_bound, e.cost);
  if (early.best >= 0) {
    EXPECT_GE(early.points[early.best].cost, e.cost);
  }
}

}  // namespace

TEST(Codesign, ExactEqualsEnumerationEdpUnderArea) {
  expect_exact_equals_grid(parse_codesign_space(tiny_text("edp", "{max_area_mm2: 0.14}"), kWhere));
}

TEST(Codesign, ExactEqualsEnumerationEdpUnderAreaWithFixedBufferEnergy) {
  // Boxes collapse into one evaluation when the largest buffers' optima fit their smallest.
  expect_exact_equals_grid(
      parse_codesign_space(tiny_text("edp", "{max_area_mm2: 0.14}", "fixed"), kWhere));
}

TEST(Codesign, RandomIsSeededAndNeverBeatsTheExactAnswer) {
  const CodesignSpace s =
      parse_codesign_space(tiny_text("edp", "{max_area_mm2: 0.14}", "fixed"), kWhere);
  PointEvaluator ev(s);
  const SearchOutcome exact = search_exact(ev, 0);
  const SearchOutcome a = search_random(ev, 200, 3, 0), b = search_random(ev, 200, 3, 0);
  const SearchOutcome c = search_random(ev, 200, 4, 0);
  ASSERT_EQ(a.points.size(), 200u);
  bool differs = false;
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].index, b.points[i].index);
    differs = differs || a.points[i].index != c.points[i].index;
  }
  EXPECT_TRUE(differs);
  for (const SearchOutcome* r : {&a, &c}) {
    if (r->best >= 0) {
      EXPECT_GE(r->points[r->best].cost, exact.points[exact.best].cost);
    }
  }
}

TEST(Codesign, ExactEqualsEnumerationLatencyUnderEnergy) {
  expect_exact_equals_grid(
      parse_codesign_space(tiny_text("latency", "{max_energy_uj: 0.8}", "fixed"), kWhere));
}

TEST(Codesign, ExactEqualsEnumerationEnergyUnderLatencyAndArea) {
  expect_exact_equals_grid(parse_codesign_space(
      tiny_text("energy", "{max_latency_ms: 0.004, max_area_mm2: 0.2}", "fixed"), kWhere));
}

// clock: modeled: every point's cost is its cost at the stated clock times (stated / modeled
// clock)^latency, the exact search still finds the best point of the enumeration, and no point of
// a box is faster than the clock the box's bounds assume.
TEST(Codesign, ModeledClockScalesEachPointsCostAndExactStillEqualsEnumeration) {
  const std::string text = tiny_text("edp", "{max_area_mm2: 0.14}", "fixed");
  const CodesignSpace stated = parse_codesign_space(text, kWhere);
  const CodesignSpace modeled = parse_codesign_space(text + "clock: modeled\n", kWhere);
  ASSERT_FALSE(stated.modeled_clock);
  ASSERT_TRUE(modeled.modeled_clock);
  PointEvaluator es(stated), em(modeled);
  const SearchOutcome gs = search_grid(es, 0), gm = search_grid(em, 0);
  ASSERT_EQ(gs.points.size(), gm.points.size());
  std::set<long long> clocks;
  for (size_t i = 0; i < gs.points.size(); ++i) {
    const PointResult &a = gs.points[i], &b = gm.points[i];
    ASSERT_EQ(a.index, b.index);
    EXPECT_EQ(a.clock_mhz, stated.base.clock_mhz);
    const double f = model::estimate_clock(point_arch(modeled, b.index)).fmax_mhz;
    EXPECT_DOUBLE_EQ(b.clock_mhz, f);
    clocks.insert(std::llround(f));
    if (!a.found) continue;
    EXPECT_EQ(a.cycles, b.cycles);
    EXPECT_NEAR(b.cost, a.cost * stated.base.clock_mhz / f, 1e-9 * b.cost);
  }
  EXPECT_GE(clocks.size(), 2u);  // the space's arrays reach different clocks
  expect_exact_equals_grid(modeled);
  std::mt19937_64 rng(11);
  for (int t = 0; t < 100; ++t) {
    HwBox b;
    for (int p = 0; p < kNumHwParams; ++p) {
      std::uniform_int_distribution<int> d(0, static_cast<int>(modeled.values[p].size()) - 1);
      const int x = d(rng), y = d(rng);
      b.lo[p] = std::min(x, y);
      b.hi[p] = std::max(x, y);
    }
    for (const PointResult& p : gm.points)
      if (in_box(b, p.index)) EXPECT_LE(p.clock_mhz, box_clock_mhz(modeled, b) * (1 + 1e-12));
  }
}

class CodesignBounds : public ::testing::TestWithParam<const char*> {};

TEST_P(CodesignBounds, EveryLowerBoundIsAdmissibleOnRandomBoxes) {
  CodesignSpace s = parse_codesign_space(tiny_text("edp", "{}", GetParam()), kWhere);
  // 864 of its points (enough for the boxes; every point is the truth the bounds face).
  s.values[static_cast<int>(HwParam::DramBw)] = {4, 16};
  s.values[static_cast<int>(HwParam::WeightKib)] = {1, 3};
  s.values[static_cast<int>(HwParam::InputKib)] = {1, 3};
  PointEvaluator ev(s);
  const SearchOutcome all = search_grid(ev, 0);
  std::mt19937_64 rng(7);
  int refined = 0;
  for (int t = 0; t < 200; ++t) {
    HwBox b;
    for (int p = 0; p < kNumHwParams; ++p) {
      std::uniform_int_distribution<int> d(0, static_cast<int>(s.values[p].size()) - 1);
      int x = d(rng), y = t % 3 == 0 ? x : d(rng);  // a third of the boxes: one value
      b.lo[p] = std::min(x, y);
      b.hi[p] = std::max(x, y);
    }
    if (t % 2 == 0)  // half of them vary only the buffers
      for (int p = 0; p <= static_cast<int>(HwParam::Banks); ++p) b.hi[p] = b.lo[p];
    const double area_lb = area_lower_bound(s, b);
    const std::vector<NetworkBound> nb = closed_form_bounds(s, b);
    std::vector<LayerFigures> hi_solve;
    if (b.fixed_but_buffers()) {
      ++refined;
      for (size_t u = 0; u < ev.layers().size(); ++u)
        hi_solve.push_back(ev.solve(u, buffer_relaxed_arch(s, b)));
    }
    for (const PointResult& p : all.points) {
      if (!in_box(b, p.index) || !p.found) continue;
      EXPECT_LE(area_lb, p.area_mm2 * (1 + 1e-12));
      EXPECT_LE(nb[0].cycles, p.cycles[0] * (1 + 1e-12));
      EXPECT_LE(nb[0].energy_pj, p.energy_pj[0] * (1 + 1e-12));
      EXPECT_LE(s.objective.cost(nb[0].cycles, nb[0].energy_pj), p.cost * (1 + 1e-12));
      if (hi_solve.empty()) continue;
      std::vector<double> lbs;
      std::vector<int> counts;
      for (const auto& [u, n] : ev.uses()[0]) {
        const LayerFigures f = ev.solve(u, point_arch(s, p.index));
        EXPECT_LE(hi_solve[u].lower_bound, f.cost * (1 + 1e-12));
        lbs.push_back(hi_solve[u].lower_bound);
        counts.push_back(n);
      }
      EXPECT_LE(compose_layer_bounds(s.objective, lbs, counts), p.cost * (1 + 1e-12));
    }
  }
  EXPECT_GT(refined, 60);
}

INSTANTIATE_TEST_SUITE_P(BufferEnergy, CodesignBounds, ::testing::Values("capacity", "fixed"));

TEST(Codesign, BoundsAreAdmissibleOnLargerLayersAndBankedPoints) {
  // Two layers of ResNet-18-like shapes on arrays up to 16x16, with banked buffers among the
  // points: each bound against the exact cost of random points of random boxes (a third of them
  // under the sanitizers, tests/common/sanitized.hpp; at least one of those is buildable). The
  // mapper has no practical time limit, so its optimum is proved however loaded the machine (a
  // sanitized run beside two others once took more than the default 60 s on a layer).
  const std::string text =
      "mapper: {time_limit_s: 1000000}\n"
      "base: default\n"
      "parameters:\n"
      "  dataflows: [[ws], [os, is]]\n"
      "  rows: [4, 16]\n"
      "  cols: [8, 16]\n"
      "  dram_bytes_per_cycle: [8, 16]\n"
      "  banks: [0, 16]\n"
      "  accum_kib: [4, 64]\n"
      "  weight_kib: [8, 128]\n"
      "  input_kib: [8, 128]\n"
      "workload: codesign_two_layers.yaml\n";
  const CodesignSpace s = parse_codesign_space(text, kWhere);
  PointEvaluator ev(s);
  std::mt19937_64 rng(3);
  const HwBox whole = whole_space(s);
  int checked = 0;
  for (int t = 0; t < test_cases::cases(12); ++t) {
    HwIndex i{};
    HwBox b;
    for (int p = 0; p < kNumHwParams; ++p) {
      i[p] = std::uniform_int_distribution<int>(0, whole.hi[p])(rng);
      b.lo[p] = rng() % 2 ? 0 : i[p];
      b.hi[p] = rng() % 2 ? whole.hi[p] : i[p];
    }
    const PointResult r = ev.evaluate(i);
    if (!r.unbuildable.empty() || !r.found) continue;
    ++checked;
    EXPECT_TRUE(r.exact);
    const std::vector<NetworkBound> nb = closed_form_bounds(s, b);
    EXPECT_LE(area_lower_bound(s, b), r.area_mm2 * (1 + 1e-12));
    EXPECT_LE(nb[0].cycles, r.cycles[0] * (1 + 1e-12));
    EXPECT_LE(nb[0].energy_pj, r.energy_pj[0] * (1 + 1e-12));
    for (size_t u = 0; u < ev.layers().size(); ++u) {
      HwBox bb{i, i};  // the point with the box's buffers above it
      for (int p = static_cast<int>(HwParam::AccumKib); p < kNumHwParams; ++p)
        bb.hi[p] = std::max(i[p], b.hi[p]);
      EXPECT_LE(ev.solve(u, buffer_relaxed_arch(s, bb)).lower_bound,
                ev.solve(u, point_arch(s, i)).cost * (1 + 1e-12));
    }
  }
  EXPECT_GE(checked, 1);
}

namespace {

/// The SpecError of parsing `text` (inline, beside the test data).
core::SpecError refusal(const std::string& text) {
  try {
    parse_codesign_space(text, kWhere);
  } catch (const core::SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return core::SpecError("", "", "", "");
}

/// `params` as the parameters of an otherwise valid space.
std::string with_params(const std::string& params) {
  return "base: tiny2.yaml\nparameters:\n" + params + "\nworkload: tiny_net.yaml\n";
}

}  // namespace

TEST(CodesignSpaceFile, RefusesUnknownKeys) {
  EXPECT_EQ(refusal("bogus: 1\nworkload: tiny_net.yaml\n").key(), "bogus");
  EXPECT_EQ(refusal(with_params("  depth: [1]")).key(), "parameters.depth");
  EXPECT_EQ(refusal(with_params("  rows: {from: 2, to: 8, stride: 2}")).key(),
            "parameters.rows.stride");
}

TEST(CodesignSpaceFile, RefusesEmptySetsAndRanges) {
  EXPECT_EQ(refusal(with_params("  rows: []")).key(), "parameters.rows");
  const core::SpecError e = refusal(with_params("  rows: {from: 8, to: 4, step: 2}"));
  EXPECT_EQ(e.key(), "parameters.rows.to");
  EXPECT_EQ(e.value(), "4");
  EXPECT_EQ(refusal(with_params("  cols: {pow2: [16, 4]}")).key(), "parameters.cols.pow2");
  EXPECT_EQ(refusal(with_params("  dataflows: []")).key(), "parameters.dataflows");
}

TEST(CodesignSpaceFile, RefusesStepsThatDoNotDivide) {
  const core::SpecError e = refusal(with_params("  input_kib: {from: 1, to: 10, step: 4}"));
  EXPECT_EQ(e.key(), "parameters.input_kib.step");
  EXPECT_EQ(e.value(), "4");
  EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos);
}

TEST(CodesignSpaceFile, RefusesValuesTheRtlDoesNotSupport) {
  EXPECT_EQ(refusal(with_params("  rows: [8, 65]")).key(), "parameters.rows[1]");
  EXPECT_EQ(refusal(with_params("  cols: {pow2: [1, 8]}")).key(), "parameters.cols.pow2[0]");
  EXPECT_EQ(refusal(with_params("  dram_bytes_per_cycle: [0]")).key(),
            "parameters.dram_bytes_per_cycle[0]");
  EXPECT_EQ(refusal(with_params("  accum_kib: {from: 0, to: 4, step: 1}")).key(),
            "parameters.accum_kib.from");
  EXPECT_EQ(refusal(with_params("  banks: [200]")).key(), "parameters.banks[0]");
  EXPECT_EQ(refusal(with_params("  dataflows: [[ws, xs]]")).key(), "parameters.dataflows[0][1]");
  EXPECT_EQ(refusal(with_params("  cols: {pow2: [2, 12]}")).key(), "parameters.cols.pow2");
  EXPECT_EQ(refusal(with_params("  rows: [4, 4]")).key(), "parameters.rows");
  EXPECT_EQ(refusal(with_params("  rows: [4.5]")).key(), "parameters.rows[0]");
}

// A bank count no point can build (below max(rows, cols, DRAM bytes per cycle) of the smallest
// values) is refused naming it; one that some points can build is kept, and the points with too
// few banks are recorded as unbuildable (CodesignSpaceFile's evaluation tests).
TEST(CodesignSpaceFile, RefusesABankCountNoPointCanBuild) {
  const core::SpecError e = refusal(with_params("  rows: [8, 16]\n  banks: [0, 4, 16]"));
  EXPECT_EQ(e.key(), "parameters.banks");
  EXPECT_EQ(e.value(), "4");
  EXPECT_NE(std::string(e.what()).find("can never be built"), std::string::npos) << e.what();
  // tiny2 moves 8 bytes per cycle: 8 banks is the least a point of it builds.
  EXPECT_NO_THROW(parse_codesign_space(with_params("  rows: [2, 16]\n  banks: [0, 8]"), kWhere));
  EXPECT_EQ(refusal(with_params("  banks: [7]")).value(), "7");
}

TEST(CodesignSpaceFile, RefusesAWorkloadThatDoesNotLoad) {
  const core::SpecError e = refusal("workload: no_such_net.yaml\n");
  EXPECT_EQ(e.key(), "workload");
  EXPECT_EQ(e.value(), "no_such_net.yaml");
  EXPECT_EQ(refusal("workload: not_a_zoo_name\n").key(), "workload");
  EXPECT_EQ(refusal("workload: [{network: resnet18}, {network: nope}]\n").key(),
            "workload[1].network");
  EXPECT_EQ(refusal("workload: [{network: resnet18, weight: 0}]\n").key(), "workload[0].weight");
  EXPECT_EQ(refusal("workload: []\n").key(), "workload");
  EXPECT_EQ(refusal("objective: edp\n").key(), "workload");
}

TEST(CodesignSpaceFile, RefusesABadClockOrClockModel) {
  const std::string ok = with_params("  rows: [2, 4]");
  EXPECT_EQ(refusal(ok + "clock: fast\n").key(), "clock");
  EXPECT_EQ(refusal(ok + "clock_model: {fixed_ns: 10}\n").key(), "clock_model");
  const core::SpecError e = refusal(ok + "clock: modeled\nclock_model: {fixed_ns: -1}\n");
  EXPECT_EQ(e.key(), "clock_model.fixed_ns");
  EXPECT_EQ(e.value(), "-1");
  EXPECT_EQ(refusal(ok + "clock: modeled\nclock_model: {period: 1}\n").key(), "clock_model.period");
  const CodesignSpace s = parse_codesign_space(
      ok + "clock: modeled\nclock_model: {fixed_ns: 20, source: mine}\n", kWhere);
  EXPECT_EQ(s.clock.fixed_ns, 20);
  EXPECT_EQ(s.clock.source, "mine");
}

TEST(CodesignSpaceFile, RefusesABadBaseObjectiveOrConstraint) {
  EXPECT_EQ(refusal("base: nope\nworkload: tiny_net.yaml\n").key(), "base");
  EXPECT_EQ(refusal("objective: speed\nworkload: tiny_net.yaml\n").key(), "objective");
  EXPECT_EQ(refusal("constraints: {max_area_mm2: -1}\nworkload: tiny_net.yaml\n").key(),
            "constraints.max_area_mm2");
}

TEST(CodesignSpaceFile, ReadsSetsRangesPowersAndTheBase) {
  const CodesignSpace s = load_codesign_space(kData + "codesign_tiny.yaml");
  EXPECT_EQ(s.size(), 2916);
  EXPECT_EQ(s.values[static_cast<int>(HwParam::Rows)], (std::vector<long long>{2, 4, 8}));
  EXPECT_EQ(s.values[static_cast<int>(HwParam::AccumKib)], (std::vector<long long>{1, 2, 3, 4}));
  EXPECT_EQ(s.values[static_cast<int>(HwParam::Banks)], (std::vector<long long>{0}));  // base
  EXPECT_EQ(s.values[static_cast<int>(HwParam::Dataflows)], (std::vector<long long>{1, 2, 7}));
  EXPECT_EQ(s.workload.size(), 1u);
  EXPECT_EQ(s.workload[0].layers.size(), 3u);
}

using test_files::run_mapwright;

TEST(CodesignCli, WritesEveryPointTheFrontAndTheChoiceWithExitCodes) {
  const fs::path dir = test_files::fresh_path("codesign_cli");
  const std::string space = kData + "codesign_tiny.yaml";
  ASSERT_EQ(
      run_mapwright({"codesign", "--space", space, "--rtl", "none", "--out", (dir / "x").string()}),
      0);
  const auto j = nlohmann::json::parse(test_files::read_file(dir / "x" / "codesign.json"));
  EXPECT_EQ(j["outcome"]["status"], "proved_optimal");
  EXPECT_EQ(j["outcome"]["gap"], 0.0);
  EXPECT_TRUE(j.contains("chosen"));
  EXPECT_GE(j["front"].size(), 1u);
  EXPECT_TRUE(fs::exists(dir / "x" / "points.csv"));
  const auto pts = nlohmann::json::parse(test_files::read_file(dir / "x" / "points.json"));
  EXPECT_EQ(pts.size(), j["outcome"]["points_evaluated"].get<size_t>());
  EXPECT_EQ(run_mapwright({"codesign", "--space", space, "--rtl", "none", "--searcher", "random",
                           "--samples", "20", "--seed", "5", "--out", (dir / "r").string()}),
            0);
  const auto r = nlohmann::json::parse(test_files::read_file(dir / "r" / "codesign.json"));
  EXPECT_EQ(r["seed"], 5);
  EXPECT_EQ(r["outcome"]["points_evaluated"], 20);
  // Bad input: exit 2, nothing written.
  EXPECT_EQ(
      run_mapwright({"codesign", "--space", kData + "nope.yaml", "--out", (dir / "b").string()}),
      2);
  EXPECT_EQ(run_mapwright({"codesign", "--space", space, "--searcher", "annealing", "--out",
                           (dir / "b").string()}),
            2);
  EXPECT_FALSE(fs::exists(dir / "b" / "codesign.json"));
  // No point meets the constraint: exit 3, the smallest area said.
  const fs::path tight = dir / "tight.yaml";
  std::string text = test_files::read_file(space);
  text.replace(text.find("max_area_mm2: 0.14"), 18, "max_area_mm2: 0.01");
  fs::create_directories(dir);
  std::ofstream(tight) << text;
  fs::copy_file(kData + "tiny_net.yaml", dir / "tiny_net.yaml");
  fs::copy_file(kData + "tiny2.yaml", dir / "tiny2.yaml");
  EXPECT_EQ(run_mapwright({"codesign", "--space", tight.string(), "--out", (dir / "t").string()}),
            3);
  const auto t = nlohmann::json::parse(test_files::read_file(dir / "t" / "codesign.json"));
  EXPECT_EQ(t["outcome"]["status"], "no_feasible_design");
  EXPECT_GT(t["outcome"]["smallest_area_mm2"].get<double>(), 0.01);
  fs::remove_all(dir);
}

namespace {

/// codesign.json and points.json of `dir` without what depends on time or on how many solves
/// this process made (seconds, the mapper-solve and memo counters, the solves resumed).
nlohmann::json stable_codesign(const fs::path& dir) {
  std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& j) {
    if (j.is_object()) {
      for (const char* k : {"seconds", "mapper_solves", "memo_hits", "solves_resumed"}) j.erase(k);
      for (auto& [k, v] : j.items()) strip(v);
    } else if (j.is_array()) {
      for (auto& v : j) strip(v);
    }
  };
  nlohmann::json j = {
      {"codesign", nlohmann::json::parse(test_files::read_file(dir / "codesign.json"))},
      {"points", nlohmann::json::parse(test_files::read_file(dir / "points.json"))}};
  j["codesign"].erase("space");  // names the same file; kept out to compare folders
  strip(j);
  return j;
}

/// Complete lines of a file.
long lines_of(const fs::path& f) {
  const std::string t = test_files::read_file(f);
  return static_cast<long>(std::count(t.begin(), t.end(), '\n'));
}

}  // namespace

TEST(CodesignCli, KilledInAJournalWriteResumesToTheUninterruptedAnswer) {
  const fs::path dir = test_files::fresh_path("codesign_resume");
  const std::string space = kData + "codesign_tiny.yaml";
  auto args = [&](const fs::path& out, const std::string& searcher) {
    return std::vector<std::string>{"codesign",   "--space", space,       "--rtl", "none",
                                    "--searcher", searcher,  "--samples", "30",    "--seed",
                                    "3",          "--out",   out.string()};
  };
  for (const std::string searcher : {"exact", "sa"}) {
    const fs::path ref = dir / (searcher + "_ref");
    ASSERT_EQ(run_mapwright(args(ref, searcher)), 0) << searcher;
    const nlohmann::json want = stable_codesign(ref);
    const long lines = lines_of(ref / "solves.jsonl");  // the header and one line per solve
    ASSERT_GE(lines, 10) << searcher;
    for (const long n : {1L, lines / 3, 2 * lines / 3}) {
      // Killed (SIGKILL) in the middle of writing its n-th solve: half of that line on disk.
      const std::string what = searcher + ", killed in solve " + std::to_string(n);
      const fs::path cut = dir / (searcher + "_" + std::to_string(n));
      EXPECT_EQ(
          run_mapwright(args(cut, searcher), {"MAPWRIGHT_TEST_KILL_AT=solve:" + std::to_string(n)}),
          128 + SIGKILL)
          << what;
      EXPECT_FALSE(fs::exists(cut / "codesign.json")) << what;
      EXPECT_EQ(run_mapwright(args(cut, searcher)), 2) << what;  // a journal there: --resume
      std::vector<std::string> resume = args(cut, searcher);
      resume.push_back("--resume");
      ASSERT_EQ(run_mapwright(resume), 0) << what;
      EXPECT_EQ(stable_codesign(cut), want) << what;
      const auto j = nlohmann::json::parse(test_files::read_file(cut / "codesign.json"));
      EXPECT_EQ(j["outcome"]["solves_resumed"], n - 1) << what;  // the torn line is dropped
      EXPECT_EQ(lines_of(cut / "solves.jsonl"), lines) << what;  // every solve kept once
    }
  }
  fs::remove_all(dir);
}

TEST(CodesignJournal, RefusesAnotherObjectiveOrABrokenLineAndDropsATornLastOne) {
  const fs::path dir = test_files::fresh_path("codesign_journal");
  fs::create_directories(dir);
  const fs::path path = dir / "solves.jsonl";
  const CodesignSpace s = load_codesign_space(kData + "codesign_tiny.yaml");
  {
    PointEvaluator ev(s);
    EXPECT_EQ(ev.open_journal(path, true), 0);  // no journal yet: a new one
    ev.evaluate(HwIndex{});
    ev.evaluate(HwIndex{2, 2, 2, 2, 0, 3, 2, 2});
  }
  const std::string text = test_files::read_file(path);
  const long lines = lines_of(path);
  ASSERT_GE(lines, 4);
  {
    PointEvaluator ev(s);
    EXPECT_EQ(ev.open_journal(path, true), lines - 1);
    ev.evaluate(HwIndex{});
    EXPECT_EQ(ev.solves(), 0);  // every solve answered by the journal
  }
  EXPECT_EQ(test_files::read_file(path), text);
  // Another objective: refused naming the header line and the key.
  // The refusal of reading the journal for space `sp` (none: it was read).
  auto refusal = [&](const CodesignSpace& sp) -> std::optional<core::SpecError> {
    try {
      PointEvaluator ev(sp);
      ev.open_journal(path, true);
    } catch (const core::SpecError& e) {
      return e;
    }
    return std::nullopt;
  };
  CodesignSpace lat = s;
  lat.objective = core::parse_objective("latency");
  const std::optional<core::SpecError> other = refusal(lat);
  ASSERT_TRUE(other) << "a journal of another objective was read";
  EXPECT_EQ(other->where(), path.string() + ":1");
  EXPECT_EQ(other->key(), "objective");
  EXPECT_EQ(other->value(), "edp");
  // A broken line in the middle: refused naming its line.
  const size_t third = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
  std::ofstream(path) << text.substr(0, third + 1) << "{\"key\": 1,\n" << text.substr(third + 1);
  const std::optional<core::SpecError> broken = refusal(s);
  ASSERT_TRUE(broken) << "a broken journal line was read";
  EXPECT_EQ(broken->where(), path.string() + ":4");
  // A torn last line (a write a kill cut short) is dropped and cut from the file.
  std::ofstream(path) << text << text.substr(text.find('\n') + 1, 40);
  {
    PointEvaluator ev(s);
    EXPECT_EQ(ev.open_journal(path, true), lines - 1);
  }
  EXPECT_EQ(test_files::read_file(path), text);
  fs::remove_all(dir);
}

TEST(CodesignCli, VerifiesTheFrontOnTheRtlAndTypesADesignWithoutAModel) {
  const fs::path dir = test_files::fresh_path("codesign_rtl");
  fs::create_directories(dir);
  std::ofstream(dir / "not-a-folder") << "x";
  // A model cache that cannot be created: a design without a compiled-in model cannot have one
  // (found at once); the designs with small4's and small8's parameters run on those models.
  setenv("MAPWRIGHT_MODEL_CACHE", (dir / "not-a-folder" / "cache").c_str(), 1);
  const int rc =
      run_mapwright({"codesign", "--space", kData + "codesign_rtl.yaml", "--searcher", "grid",
                     "--rtl", "front", "--jobs", "2", "--out", (dir / "f").string()});
  unsetenv("MAPWRIGHT_MODEL_CACHE");
  const auto j = nlohmann::json::parse(test_files::read_file(dir / "f" / "codesign.json"));
  EXPECT_EQ(j["rtl"]["mode"], "front");
  EXPECT_EQ(j["rtl"]["designs"], j["front"].size());
  std::set<std::string> passed;
  for (const auto& d : j["front"]) {
    const auto& rtl = d["rtl"];
    EXPECT_TRUE(fs::exists(dir / "f" / rtl["arch_file"].get<std::string>()));
    const auto& p = d["parameters"];
    const std::string model = p["rows"] == 4 && p["cols"] == 4 && p["input_kib"] == 16 &&
                                      p["weight_kib"] == 16 && p["accum_kib"] == 8
                                  ? "small4"
                              : p["rows"] == 8 && p["cols"] == 8 && p["input_kib"] == 32 &&
                                      p["weight_kib"] == 32 && p["accum_kib"] == 16
                                  ? "small8"
                                  : "";
    if (model.empty()) {
      EXPECT_EQ(rtl["status"], "no_model") << p;
      EXPECT_FALSE(rtl.value("reason", std::string()).empty());
      continue;
    }
    EXPECT_EQ(rtl["status"], "passed") << p;
    EXPECT_EQ(rtl["model"], "compiled-in " + model);
    ASSERT_EQ(rtl["layers"].size(), 3u);
    EXPECT_EQ(rtl["layers_passed"], 3);
    for (const auto& l : rtl["layers"]) {
      EXPECT_EQ(l["verification"]["kind"], "passed") << l["layer"];
      EXPECT_GT(l["verification"]["cycles"].get<long long>(), 0);
    }
    passed.insert(model);
  }
  // The smallest design (small4's) is on every front; small8's is not (larger buffers buy these
  // small layers nothing), the other front designs have no model here.
  EXPECT_EQ(passed, (std::set<std::string>{"small4"}));
  EXPECT_EQ(j["rtl"]["passed"], 1);
  EXPECT_EQ(j["rtl"]["no_model"], j["front"].size() - 1);
  EXPECT_EQ(rc, 4);  // designs of the front have no model
  const std::string html = test_files::read_file(dir / "f" / "report.html");
  EXPECT_NE(html.find("all 3 layers passed"), std::string::npos);
  fs::remove_all(dir);
}

namespace {

/// The point of `grid` (codesign_rtl.yaml's) with an n x n array, input and weight buffers of
/// `kib` KiB and an accumulator of kib / 2 (small4's parameters for 4 and 16, small8's for 8
/// and 32); -1 when there is none.
int small_design(const CodesignSpace& s, const SearchOutcome& grid, int n, long long kib) {
  for (size_t i = 0; i < grid.points.size(); ++i) {
    const core::Arch a = point_arch(s, grid.points[i].index);
    if (a.rows == n && a.cols == n && a.input_buf_bytes == kib * 1024 &&
        a.weight_buf_bytes == kib * 1024 && a.accum_buf_bytes == kib / 2 * 1024)
      return static_cast<int>(i);
  }
  return -1;
}

/// An RTL check on two worker processes of this build with operand seed 3.
RtlCheckRequest two_workers() {
  RtlCheckRequest rq;
  rq.jobs = 2;
  rq.seed = 3;
  rq.worker_exe = MAPWRIGHT_WORKER_EXE;
  return rq;
}

}  // namespace

TEST(CodesignRtl, RunsSeveralDesignsWithModelsInOnePool) {
  using core::Arch;
  // Two designs with compiled-in models (small4's and small8's parameters), chosen directly: every
  // model is looked up before the runs are queued, and each layer is judged on its own design.
  const CodesignSpace s = load_codesign_space(kData + "codesign_rtl.yaml");
  PointEvaluator ev(s);
  const SearchOutcome grid = search_grid(ev, 0);
  const std::vector<int> designs = {small_design(s, grid, 4, 16), small_design(s, grid, 8, 32)};
  ASSERT_GE(designs[0], 0);
  ASSERT_GE(designs[1], 0);
  const fs::path dir = test_files::fresh_path("codesign_rtl_api");
  fs::create_directories(dir);
  RtlCheckRequest rq = two_workers();
  const auto rtl = check_on_rtl(ev, grid.points, designs, dir, rq);
  ASSERT_EQ(rtl.size(), 2u);
  for (int d : designs) {
    const auto& r = rtl.at(d);
    EXPECT_EQ(r["status"], "passed") << r.dump();
    EXPECT_EQ(r["layers_passed"], 3);
    // The YAML the workers loaded is the point's architecture.
    const Arch loaded = core::load_arch((dir / r["arch_file"].get<std::string>()).string());
    const Arch a = point_arch(s, grid.points[d].index);
    test_arch::expect_same_arch(loaded, a, a.name);
  }
  EXPECT_EQ(rtl.at(designs[0])["model"], "compiled-in small4");
  EXPECT_EQ(rtl.at(designs[1])["model"], "compiled-in small8");
  fs::remove_all(dir);
}

TEST(CodesignRtl, AResumedCheckTakesTheFinishedLayerRunsFromItsJournal) {
  // small4's design of codesign_rtl.yaml (a compiled-in model) checked with a journal, then
  // checked again as `codesign --resume` does after a kill: the journal's verdicts are used (one
  // of them edited here, so its figure shows where the verdict came from) and a torn last line
  // is dropped and run again.
  const CodesignSpace s = load_codesign_space(kData + "codesign_rtl.yaml");
  PointEvaluator ev(s);
  const SearchOutcome grid = search_grid(ev, 0);
  const int design = small_design(s, grid, 4, 16);
  ASSERT_GE(design, 0);
  const fs::path dir = test_files::fresh_path("codesign_rtl_journal");
  fs::create_directories(dir);
  RtlCheckRequest rq = two_workers();
  rq.journal = dir / "rtl.jsonl";
  const auto first = check_on_rtl(ev, grid.points, {design}, dir, rq).at(design);
  ASSERT_EQ(first["status"], "passed") << first.dump();
  EXPECT_EQ(first["layers_from_journal"], 0);
  ASSERT_EQ(lines_of(rq.journal), 3);
  // The first line's cycles edited, the last line torn in half.
  std::istringstream in(test_files::read_file(rq.journal));
  std::vector<std::string> lines(3);
  for (std::string& l : lines) std::getline(in, l);
  nlohmann::json edited = nlohmann::json::parse(lines[0]);
  edited["verification"]["metrics"]["cycles"] = 123456789;
  std::ofstream(rq.journal, std::ios::trunc) << edited.dump() << "\n"
                                             << lines[1] << "\n"
                                             << lines[2].substr(0, lines[2].size() / 2);
  rq.resume = true;
  const auto again = check_on_rtl(ev, grid.points, {design}, dir, rq).at(design);
  EXPECT_EQ(again["status"], "passed") << again.dump();
  EXPECT_EQ(again["layers_from_journal"], 2);
  EXPECT_EQ(lines_of(rq.journal), 3);  // the torn line cut, its layer run again and kept
  int edited_seen = 0;
  for (const auto& l : again["layers"]) edited_seen += l["verification"]["cycles"] == 123456789;
  EXPECT_EQ(edited_seen, 1);
  // Without resume the journal starts over and every layer runs.
  rq.resume = false;
  const auto fresh = check_on_rtl(ev, grid.points, {design}, dir, rq).at(design);
  EXPECT_EQ(fresh["layers_from_journal"], 0);
  for (size_t u = 0; u < fresh["layers"].size(); ++u)
    EXPECT_EQ(fresh["layers"][u]["verification"]["cycles"],
              first["layers"][u]["verification"]["cycles"]);
  fs::remove_all(dir);
}
