// The typed run record against its JSON form: a results.json read into the record and written
// back is the same JSON (the golden run's record, whose values the run itself wrote); records of
// earlier versions (a numeric layer kind, verifications without kind or failure_kind) read into
// the right typed kinds; the summary is derived from the record as documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/flows/run_record.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mapwright;
using namespace mapwright::flows;

namespace {

/// `j` with the golden's "<varies>" placeholders (timestamps, wall times, the worker count)
/// replaced by values of their type.
json with_values(const json& j) {
  if (j.is_object()) {
    json o = json::object();
    for (const auto& [k, v] : j.items()) {
      const bool text = k == "created" || k == "updated" || k == "run_id";
      o[k] = v == "<varies>" ? (text          ? json("2026-01-01T00:00:00")
                                : k == "jobs" ? json(2)
                                              : json(0.5))
                             : with_values(v);
    }
    return o;
  }
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(with_values(v));
    return a;
  }
  return j;
}

/// The tiny run's results.json (tests/flows/data/tiny_run.golden.json, see GoldenRun).
json golden_record() {
  const fs::path golden = fs::path(MAPWRIGHT_SOURCE_DIR) / "tests/flows/data/tiny_run.golden.json";
  return with_values(json::parse(test_files::read_file(golden)));
}

/// A small record: two layers, one chosen by RTL with two verifications (one passed, one a
/// design failure), one pending.
RunRecord small_record() {
  RunRecord r;
  r.run_id = "x";
  r.target = "t";
  r.arch.name = "small4";
  r.arch.rows = 4;
  r.arch.cols = 4;
  r.arch.clock_mhz = 1000;
  r.settings.searcher = "exact";
  r.settings.budget = 10;
  r.settings.objective = "edp";
  r.settings.top_k = 2;
  r.settings.no_rtl = false;
  const core::Layer conv = core::parse_layer_arg("conv:K=4,C=4,H=4,W=4,R=3,S=3,pad=1");
  LayerRecord a;
  a.index = 0;
  a.layer = conv;
  a.count = 2;
  a.status = LayerStatus::Done;
  for (int rank = 0; rank < 2; ++rank) {
    Candidate c;
    c.rank = rank;
    c.cost = 100 + rank;
    c.surrogate.valid = true;
    c.surrogate.cycles = 1000;
    c.refined_cycles = rank == 0 ? 990 : 900;
    Verification v;
    v.rtl = core::Metrics{};
    v.rtl->valid = true;
    v.rtl->cycles = rank == 0 ? 1000 : 800;
    v.cycle_error_pct = rank == 0 ? 0.0 : 25.0;
    v.functional_ok = rank == 0;
    v.counts_equal = true;
    v.passed = rank == 0;
    v.kind = rank == 0 ? VerificationKind::Passed : VerificationKind::Design;
    c.verification = v;
    a.candidates.push_back(c);
  }
  Choice best;  // member by member: no aggregate temporary around the Mapping's strings
  best.chosen_by = ChosenBy::Rtl;
  best.cycles = 1000;
  best.energy_pj = 5.0;
  best.edp = 5000.0;
  best.utilization = 0.5;
  best.cost = 5000.0;
  a.best = best;
  LayerRecord b;
  b.index = 1;
  b.layer = conv;
  b.status = LayerStatus::Pending;
  r.layers = {a, b};
  return r;
}

}  // namespace

