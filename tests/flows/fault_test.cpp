// Faults during long work, through the real CLI in child processes: `run` and `study` killed
// with SIGKILL at random times and at chosen points (in the middle of a file write, inside a
// SQLite transaction, in the middle of a study record) resume to exactly the result of an
// uninterrupted run; a full disk (a small tmpfs, and a file-size limit) and an unwritable
// output folder are clear errors (exit 2, the path named) that leave what was written valid and
// resumable; a hand-edited results.json is refused naming the key.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "files.hpp"
#include "mapwright/flows/run.hpp"

namespace fs = std::filesystem;
using mapwright::test_files::fresh_path;
using mapwright::test_files::read_file;
using mapwright::test_files::runs_without_seconds;
using nlohmann::json;

namespace {

/// How a child process is started and stopped.
struct Child {
  std::vector<std::string> args;  ///< After the executable.
  std::string kill_at;            ///< MAPWRIGHT_TEST_KILL_AT ("" = none).
  int kill_after_ms = -1;         ///< SIGKILL after this long (-1 = never).
  long long max_file_bytes = -1;  ///< RLIMIT_FSIZE (-1 = none).
};

struct Outcome {
  int code = -1;    ///< Exit code, or 128 + signal.
  std::string err;  ///< Standard error.
};

/// Runs the mapwright CLI of this build as a child (fork + execve, no shell).
Outcome run_cli(const Child& c, const fs::path& scratch) {
  const std::string exe = MAPWRIGHT_CLI_EXE;
  std::vector<std::string> args = {exe};
  args.insert(args.end(), c.args.begin(), c.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("MAPWRIGHT_TEST_KILL_AT=", 0) != 0) env.emplace_back(*e);
  if (!c.kill_at.empty()) env.push_back("MAPWRIGHT_TEST_KILL_AT=" + c.kill_at);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string err_file = (scratch / ("stderr_" + std::to_string(getpid()))).string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open("/dev/null", O_WRONLY);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (c.max_file_bytes >= 0) {
      const rlimit r{static_cast<rlim_t>(c.max_file_bytes), static_cast<rlim_t>(c.max_file_bytes)};
      setrlimit(RLIMIT_FSIZE, &r);
    }
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  Outcome o;
  int status = 0;
  if (c.kill_after_ms >= 0) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(c.kill_after_ms);
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= until) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  } else {
    waitpid(pid, &status, 0);
  }
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.err = read_file(err_file);
  fs::remove(err_file);
  return o;
}

/// The tiny run of the flows tests (tiny_net.yaml on small4, GA, RTL) into `out`.
std::vector<std::string> tiny_run_args(const fs::path& out) {
  return {
      "run",    "--network", std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_net.yaml",
      "--arch", "small4",    "--searcher",
      "ga",     "--budget",  "150",
      "--seed", "3",         "--top-k",
      "2",      "--jobs",    "2",
      "--out",  out.string()};
}

Child cli(std::vector<std::string> args) {
  Child c;
  c.args = std::move(args);
  return c;
}

std::vector<std::string> resume_args(const fs::path& out) {
  return {"run", "--resume", "--out", out.string(), "--jobs", "2"};
}

/// `j` without what legitimately differs between two runs of the same work: timestamps,
/// folders, identities, wall and simulation times.
json stable(json j) {
  if (j.is_object()) {
    json o = json::object();
    for (auto& [k, v] : j.items()) {
      if (k == "created" || k == "updated" || k == "run_id" || k == "run_dir" || k == "db" ||
          k == "jobs" || k == "status_note" || k == "threads" || k == "suite_file" ||
          k == "runs_from_earlier_sessions" || k == "retries")
        continue;
      if (k.size() >= 7 && k.compare(k.size() - 7, 7, "seconds") == 0) continue;
      if (k.rfind("wall_seconds", 0) == 0) continue;
      o[k] = stable(v);
    }
    return o;
  }
  if (j.is_array()) {
    json a = json::array();
    for (auto& v : j) a.push_back(stable(v));
    return a;
  }
  return j;
}

json load_json(const fs::path& f) {
  return json::parse(read_file(f));
}

