// Simulation limits through the RTL worker pool and the CLI: a job past its wall-clock limit is
// stopped by killing its worker and comes back as a typed limit result (not a crash to retry,
// not an infrastructure failure), and the pool goes on serving; the cycle limit travels through
// the worker's JSON pipe with its estimate; `mapwright verify` prints the typed limit failure
// with verify's failure exit code and refuses an out-of-range limit naming the flag (exit 2).
#include <fcntl.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "files.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/flows/verify.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

/// Live (not yet reaped) child processes of this process, from /proc.
std::set<pid_t> my_children() {
  std::set<pid_t> kids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == getpid())
      kids.insert(static_cast<pid_t>(std::stol(name)));
  }
  return kids;
}

/// Runs the mapwright CLI with `args` (no shell), stdout and stderr into `log`; the exit code.
int run_cli(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv_s = {MAPWRIGHT_CLI_EXE};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv_s[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A job on small4: every tile 1 (the most commands a layer can have).
rtlpool::RtlJob tile_one_job(const std::string& layer) {
  rtlpool::RtlJob j;
  j.arch = "small4";
  j.layer = core::parse_layer_arg(layer);
  j.mapping = core::Mapping{};
  return j;
}

/// Polls until job `id` comes back (or 60 s pass).
rtlpool::RtlJobResult wait_for(rtlpool::RtlWorkerPool& pool, size_t id) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until)
    for (auto& [got, r] : pool.poll(500))
      if (got == id) return r;
  rtlpool::RtlJobResult lost;
  lost.failure = "test: no result";
  return lost;
}

}  // namespace

TEST(SimLimits, CheckRefusesOutOfRangeValuesNamingTheFlag_bad) {
  rtlpool::SimLimits ok;
  EXPECT_NO_THROW(rtlpool::check_sim_limits(ok));
  auto refused = [](rtlpool::SimLimits l, const std::string& flag, const std::string& value) {
    try {
      rtlpool::check_sim_limits(l);
      ADD_FAILURE() << flag << " " << value << " accepted";
    } catch (const core::SpecError& e) {
      EXPECT_EQ(e.where(), flag);
      EXPECT_EQ(e.value(), value);
      EXPECT_NE(std::string(e.what()).find("at most"), std::string::npos) << e.what();
    }
  };
  rtlpool::SimLimits l = ok;
  l.max_cycles = 0;
  refused(l, "--sim-max-cycles", "0");
  l.max_cycles = rtlpool::kMaxSimCycles + 1;
  refused(l, "--sim-max-cycles", "1000000000001");
  l = ok;
  l.max_seconds = -1;
  refused(l, "--sim-max-seconds", "-1");
  l.max_seconds = 604801;
  refused(l, "--sim-max-seconds", "604801");
  l = ok;
  l.max_memory_mb = 0;
  refused(l, "--sim-max-memory-mb", "0");
  l.max_memory_mb = rtlpool::kMaxSimMemoryMb + 1;
  refused(l, "--sim-max-memory-mb", "1048577");
}

#ifdef MAPWRIGHT_HAVE_RTL

TEST(SimLimitsPool, JobPastItsWallClockIsKilledAsALimitNotACrash_bad) {
  rtlpool::RtlWorkerPool pool(MAPWRIGHT_WORKER_EXE, 1);
  // ~600k tile steps: the simulation takes many seconds.
  rtlpool::RtlJob slow = tile_one_job("conv:K=16,C=16,H=16,W=16,R=3,S=3,pad=1");
  slow.limits.max_seconds = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t id = pool.submit(slow);
  const rtlpool::RtlJobResult r = wait_for(pool, id);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.over_limit()) << r.failure;
  EXPECT_FALSE(r.infrastructure());
  EXPECT_EQ(r.retries, 0);
  EXPECT_EQ(r.failure, "limit: simulation exceeded 0.5 s wall clock (--sim-max-seconds)");
  EXPECT_FALSE(r.ok());
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 10.0);
  EXPECT_EQ(pool.running(), 0u);
  EXPECT_TRUE(my_children().empty()) << "the killed worker was reaped";

  // The pool still serves: a small job on a fresh worker passes.
  rtlpool::RtlJob small = tile_one_job("conv:K=4,C=2,H=4,W=4,R=3,S=3,pad=1");
  const rtlpool::RtlJobResult next = wait_for(pool, pool.submit(small));
  EXPECT_TRUE(next.ok()) << next.failure;
  EXPECT_FALSE(next.over_limit());
  EXPECT_GT(next.predicted_cycles, 0);
  EXPECT_GT(next.estimated_memory_mb, 0);
}

TEST(SimLimitsPool, CycleLimitTravelsThroughTheWorkerWithItsEstimate_bad) {
  rtlpool::RtlWorkerPool pool(MAPWRIGHT_WORKER_EXE, 1);
  rtlpool::RtlJob j = tile_one_job("conv:K=4,C=2,H=4,W=4,R=3,S=3,pad=1");
  j.limits.max_cycles = 1;
  const rtlpool::RtlJobResult r = wait_for(pool, pool.submit(j));
  EXPECT_TRUE(r.over_limit()) << r.failure;
  EXPECT_FALSE(r.infrastructure());
  EXPECT_EQ(r.retries, 0);
  EXPECT_GT(r.predicted_cycles, 1);
  EXPECT_EQ(r.failure, "limit: predicted " + std::to_string(r.predicted_cycles) +
                           " cycles > max_cycles 1 (raise it with --sim-max-cycles)");
}

