// A run or study folder is owned by one process (a second one is refused, naming the holder),
// and RTL workers die with their parent: after a SIGKILL of `mapwright run` or `mapwright
// regress` no worker survives.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/study.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

/// Pids of the live (not zombie) children of `parent`, from /proc.
std::set<pid_t> children_of(pid_t parent) {
  std::set<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so parse after the last ')'.
    const size_t rp = line.rfind(')');
    if (rp == std::string::npos) continue;
    std::istringstream rest(line.substr(rp + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.insert(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

/// CPU time used by `pid` so far, in clock ticks (utime + stime), or -1.
long cpu_ticks(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return -1;
  const size_t rp = line.rfind(')');
  if (rp == std::string::npos) return -1;
  std::istringstream rest(line.substr(rp + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15 of stat
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

}  // namespace

TEST(RunLock, ASecondProcessOnTheSameFolderIsRefusedNamingTheHolder_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("run_lock");
  fs::create_directories(dir);
  // Another process holds the folder (a separate open file description conflicts like one).
  const int fd = open((dir / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(write(fd, "4242", 4), 4);
  flows::RunOptions o;
  o.settings.network = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_net.yaml";
  o.settings.arch = "small4";
  o.settings.searcher = "random";
  o.settings.budget = 20;
  o.settings.no_rtl = true;
  o.progress = false;
  o.resume = true;
  o.given = {"network", "arch", "searcher", "budget", "no-rtl"};  // as typed on the command line
  o.out_dir = dir.string();
  std::ostringstream log;
  try {
    flows::cmd_run(o, log);
    ADD_FAILURE() << "a second run on a locked folder was accepted";
  } catch (const core::SpecError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("in use by another mapwright process (pid 4242)"), std::string::npos) << m;
    EXPECT_NE(m.find("--out"), std::string::npos) << m;
  }
  EXPECT_FALSE(fs::exists(dir / "results.json"));
  // Released: the same run now goes through.
  close(fd);
  EXPECT_EQ(flows::cmd_run(o, log), 0) << log.str();
  fs::remove_all(dir);
}

#ifdef MAPWRIGHT_HAVE_RTL
namespace {

/// Starts the CLI with `args` (output to /dev/null), waits until one of its RTL workers has
/// been simulating for a while (0.3 s of CPU), SIGKILLs the parent, and expects every worker to
/// end, the busy one killed by SIGKILL (the parent-death signal) rather than having run its
/// simulation to the end as an orphan. This process is the workers' subreaper, so the orphaned
/// workers become its children and their ends are read with waitpid: no wall-clock bound on
/// how quickly they die (the 120 s limit only stops a hung test).
void expect_no_orphans_after_sigkill(std::vector<std::string> args) {
  const std::string exe = MAPWRIGHT_CLI_EXE;
  args.insert(args.begin(), exe);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t parent = 0;
  ASSERT_EQ(posix_spawn(&parent, exe.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  std::set<pid_t> workers;
  pid_t busy = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (busy == 0 && std::chrono::steady_clock::now() < deadline) {
    workers = children_of(parent);
    for (pid_t w : workers)
      if (busy == 0 && cpu_ticks(w) >= sysconf(_SC_CLK_TCK) * 3 / 10) busy = w;
    if (busy == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  ASSERT_NE(busy, 0) << "no RTL worker was busy in a simulation";
  // The parent is gone: its workers are this process's children now (or already ended).
  std::map<pid_t, int> ended;  // worker -> wait status (-1: ended before it was reparented)
  const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (ended.size() < workers.size() && std::chrono::steady_clock::now() < stop) {
    for (pid_t w : workers) {
      if (ended.count(w) != 0) continue;
      int status = 0;
      const pid_t r = waitpid(w, &status, WNOHANG);
      if (r == w) ended[w] = status;
      if (r < 0) ended[w] = -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_EQ(ended.size(), workers.size()) << "RTL worker(s) survived their parent";
  ASSERT_EQ(ended.count(busy), 1u);
  const int st = ended[busy];
  EXPECT_TRUE(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
      << "the busy worker did not die by its parent's death signal (status " << st << ")";
  for (pid_t w : workers)
    if (ended.count(w) == 0) kill(w, SIGKILL);
}

}  // namespace

TEST(RtlWorkers, DieWithTheirParentOnSigkill) {
  const fs::path dir = mapwright::test_files::fresh_path("orphans");
  // Three random mappings of a mid-size layer: their RTL runs take seconds, so a worker is
  // busy in a simulation (not waiting on its pipe) when the parent is killed.
  expect_no_orphans_after_sigkill({"run", "--layer", "conv:K=64,C=64,H=28,W=28,R=3,S=3,pad=1",
                                   "--arch", "small4", "--searcher", "random", "--budget", "3",
                                   "--top-k", "3", "--jobs", "2", "--seed", "5", "--out",
                                   dir.string()});
  fs::remove_all(dir);
}

TEST(RtlWorkers, DieWithRegressOnSigkill) {
  const fs::path dir = mapwright::test_files::fresh_path("orphans_regress");
  fs::create_directories(dir);
  // Two cases whose fixed mapping takes about 4 M cycles each (seconds of simulation).
  std::ofstream(dir / "slow.yaml")
      << "name: slow\ncases:\n"
      << "  - {name: a, arch: small4, layer: 'conv:K=64,C=64,H=28,W=28,R=3,S=3,pad=1',\n"
      << "     mapping: {dataflow: ws, tiles: {N: 1, K: 4, C: 4, P: 4, Q: 4, R: 3, S: 3},\n"
      << "               order: [N, K, P, Q, C, R, S], pe: {rows: 4, cols: 4}}}\n"
      << "  - {name: b, arch: small4, layer: 'conv:K=64,C=64,H=28,W=28,R=3,S=3,pad=1',\n"
      << "     mapping: {dataflow: os, tiles: {N: 1, K: 4, C: 4, P: 4, Q: 4, R: 3, S: 3},\n"
      << "               order: [N, K, P, Q, C, R, S], pe: {rows: 4, cols: 4}}}\n";
  expect_no_orphans_after_sigkill(
      {"regress", "--suite", (dir / "slow.yaml").string(), "--jobs", "2"});
  fs::remove_all(dir);
}
#endif

TEST(FolderLock, ASecondStudyOnTheSameFolderIsRefusedNamingTheHolder_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_lock");
  fs::create_directories(dir);
  const int fd = open((dir / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(write(fd, "4343", 4), 4);
  flows::StudyOptions o;
  o.suite = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_study.yaml";
  o.out_dir = dir.string();
  std::ostringstream log;
  try {
    flows::cmd_study(o, log);
    ADD_FAILURE() << "a second study on a locked folder was accepted";
  } catch (const core::SpecError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("in use by another mapwright process (pid 4343)"), std::string::npos) << m;
  }
  EXPECT_FALSE(fs::exists(dir / "study-state.json"));
  close(fd);
  fs::remove_all(dir);
}