/// The path of the first difference between two JSON values ("" when equal), with both values.
std::string first_difference(const json& a, const json& b, const std::string& path = "") {
  if (a.type() == b.type() && a.is_object()) {
    for (auto& [k, v] : a.items()) {
      if (!b.contains(k)) return path + "." + k + " missing on the right";
      const std::string d = first_difference(v, b[k], path + "." + k);
      if (!d.empty()) return d;
    }
    for (auto& [k, v] : b.items())
      if (!a.contains(k)) return path + "." + k + " missing on the left";
    return "";
  }
  if (a.type() == b.type() && a.is_array()) {
    if (a.size() != b.size())
      return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
             " entries";
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a == b) return "";
  return path + ": " + a.dump().substr(0, 200) + " vs " + b.dump().substr(0, 200);
}

/// PRAGMA integrity_check of a SQLite file ("ok" when sound).
std::string integrity(const fs::path& db) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    return "cannot open";
  }
  std::string r;
  sqlite3_exec(
      h, "PRAGMA integrity_check",
      [](void* p, int, char** v, char**) {
        *static_cast<std::string*>(p) += v[0] ? v[0] : "null";
        return 0;
      },
      &r, nullptr);
  sqlite3_close(h);
  return r;
}

/// Temporary files left anywhere under `dir`.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> t;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos)
      t.push_back(e.path().string());
  return t;
}

/// What an interrupted run folder must be at any moment: results.json absent or a valid run
/// record (the check `report` and `--resume` make), the SQLite file sound.
void expect_valid_run_folder(const fs::path& dir, const std::string& what) {
  if (fs::exists(dir / "results.json")) {
    const json j = load_json(dir / "results.json");
    try {
      mapwright::flows::check_run_record(j, (dir / "results.json").string());
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": " << e.what();
    }
    EXPECT_TRUE(j["status"] == "running" || j["status"] == "interrupted" ||
                j["status"] == "complete")
        << what;
  }
  if (fs::exists(dir / "results.sqlite")) {
    EXPECT_EQ(integrity(dir / "results.sqlite"), "ok") << what;
  }
}

/// Resumes the tiny run in `dir` until it completes (at most three times); the final record.
/// A run stopped before its first results.json is started again with its options and --resume
/// (`run --resume --out` alone cannot know them, and says so).
json resume_to_completion(const fs::path& dir, const fs::path& scratch, const std::string& what) {
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> args = resume_args(dir);
    if (!fs::exists(dir / "results.json")) {
      args = tiny_run_args(dir);
      args.push_back("--resume");
    }
    const Outcome r = run_cli(cli(args), scratch);
    if (r.code == 0) return load_json(dir / "results.json");
    ADD_FAILURE() << what << ": resume exited " << r.code << ": " << r.err;
  }
  return json();
}

}  // namespace

#ifdef MAPWRIGHT_HAVE_RTL
TEST(Faults, RunKilledAnywhereResumesToTheUninterruptedResult) {
  const fs::path base = fresh_path("fault_run");
  fs::create_directories(base);
  const fs::path ref = base / "ref";
  ASSERT_EQ(run_cli(cli(tiny_run_args(ref)), base).code, 0);
  const json want = stable(load_json(ref / "results.json"));
  ASSERT_EQ(want["status"], "complete");

  // Chosen points: in the middle of the 1st (the first results.json), 2nd, 4th and 7th
  // atomic file write and inside the 1st and 3rd SQLite transaction; then random times
  // (seeded) over the run's span.
  std::vector<Child> kills;
  for (const char* k : {"write:1", "write:2", "write:4", "write:7", "sqlite:1", "sqlite:3"})
    kills.push_back({{}, k, -1, -1});
  std::mt19937 rng(20261201);
  for (int i = 0; i < 4; ++i)
    kills.push_back({{}, "", std::uniform_int_distribution<int>(30, 900)(rng), -1});
  for (size_t i = 0; i < kills.size(); ++i) {
    Child c = kills[i];
    const fs::path dir = base / ("k" + std::to_string(i));
    c.args = tiny_run_args(dir);
    const std::string what = c.kill_at.empty()
                                 ? "killed after " + std::to_string(c.kill_after_ms) + " ms"
                                 : "killed at " + c.kill_at;
    const Outcome first = run_cli(c, base);
    if (!c.kill_at.empty()) {
      EXPECT_EQ(first.code, 128 + SIGKILL) << what << ": " << first.err;
    }
    expect_valid_run_folder(dir, what);
    if (first.code != 0 && !fs::exists(dir / "results.json") && fs::exists(dir / ".lock")) {
      // Stopped before its first save, after it took the folder: `--resume --out` alone is
      // refused (no settings to read). Killed before it took the folder (the folder is absent
      // or empty), the folder is a new one: `--resume` there starts a run with the options
      // given (Run.ResumeOnANewFolderStartsTheRun).
      const Outcome r = run_cli(cli(resume_args(dir)), base);
      EXPECT_EQ(r.code, 2) << what;
      EXPECT_NE(r.err.find("start it again with its options"), std::string::npos) << r.err;
    }
    const json got =
        first.code == 0 ? load_json(dir / "results.json") : resume_to_completion(dir, base, what);
    EXPECT_EQ(first_difference(stable(got), want), "") << what;
    EXPECT_EQ(integrity(dir / "results.sqlite"), "ok") << what;
    EXPECT_TRUE(temporaries(dir).empty()) << what << ": " << temporaries(dir).front();
    // The SQLite store holds the finished run once, with every layer.
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open_v2((dir / "results.sqlite").c_str(), &h, SQLITE_OPEN_READONLY, nullptr),
              SQLITE_OK);
    int layers = -1;
    sqlite3_exec(
        h, "SELECT COUNT(*) FROM layers",
        [](void* p, int, char** v, char**) {
          *static_cast<int*>(p) = std::atoi(v[0]);
          return 0;
        },
        &layers, nullptr);
    sqlite3_close(h);
    EXPECT_EQ(layers, 3) << what;
  }
  fs::remove_all(base);
}
#endif