TEST(SimLimitsCli, VerifyOverMaxCyclesPrintsTheLimitAndFails_bad) {
  const fs::path log = test_files::fresh_path("sim_limits_verify.log");
  const std::vector<std::string> base = {"verify", "--arch", "small4", "--layer",
                                         "conv:K=8,C=4,H=8,W=8,R=3,S=3,pad=1"};
  auto with = [&](const std::string& v) {
    auto a = base;
    a.insert(a.end(), {"--sim-max-cycles", v});
    return a;
  };
  EXPECT_EQ(run_cli(with("1"), log), 4) << test_files::read_file(log);
  std::string text = test_files::read_file(log);
  EXPECT_NE(text.find("limit: predicted "), std::string::npos) << text;
  EXPECT_NE(text.find(" cycles > max_cycles 1 (raise it with --sim-max-cycles)"), std::string::npos)
      << text;
  for (const std::string bad : {"0", "-5"}) {
    EXPECT_EQ(run_cli(with(bad), log), 2) << test_files::read_file(log);
    text = test_files::read_file(log);
    EXPECT_NE(text.find("--sim-max-cycles: key 'sim-max-cycles' = '" + bad + "'"),
              std::string::npos)
        << text;
  }
  fs::remove(log);
}

// An architecture with the bursts DRAM port: eval scores it, verify runs it on the RTL (whose DMA
// generates the bursts' addresses) and finds it exact. With a latency beyond the bursts the RTL
// keeps in flight, verify, fidelity and a run with RTL verification refuse it before any work,
// naming the flag, the key and the value (exit 2); a run without RTL goes through.
TEST(SimLimitsCli, BurstPortArchIsVerifiedUpToTheBurstsInFlight_bad) {
  const fs::path log = test_files::fresh_path("burst_port.log");
  auto write_arch = [](const std::string& name, const std::string& dram) {
    const fs::path arch = test_files::fresh_path(name);
    std::ifstream in(core::configs_dir() + "/arch/small4.yaml");
    std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = t.find("latency_cycles: 20");
    EXPECT_NE(at, std::string::npos);
    t.replace(at, 18, dram);
    std::ofstream(arch) << t;
    return arch;
  };
  const fs::path arch = write_arch("small4-bursts.yaml", "latency_cycles: 20, port: bursts");
  const std::string layer = "conv:K=8,C=4,H=8,W=8,R=3,S=3,pad=1";
  EXPECT_EQ(run_cli({"eval", "--arch", arch.string(), "--layer", layer}, log), 0)
      << test_files::read_file(log);
  EXPECT_NE(test_files::read_file(log).find("DRAM port bursts"), std::string::npos);
  EXPECT_EQ(run_cli({"verify", "--arch", arch.string(), "--layer", layer}, log), 0)
      << test_files::read_file(log);
  EXPECT_NE(test_files::read_file(log).find("bit-exact"), std::string::npos)
      << test_files::read_file(log);
  // fidelity draws only mappings the bursts port can serve (core::check_valid), also where
  // many cannot (a stride of 3 and padding: input rows in blocks cut by the padding).
  EXPECT_EQ(run_cli({"fidelity", "--arch", arch.string(), "--layer",
                     "conv:K=8,C=6,H=9,W=9,R=3,S=3,stride=3,pad=1", "--samples", "8", "--seed", "3",
                     "--json"},
                    log),
            0)
      << test_files::read_file(log);
  {
    const nlohmann::json j = nlohmann::json::parse(test_files::read_file(log));
    EXPECT_EQ(j["functional_ok"], 8);
    EXPECT_EQ(j["failures"], 0);
  }

  const fs::path slow = write_arch("small4-bursts-slow.yaml", "latency_cycles: 300, port: bursts");
  const std::string want =
      "--arch: key 'dram.latency_cycles' = '300': the RTL's bursts port keeps at most 256";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify", "--arch", slow.string(), "--layer", layer},
        {"fidelity", "--arch", slow.string(), "--layer", layer, "--samples", "1"},
        {"run", "--arch", slow.string(), "--layer", layer, "--out",
         test_files::fresh_path("burst_run").string()}}) {
    EXPECT_EQ(run_cli(args, log), 2) << args[0] << ": " << test_files::read_file(log);
    EXPECT_NE(test_files::read_file(log).find(want), std::string::npos)
        << test_files::read_file(log);
  }
  EXPECT_EQ(run_cli({"run", "--arch", slow.string(), "--layer", layer, "--no-rtl", "--out",
                     test_files::fresh_path("burst_run2").string()},
                    log),
            0)
      << test_files::read_file(log);
  fs::remove(log);
  fs::remove(arch);
  fs::remove(slow);
}

#endif