TEST(RunRecord, GoldenRecordRoundTripsThroughTheTypedRecord) {
  const json j = golden_record();
  try {
    check_run_record(j, "golden");
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  const RunRecord r = run_record_from_json(j, "golden");
  const json back = run_record_to_json(r);
  json want = j;
  // The golden blanks every "seconds"; the record derives the run's from its cycles.
  want["totals"]["seconds"] = back["totals"]["seconds"];
  EXPECT_EQ(back, want) << json::diff(want, back).dump(1);
}

TEST(RunRecord, EarlierRecordsReadIntoTypedKinds) {
  json j = golden_record();
  json& L = j["layers"][0];
  L["layer"]["kind"] = 0;  // format-1 records stored the kind as its enum number
  json& v = L["candidates"][0]["verification"];
  ASSERT_TRUE(v.is_object());
  v.erase("kind");
  v.erase("failure_kind");
  v["passed"] = false;
  v["failure"] = "worker: the RTL process killed by signal 9";
  const RunRecord r = run_record_from_json(j, "old");
  EXPECT_EQ(r.layers[0].layer.kind, core::LayerKind::Conv);
  const Verification& got = *r.layers[0].candidates[0].verification;
  EXPECT_EQ(got.failure_kind, core::RtlFailure::Worker);
  EXPECT_EQ(got.kind, VerificationKind::Infrastructure);
  // Written back, the record carries the typed kinds.
  const json back = run_record_to_json(r)["layers"][0]["candidates"][0]["verification"];
  EXPECT_EQ(back["kind"], "infrastructure");
  EXPECT_EQ(back["failure_kind"], "worker");
}

TEST(RunRecord, AnUnknownStatusIsAClearError) {
  json j = golden_record();
  j["layers"][0]["status"] = "finished";
  try {
    run_record_from_json(j, "results.json");
    FAIL() << "accepted status 'finished'";
  } catch (const core::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("results.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("finished"), std::string::npos) << e.what();
  }
}

TEST(RunRecord, SummaryIsDerivedFromTheRecord) {
  const RunRecord r = small_record();
  const RunSummary s = summarize(r);
  EXPECT_EQ(s.layers_done, 1u);
  EXPECT_EQ(s.layers_total, 2u);
  EXPECT_DOUBLE_EQ(s.cycles, 2000);  // count 2 x 1000 cycles
  EXPECT_DOUBLE_EQ(s.energy_pj, 10);
  EXPECT_DOUBLE_EQ(s.edp, 20000);
  EXPECT_EQ(s.source, "rtl");
  EXPECT_EQ(s.planned, 2u);
  EXPECT_EQ(s.done, 2u);
  EXPECT_EQ(s.passed, 1u);
  EXPECT_EQ(s.failed, 1u);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0], (std::pair<size_t, size_t>{0, 1}));
  EXPECT_EQ(s.parity_n, 2u);
  EXPECT_DOUBLE_EQ(s.mape_pct, 12.5);
  EXPECT_DOUBLE_EQ(s.max_error_pct, 25);
  // The refined estimates (990 and 900 against 1000 and 800 RTL cycles): 1 % and 12.5 %.
  EXPECT_EQ(s.refined_n, 2u);
  EXPECT_DOUBLE_EQ(s.refined_mape_pct, 6.75);
  EXPECT_DOUBLE_EQ(s.refined_max_error_pct, 12.5);
  const json j = run_record_to_json(r);
  // Written out: the refined parity, each candidate's estimate (read back), and the failure
  // naming its layer, rank and kind.
  EXPECT_DOUBLE_EQ(j["parity"]["refined"]["mape_pct"].get<double>(), 6.75);
  EXPECT_EQ(j["layers"][0]["candidates"][1]["refined_cycles"], 900);
  EXPECT_EQ(run_record_from_json(j, "back").layers[0].candidates[1].refined_cycles, 900);
  EXPECT_EQ(j["verification_summary"]["failures"][0]["rank"], 1);
  EXPECT_EQ(j["verification_summary"]["failures"][0]["kind"], "design");
  EXPECT_EQ(j["totals"]["source"], "rtl");
}

// The settings' one JSON mapping: what results.json keeps reads back into the same settings
// (the exact mapper's with searcher "exact" only, the RTL reward's with reward "rtl" only), and
// a --resume compares only the flags given, naming both values.
TEST(RunSettings, JsonRoundTripAndChangedFlags) {
  RunSettings s;
  s.network = "tiny.onnx";
  s.input_shapes = {"x=1x3x8x8"};
  s.strict = true;
  s.searcher = "ga";
  s.budget = 40;
  s.seed = 7;
  s.top_k = 2;
  s.reward = "rtl";
  s.surrogate_warmup = 5;
  const json j = settings_to_json(s);
  EXPECT_FALSE(j.contains("exact"));
  EXPECT_EQ(j["reward"]["surrogate_warmup"], 5);
  EXPECT_EQ(j["import"]["input_shapes"][0], "x=1x3x8x8");
  const RunSettings back = settings_from_json(j, "settings");
  EXPECT_EQ(settings_to_json(back), j);
  EXPECT_EQ(back.reward, "rtl");
  EXPECT_TRUE(back.strict);

  RunSettings given = s;
  given.seed = 8;
  given.budget = 41;
  given.exact.time_limit_s = 5;  // not the exact mapper's run: never compared
  EXPECT_TRUE(changed_flags(s, given, {"network", "time-limit"}).empty());
  const std::vector<SettingChange> c = changed_flags(s, given, {"budget", "seed", "time-limit"});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].flag, "budget");
  EXPECT_EQ(c[0].stored, "40");
  EXPECT_EQ(c[0].given, "41");
  EXPECT_EQ(c[1].flag, "seed");
  s.searcher = given.searcher = "exact";
  EXPECT_EQ(changed_flags(s, given, {"time-limit"}).size(), 1u);
}