namespace {

/// A copy of tests/flows/data/tiny_study.yaml in `dir` (a test edits it).
fs::path write_tiny_suite(const fs::path& dir) {
  const fs::path f = dir / "tiny_study.yaml";
  fs::copy_file(fs::path(MAPWRIGHT_SOURCE_DIR) / "tests/flows/data/tiny_study.yaml", f,
                fs::copy_options::overwrite_existing);
  return f;
}

std::vector<std::string> study_args(const fs::path& suite, const fs::path& out, bool resume) {
  std::vector<std::string> a = {"study",  "--suite", suite.string(), "--out", out.string(),
                                "--jobs", "2"};
  if (resume) a.push_back("--resume");
  return a;
}

}  // namespace

TEST(Faults, StudyKilledAnywhereResumesToTheUninterruptedResult) {
  const fs::path base = fresh_path("fault_study");
  fs::create_directories(base);
  const fs::path suite = write_tiny_suite(base);
  const fs::path ref = base / "ref";
  const Outcome r0 = run_cli(cli(study_args(suite, ref, false)), base);
  ASSERT_EQ(r0.code, 0) << r0.err;
  // Chosen points: the state file (1st write), the 1st, 4th and 9th trial record (half
  // written), the summary files; then random times.
  std::vector<Child> kills;
  for (const char* k : {"write:1", "trial:1", "trial:4", "trial:9", "write:3"})
    kills.push_back({{}, k, -1, -1});
  std::mt19937 rng(7);
  for (int i = 0; i < 3; ++i)
    kills.push_back({{}, "", std::uniform_int_distribution<int>(20, 400)(rng), -1});
  for (size_t i = 0; i < kills.size(); ++i) {
    Child c = kills[i];
    const fs::path dir = base / ("k" + std::to_string(i));
    c.args = study_args(suite, dir, false);
    const std::string what = c.kill_at.empty()
                                 ? "killed after " + std::to_string(c.kill_after_ms) + " ms"
                                 : "killed at " + c.kill_at;
    const Outcome first = run_cli(c, base);
    if (!c.kill_at.empty()) {
      EXPECT_EQ(first.code, 128 + SIGKILL) << what;
    }
    if (first.code != 0) {
      const Outcome again = run_cli(cli(study_args(suite, dir, true)), base);
      ASSERT_EQ(again.code, 0) << what << ": " << again.err;
    }
    EXPECT_EQ(read_file(dir / "summary.csv"), read_file(ref / "summary.csv")) << what;
    EXPECT_EQ(runs_without_seconds(read_file(dir / "runs.csv")),
              runs_without_seconds(read_file(ref / "runs.csv")))
        << what;
    EXPECT_EQ(first_difference(stable(load_json(dir / "study.json")),
                               stable(load_json(ref / "study.json"))),
              "")
        << what;
    EXPECT_TRUE(temporaries(dir).empty()) << what;
  }
  // A resumed study refuses a changed suite instead of mixing two studies.
  std::ofstream(suite, std::ios::app) << "# edited\n";
  const Outcome changed = run_cli(cli(study_args(suite, base / "k0", true)), base);
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.err.find("fingerprint"), std::string::npos) << changed.err;
  // And a study folder is not silently overwritten.
  const Outcome again = run_cli(cli(study_args(suite, ref, false)), base);
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
  fs::remove_all(base);
}

