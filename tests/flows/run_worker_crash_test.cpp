// A crashed RTL worker is not a verdict on the mapping: the pool runs the job again on a fresh
// worker (the record says how many retries it took), a job whose worker crashes on every try is
// recorded as an infrastructure failure, and --resume runs such verifications again. The
// crashes come from the worker's test hook MAPWRIGHT_TEST_CRASH_FIRST_JOB=<file>[:N] (see
// worker_loop): exactly N jobs die by SIGSEGV before answering.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "files.hpp"
#include "tiny_run.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/flows/run.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

#ifdef MAPWRIGHT_HAVE_RTL

namespace {

using mapwright::test_files::load;
using mapwright::test_files::tiny_run;

/// Sets the crash hook for the workers spawned while it lives (they inherit the environment).
class CrashHook {
 public:
  explicit CrashHook(const std::string& value) {
    setenv("MAPWRIGHT_TEST_CRASH_FIRST_JOB", value.c_str(), 1);
  }
  ~CrashHook() { unsetenv("MAPWRIGHT_TEST_CRASH_FIRST_JOB"); }
  CrashHook(const CrashHook&) = delete;
  CrashHook& operator=(const CrashHook&) = delete;
};

}  // namespace

TEST(RunWorkerCrash, OneCrashIsRetriedOnAFreshWorkerAndChangesNothing) {
  const fs::path clean = test_files::fresh_path("flows_crash_clean");
  const fs::path crashed = test_files::fresh_path("flows_crash_once");
  const fs::path marker = test_files::fresh_path("flows_crash_once_marker");
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_run(tiny_run(clean), out), 0) << out.str();
  {
    const CrashHook hook(marker.string());
    ASSERT_EQ(flows::cmd_run(tiny_run(crashed), out), 0) << out.str();
  }
  EXPECT_TRUE(fs::exists(marker)) << "the hook never fired";
  EXPECT_EQ(fs::file_size(marker), 1u) << "exactly one worker crashed";

  const json a = load(crashed), b = load(clean);
  EXPECT_EQ(a["status"], "complete");
  EXPECT_EQ(a["verification_summary"]["passed"], 6);
  EXPECT_EQ(a["verification_summary"]["failed"], 0);
  int retried = 0;
  ASSERT_EQ(a["layers"].size(), b["layers"].size());
  for (size_t i = 0; i < a["layers"].size(); ++i) {
    const auto &la = a["layers"][i], &lb = b["layers"][i];
    EXPECT_EQ(la["best"]["mapping"], lb["best"]["mapping"]) << la["name"];
    ASSERT_EQ(la["candidates"].size(), lb["candidates"].size());
    for (size_t c = 0; c < la["candidates"].size(); ++c) {
      const json& v = la["candidates"][c]["verification"];
      ASSERT_FALSE(v.is_null());
      EXPECT_TRUE(v["passed"].get<bool>()) << v.dump();
      EXPECT_EQ(v["kind"], "passed");
      const int r = v["retries"].get<int>();
      EXPECT_TRUE(r == 0 || r == 1) << v.dump();
      retried += r;
      EXPECT_EQ(lb["candidates"][c]["verification"]["retries"], 0);
      EXPECT_EQ(v["cycles"], lb["candidates"][c]["verification"]["cycles"]);
      EXPECT_EQ(v["metrics"], lb["candidates"][c]["verification"]["metrics"]);
    }
  }
  EXPECT_EQ(retried, 1) << "one record says it needed one retry";
  EXPECT_EQ(a["totals"], b["totals"]);
  fs::remove_all(clean);
  fs::remove_all(crashed);
  fs::remove(marker);
}

TEST(RunWorkerCrash, CrashOnEveryTryIsAnInfrastructureFailureThatResumeRunsAgain_bad) {
  const fs::path dir = test_files::fresh_path("flows_crash_always");
  const fs::path marker = test_files::fresh_path("flows_crash_always_marker");
  flows::RunOptions o = tiny_run(dir);
  o.settings.network = "";
  o.settings.layer = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1";
  o.settings.top_k = 1;
  o.jobs = 1;
  std::ostringstream out;
  {
    // One job, 1 + kMaxCrashRetries crashes: it crashes on every try.
    const CrashHook hook(marker.string() + ":" +
                         std::to_string(1 + rtlpool::RtlWorkerPool::kMaxCrashRetries));
    EXPECT_EQ(flows::cmd_run(o, out), 4) << out.str();
  }
  EXPECT_NE(out.str().find("--resume"), std::string::npos) << out.str();
  json r = load(dir);
  const json v = r["layers"][0]["candidates"][0]["verification"];
  EXPECT_FALSE(v["passed"].get<bool>());
  EXPECT_EQ(v["kind"], "infrastructure");
  EXPECT_EQ(v["retries"], rtlpool::RtlWorkerPool::kMaxCrashRetries);
  EXPECT_EQ(v["failure"].get<std::string>().rfind("worker: the RTL process killed by signal", 0),
            0u)
      << v.dump();
  EXPECT_EQ(r["verification_summary"]["infrastructure_failed"], 1);
  EXPECT_EQ(r["verification_summary"]["failures"][0]["kind"], "infrastructure");

  // The hook is spent (the marker holds 3 bytes): --resume runs the verification again.
  flows::RunOptions again = tiny_run(dir);
  again.resume = true;
  {
    const CrashHook hook(marker.string() + ":" +
                         std::to_string(1 + rtlpool::RtlWorkerPool::kMaxCrashRetries));
    ASSERT_EQ(flows::cmd_run(again, out), 0) << out.str();
  }
  r = load(dir);
  const json w = r["layers"][0]["candidates"][0]["verification"];
  EXPECT_TRUE(w["passed"].get<bool>()) << w.dump();
  EXPECT_EQ(w["kind"], "passed");
  EXPECT_EQ(w["retries"], 0);
  EXPECT_EQ(r["layers"][0]["best"]["chosen_by"], "rtl");
  EXPECT_EQ(r["verification_summary"]["failed"], 0);
  EXPECT_EQ(r["status"], "complete");
  fs::remove_all(dir);
  fs::remove(marker);
}

#endif
