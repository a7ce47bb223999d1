// `mapwright run` end to end: a tiny network on small4 with every top-K candidate verified on
// the RTL in worker processes; the run folder (results.json, CSVs, mappings, SQLite, report);
// an interrupted run resumed to the same result as an uninterrupted one; refusals.
#include "mapwright/flows/report.hpp"
#include "mapwright/flows/run.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "files.hpp"
#include "tiny_run.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/core/mapping.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

namespace {

using mapwright::test_files::read_file;

using mapwright::test_files::load;
using mapwright::test_files::tiny_run;

long long count_rows(const fs::path& db, const std::string& table) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, ("SELECT COUNT(*) FROM " + table).c_str(), -1, &st, nullptr),
            SQLITE_OK);
  long long n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

/// `cmd_run(o)` is refused with a SpecError whose message contains every one of `needles`.
void expect_refused(const flows::RunOptions& o, const std::vector<std::string>& needles) {
  std::ostringstream out;
  try {
    flows::cmd_run(o, out);
    FAIL() << "expected a SpecError";
  } catch (const core::SpecError& e) {
    for (const auto& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

/// The run tests: each writes into fresh folders that are removed when it passes (kept for a
/// look when it fails).
class Run : public ::testing::Test {
 protected:
  /// A fresh, empty folder "flows_<name>" of this test.
  fs::path folder(const std::string& name) {
    folders_.push_back(mapwright::test_files::fresh_path("flows_" + name));
    return folders_.back();
  }

  void TearDown() override {
    if (HasFailure()) return;
    for (const fs::path& f : folders_) fs::remove_all(f);
  }

 private:
  std::vector<fs::path> folders_;  ///< The folders folder() made.
};

}  // namespace

#ifdef MAPWRIGHT_HAVE_RTL

TEST_F(Run, TinyNetworkOnSmall4VerifiedOnRtl) {
  const fs::path dir = folder("e2e");
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_run(tiny_run(dir), out), 0) << out.str();
  const json r = load(dir);
  EXPECT_EQ(r["status"], "complete");
  ASSERT_EQ(r["layers"].size(), 3u);
  for (const auto& L : r["layers"]) {
    EXPECT_EQ(L["status"], "done") << L["name"];
    ASSERT_EQ(L["candidates"].size(), 2u) << L["name"];
    EXPECT_NE(L["candidates"][0]["mapping"], L["candidates"][1]["mapping"]);  // distinct
    EXPECT_LE(L["candidates"][0]["cost"].get<double>(), L["candidates"][1]["cost"].get<double>());
    for (const auto& c : L["candidates"]) {
      ASSERT_FALSE(c["verification"].is_null());
      EXPECT_TRUE(c["verification"]["passed"].get<bool>()) << c["verification"].dump();
      EXPECT_TRUE(c["verification"]["functional_ok"].get<bool>());
    }
    EXPECT_EQ(L["best"]["chosen_by"], "rtl");
    // The chosen mapping is written and loads back.
    const core::Mapping m =
        core::load_mapping_file((dir / L["mapping_file"].get<std::string>()).string());
    EXPECT_EQ(core::mapping_to_yaml(m), L["best"]["mapping"].get<std::string>());
  }
  EXPECT_EQ(r["verification_summary"]["passed"], 6);
  EXPECT_EQ(r["totals"]["source"], "rtl");
  EXPECT_GT(r["totals"]["cycles"].get<double>(), 0);
  EXPECT_GE(r["parity"]["n"].get<int>(), 6);

  // The results store.
  EXPECT_EQ(count_rows(dir / "results.sqlite", "runs"), 1);
  EXPECT_EQ(count_rows(dir / "results.sqlite", "layers"), 3);
  EXPECT_EQ(count_rows(dir / "results.sqlite", "evaluations"), 3 * 150);
  EXPECT_EQ(count_rows(dir / "results.sqlite", "verifications"), 6);
  EXPECT_EQ(count_rows(dir / "results.sqlite", "verifications WHERE refined_cycles > 0"), 6);
  // small4 has a plain model, so the workers simulate in the decoupled SystemC harness.
  EXPECT_EQ(count_rows(dir / "results.sqlite", "verifications WHERE harness = 'decoupled SystemC'"),
            6);

  // CSVs and the report: self-contained, escaped, with plots and every check.
  EXPECT_TRUE(fs::exists(dir / "layers.csv"));
  EXPECT_TRUE(fs::exists(dir / "verifications.csv"));
  const std::string html = read_file(dir / "report.html");
  EXPECT_NE(html.find("All 6 RTL verifications passed"), std::string::npos);
  EXPECT_NE(html.find("in the decoupled SystemC harness"), std::string::npos);
  const std::string csv = read_file(dir / "verifications.csv");
  EXPECT_EQ(csv.rfind("layer,rank,seed,", 0), 0u);
  EXPECT_NE(csv.find(",failure,harness,sim_seconds\n"), std::string::npos);
  EXPECT_NE(csv.find(",\"\",decoupled SystemC,"), std::string::npos);
  EXPECT_NE(html.find("conv&lt;b&gt;&amp;&#39;3x3&#39;"), std::string::npos);
  EXPECT_EQ(html.find("conv<b>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos) << "gnuplot plots are inlined";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_NE(html.find("Spearman"), std::string::npos);

  // `mapwright report` re-renders it from the folder.
  fs::remove(dir / "report.html");
  std::ostringstream rep;
  EXPECT_EQ(flows::cmd_report({dir.string(), ""}, rep), 0);
  EXPECT_EQ(read_file(dir / "report.html").size(), html.size());
}

TEST_F(Run, ResumeAfterInterruptionLosesNothing) {
  const fs::path full = folder("full"), part = folder("part");
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_run(tiny_run(full), out), 0) << out.str();

  // Interrupted after the first layer's search (as a Ctrl-C there): its RTL runs in flight
  // finish, the rest is kept for --resume.
  flows::RunOptions o = tiny_run(part);
  o.stop_after_layers = 1;
  EXPECT_EQ(flows::cmd_run(o, out), 130);
  json r = load(part);
  EXPECT_EQ(r["status"], "interrupted");
  EXPECT_NE(r["layers"][0]["status"], "pending");
  EXPECT_EQ(r["layers"][1]["status"], "pending");
  EXPECT_NE(read_file(part / "report.html").find("resume"), std::string::npos);

  // Without --resume the folder is refused; with it the run completes.
  flows::RunOptions again = tiny_run(part);
  EXPECT_THROW(flows::cmd_run(again, out), core::SpecError);
  again.resume = true;
  again.settings.network = "resnet18";  // ignored: the stored settings win unless given explicitly
  ASSERT_EQ(flows::cmd_run(again, out), 0) << out.str();
  r = load(part);
  const json f = load(full);
  EXPECT_EQ(r["status"], "complete");
  EXPECT_EQ(r["run_id"], load(part)["run_id"]);
  ASSERT_EQ(r["layers"].size(), f["layers"].size());
  for (size_t i = 0; i < r["layers"].size(); ++i) {
    const auto &a = r["layers"][i], &b = f["layers"][i];
    EXPECT_EQ(a["best"]["mapping"], b["best"]["mapping"]) << a["name"];
    ASSERT_EQ(a["candidates"].size(), b["candidates"].size());
    for (size_t c = 0; c < a["candidates"].size(); ++c) {
      EXPECT_EQ(a["candidates"][c]["mapping"], b["candidates"][c]["mapping"]);
      EXPECT_EQ(a["candidates"][c]["verification"]["cycles"],
                b["candidates"][c]["verification"]["cycles"]);
      EXPECT_EQ(a["candidates"][c]["verification"]["seed"],
                b["candidates"][c]["verification"]["seed"]);
    }
  }
  EXPECT_EQ(r["totals"]["cycles"], f["totals"]["cycles"]);
  EXPECT_EQ(count_rows(part / "results.sqlite", "verifications"), 6);
  EXPECT_EQ(count_rows(part / "results.sqlite", "evaluations"), 3 * 150);
  EXPECT_EQ(count_rows(part / "results.sqlite", "runs"), 1);

  // A resume with an explicitly different setting is refused, naming the flag.
  flows::RunOptions bad = tiny_run(part);
  bad.resume = true;
  bad.settings.seed = 4;
  bad.given = {"seed"};
  expect_refused(bad, {"--seed"});
}

// --reward rtl: after the warm-up the searcher's samples are scored by the RTL (the record
// says how many and from which source); the candidates are still verified; a resume with the
// other reward is refused, and the exact mapper refuses RTL reward.
TEST_F(Run, RtlRewardScoresTheLastPhaseOnTheRtl) {
  const fs::path dir = folder("rtl_reward");
  std::ostringstream out;
  flows::RunOptions o = tiny_run(dir);
  o.settings.budget = 24;
  o.settings.reward = "rtl";
  o.settings.surrogate_warmup = 8;
  ASSERT_EQ(flows::cmd_run(o, out), 0) << out.str();
  const json r = load(dir);
  EXPECT_EQ(r["reward"]["source"], "rtl");
  EXPECT_EQ(r["reward"]["surrogate_warmup"], 8);
  for (const auto& L : r["layers"]) {
    const auto& rw = L["search"]["reward"];
    EXPECT_EQ(rw["source"], "rtl") << L["name"];
    EXPECT_GT(rw["rtl_samples"].get<long long>(), 0) << L["name"];
    EXPECT_LE(rw["rtl_samples"].get<long long>(), 24 - 8) << L["name"];
    EXPECT_EQ(L["status"], "done");
  }
  EXPECT_EQ(r["verification_summary"]["failed"], 0);

  flows::RunOptions again = tiny_run(dir);
  again.resume = true;
  again.given = {"reward"};
  expect_refused(again, {"--reward"});  // a resume with --reward surrogate
  const fs::path exact_dir = folder("rtl_reward_exact");
  flows::RunOptions exact = tiny_run(exact_dir);
  exact.settings.searcher = "exact";
  exact.settings.reward = "rtl";
  EXPECT_THROW(flows::cmd_run(exact, out), core::SpecError);
  EXPECT_FALSE(fs::exists(exact_dir / "results.json"));
}

// --resume on a folder that holds no run yet starts one (what scripts/run-defaults.sh does on
// a fresh clone), without any option given explicitly.
TEST_F(Run, ResumeOnANewFolderStartsTheRun) {
  const fs::path dir = folder("resume_new");
  std::ostringstream out;
  flows::RunOptions o = tiny_run(dir);
  o.resume = true;
  o.settings.no_rtl = true;
  ASSERT_TRUE(o.given.empty());
  ASSERT_EQ(flows::cmd_run(o, out), 0) << out.str();
  EXPECT_EQ(load(dir)["status"], "complete");
}

TEST_F(Run, ArchWithoutRtlModelNeedsNoRtl) {
  // 6 DRAM bytes per cycle: the RTL takes multiples of 4, so no model can be built for it.
  const fs::path dir = folder("odd_beat");
  flows::RunOptions o = tiny_run(dir);
  o.settings.arch = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/odd_beat.yaml";
  o.settings.network = "";
  o.settings.layer = "conv:K=32,C=32,H=14,W=14,R=3,S=3,pad=1";
  expect_refused(o, {"--no-rtl", "no RTL model can be built"});
  std::ostringstream out;
  o.settings.no_rtl = true;
  ASSERT_EQ(flows::cmd_run(o, out), 0) << out.str();
  const json r = load(dir);
  EXPECT_FALSE(r["rtl"].get<bool>());
  EXPECT_EQ(r["totals"]["source"], "surrogate");
  EXPECT_NE(read_file(dir / "report.html").find("Surrogate only"), std::string::npos);
}

TEST_F(Run, FailedRtlVerificationIsReportedInRedAndExitsNonZero) {
  const fs::path dir = folder("fail");
  flows::RunOptions o = tiny_run(dir);
  o.settings.network = "";
  o.settings.layer = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1";
  o.rtl_watchdog_cycles = 50;  // far too few: every RTL run ends in a typed watchdog failure
  std::ostringstream out;
  EXPECT_EQ(flows::cmd_run(o, out), 4) << out.str();
  EXPECT_NE(out.str().find("FAILED"), std::string::npos) << out.str();
  const json r = load(dir);
  EXPECT_EQ(r["verification_summary"]["failed"], 2);
  for (const auto& c : r["layers"][0]["candidates"])
    EXPECT_EQ(c["verification"]["failure"].get<std::string>().rfind("watchdog:", 0), 0u)
        << c.dump();
  EXPECT_EQ(r["layers"][0]["best"]["chosen_by"], "surrogate");
  const std::string html = read_file(dir / "report.html");
  EXPECT_NE(html.find("banner bad"), std::string::npos);
  EXPECT_NE(html.find("class=\"fail\""), std::string::npos);
  EXPECT_NE(html.find("watchdog:"), std::string::npos);
}

#endif

TEST_F(Run, BadOptionsAreRefusedBeforeAnyWork) {
  const fs::path dir = folder("bad");
  std::ostringstream out;
  flows::RunOptions o = tiny_run(dir);
  o.settings.no_rtl = true;
  o.settings.top_k = 0;
  EXPECT_THROW(flows::cmd_run(o, out), core::SpecError);
  o.settings.top_k = 2;
  o.settings.searcher = "nope";
  EXPECT_THROW(flows::cmd_run(o, out), core::SpecError);
  o.settings.searcher = "ga";
  o.settings.objective = "speed";
  EXPECT_THROW(flows::cmd_run(o, out), core::SpecError);
  EXPECT_FALSE(fs::exists(dir / "results.json"));
}