#ifdef MAPWRIGHT_HAVE_RTL
namespace {

/// A tmpfs of `bytes` mounted at `dir` for the life of the object (needs root: CAP_SYS_ADMIN).
class SmallTmpfs {
 public:
  SmallTmpfs(const fs::path& dir, long long bytes) : dir_(dir) {
    fs::create_directories(dir);
    const std::string opt = "size=" + std::to_string(bytes);
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, opt.c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

/// Fills `fs_dir` (on a tmpfs) with a file so that about `free_bytes` remain.
void leave_free(const fs::path& fs_dir, long long total, long long free_bytes) {
  std::ofstream f(fs_dir / "filler", std::ios::binary);
  const std::string block(4096, 'x');
  for (long long n = 0; n + 4096 <= total - free_bytes; n += 4096) f << block;
}

}  // namespace

TEST(Faults, FullDiskIsAClearErrorAndTheRunResumes) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  const fs::path base = fresh_path("fault_disk");
  fs::create_directories(base);
  const fs::path ref = base / "ref";
  ASSERT_EQ(run_cli(cli(tiny_run_args(ref)), base).code, 0);
  const json want = stable(load_json(ref / "results.json"));
  const long long total = 2 << 20;
  // Free space at the start: none worth a run, part of a run, most of a run.
  for (long long free_bytes : {8 << 10, 96 << 10, 200 << 10}) {
    const std::string what = "with " + std::to_string(free_bytes / 1024) + " KiB free";
    const fs::path mnt = base / ("disk" + std::to_string(free_bytes));
    SmallTmpfs disk(mnt, total);
    if (!disk.mounted() && errno == EPERM)  // root without CAP_SYS_ADMIN (a container)
      GTEST_SKIP() << "cannot mount a tmpfs here (EPERM); FileSizeLimit covers the failure path";
    ASSERT_TRUE(disk.mounted()) << "cannot mount a tmpfs: " << std::strerror(errno);
    leave_free(mnt, total, free_bytes);
    const fs::path dir = mnt / "run";
    const Outcome first = run_cli(cli(tiny_run_args(dir)), base);
    EXPECT_EQ(first.code, 2) << what << ": " << first.err;
    EXPECT_TRUE(first.err.find("No space left on device") != std::string::npos ||
                first.err.find("disk is full") != std::string::npos)
        << what << ": " << first.err;
    EXPECT_NE(first.err.find(dir.string()), std::string::npos) << what << ": " << first.err;
    EXPECT_EQ(first.err.find("internal error"), std::string::npos) << what << ": " << first.err;
    if (fs::exists(dir)) {
      EXPECT_TRUE(temporaries(dir).empty()) << what << ": " << temporaries(dir).front();
      expect_valid_run_folder(dir, what);
    }
    // Space again: the run resumes and ends as if nothing happened.
    fs::remove(mnt / "filler");
    const json got =
        fs::exists(dir / "results.json") ? resume_to_completion(dir, base, what) : json();
    if (fs::exists(dir / "results.json")) {
      EXPECT_EQ(first_difference(stable(got), want), "") << what;
    }
  }
  fs::remove_all(base);
}

TEST(Faults, FileSizeLimitIsAClearErrorAndTheRunResumes) {
  // The same failure without mounting anything: writes beyond RLIMIT_FSIZE fail with EFBIG.
  const fs::path base = fresh_path("fault_fsize");
  fs::create_directories(base);
  const fs::path ref = base / "ref";
  ASSERT_EQ(run_cli(cli(tiny_run_args(ref)), base).code, 0);
  const json want = stable(load_json(ref / "results.json"));
  const fs::path dir = base / "run";
  // 96 KiB (passes from 80 to 128 with the sweep_points table in the schema): the SQLite
  // write-ahead log outgrows it once the run has started (results.json
  // written). SQLite reports a short write as "disk I/O error", without the system's reason.
  Child c{tiny_run_args(dir), "", -1, 96 << 10};
  const Outcome first = run_cli(c, base);
  EXPECT_EQ(first.code, 2) << first.err;
  EXPECT_TRUE(first.err.find("File too large") != std::string::npos ||
              first.err.find("disk I/O error") != std::string::npos)
      << first.err;
  ASSERT_TRUE(fs::exists(dir / "results.json")) << first.err;
  EXPECT_NE(first.err.find("results"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("--resume"), std::string::npos) << first.err;
  EXPECT_TRUE(temporaries(dir).empty());
  expect_valid_run_folder(dir, "file-size limit");
  EXPECT_EQ(first_difference(stable(resume_to_completion(dir, base, "file-size limit")), want), "");
  fs::remove_all(base);
}

TEST(Faults, UnwritableOutputFolderIsAClearErrorInEveryCommand) {
  const fs::path base = fresh_path("fault_ro");
  fs::create_directories(base);
  const fs::path ref = base / "ref";
  ASSERT_EQ(run_cli(cli(tiny_run_args(ref)), base).code, 0);
  // A read-only folder: a read-only tmpfs when root (root ignores permission bits), else mode
  // 0555.
  const fs::path ro = base / "ro";
  fs::create_directories(ro);
  bool mounted = false;
  if (geteuid() == 0) {
    mounted = mount("tmpfs", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") == 0;
    if (!mounted && errno == EPERM)  // root without CAP_SYS_ADMIN (a container)
      GTEST_SKIP() << "root ignores permission bits and cannot mount a read-only tmpfs here";
    ASSERT_TRUE(mounted) << std::strerror(errno);
  } else {
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  }
  const std::string suite = write_tiny_suite(base).string();
  const std::string smoke = std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/regress/smoke.yaml";
  const std::vector<std::vector<std::string>> commands = {
      tiny_run_args(ro / "run"),
      tiny_run_args(ro),
      {"search", "--layer", "conv:K=8,C=8,H=8,W=8,R=3,S=3", "--arch", "small4", "--budget", "20",
       "--out", (ro / "s").string()},
      study_args(suite, ro / "st", false),
      {"space", "--arch", "small4", "--layer", "conv:K=8,C=8,H=8,W=8,R=3,S=3", "--sample", "1",
       "--write-dir", (ro / "sp").string()},
      {"regress", "--suite", smoke, "--filter", "ws-conv3x3", "--junit", (ro / "j.xml").string()},
      {"report", ref.string(), "--out", (ro / "r.html").string()},
      {"compare", ref.string(), ref.string(), "--out", (ro / "c.html").string()},
  };
  for (const auto& args : commands) {
    std::string what;
    for (const auto& a : args) what += a + " ";
    const Outcome r = run_cli(cli(args), base);
    EXPECT_EQ(r.code, 2) << what << ": " << r.err;
    EXPECT_NE(r.err.find(ro.string()), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << what << ": " << r.err;
  }
  if (mounted) umount2(ro.c_str(), MNT_DETACH);
  fs::permissions(ro, fs::perms::owner_all);
  fs::remove_all(base);
}

TEST(Faults, HandEditedResultsAreRefusedNamingTheKey) {
  const fs::path base = fresh_path("fault_edit");
  fs::create_directories(base);
  const fs::path ref = base / "ref";
  ASSERT_EQ(run_cli(cli(tiny_run_args(ref)), base).code, 0);
  const json good = load_json(ref / "results.json");
  struct Edit {
    const char* key;  ///< What the message must name.
    json (*apply)(json);
  };
  const Edit edits[] = {
      {"'rtl' = 'yes'",
       [](json j) {
         j["rtl"] = "yes";
         return j;
       }},
      {"'layers' = '5'",
       [](json j) {
         j["layers"] = 5;
         return j;
       }},
      {"'layers[1].status'",
       [](json j) {
         j["layers"][1]["status"] = "finished";
         return j;
       }},
      {"'layers[0].candidates[0].verification.passed'",
       [](json j) {
         j["layers"][0]["candidates"][0]["verification"]["passed"] = 1;
         return j;
       }},
      {"'top_k' = '0'",
       [](json j) {
         j["top_k"] = 0;
         return j;
       }},
      {"'seed'",
       [](json j) {
         j.erase("seed");
         return j;
       }},
  };
  for (const auto& e : edits) {
    const fs::path dir = base / "edited";
    fs::remove_all(dir);
    fs::copy(ref, dir, fs::copy_options::recursive);
    std::ofstream(dir / "results.json") << e.apply(good).dump(2);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"report", dir.string(), "--out", (base / "r.html").string()}, resume_args(dir)}) {
      const Outcome r = run_cli(cli(args), base);
      EXPECT_EQ(r.code, 2) << args[0] << " " << e.key << ": " << r.err;
      EXPECT_NE(r.err.find(e.key), std::string::npos) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find("results.json"), std::string::npos) << r.err;
    }
  }
  fs::remove_all(base);
}
#endif
