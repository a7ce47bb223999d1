// The results.json of the tiny run, byte for byte, against tests/flows/data/tiny_run.golden.json
// (timestamps, folders and wall/simulation times aside): a refactoring of the run pipeline must
// not change what a run records. After an intended change of the record, rewrite the golden
// with MAPWRIGHT_UPDATE_GOLDEN=1 build/tests/flows/flows_tests --gtest_filter=GoldenRun.*
// and review its diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "files.hpp"
#include "mapwright/flows/run.hpp"
#include "tiny_run.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Replaces every occurrence of `from` in `s` by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); !from.empty() && at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// `j` with what differs between two runs of the same work blanked: timestamps, the run id
/// (a timestamp), wall and simulation times, the worker count; folders become <out> and <src>.
json normalized(const json& j, const std::string& out, const std::string& src) {
  if (j.is_object()) {
    json o = json::object();
    for (const auto& [k, v] : j.items()) {
      const bool timing = k == "created" || k == "updated" || k == "run_id" || k == "jobs" ||
                          k == "sim_seconds" || k == "seconds" || k == "wall_seconds_last_session";
      o[k] = timing ? json("<varies>") : normalized(v, out, src);
    }
    return o;
  }
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(normalized(v, out, src));
    return a;
  }
  if (j.is_string()) {
    std::string t = replace_all(replace_all(j.get<std::string>(), out, "<out>"), src, "<src>");
    // The built-in configs are found relative to the working directory when it has them.
    if (t.rfind("configs/", 0) == 0) t = "<src>/" + t;
    return t;
  }
  return j;
}

}  // namespace

#ifdef MAPWRIGHT_HAVE_RTL
TEST(GoldenRun, TinyRunRecordsExactlyTheGolden) {
  const fs::path dir = mapwright::test_files::fresh_path("golden_run");
  std::ostringstream log;
  ASSERT_EQ(mapwright::flows::cmd_run(mapwright::test_files::tiny_run(dir), log), 0) << log.str();
  const std::string got =
      normalized(mapwright::test_files::load(dir), dir.string(), MAPWRIGHT_SOURCE_DIR).dump(2) +
      "\n";
  const fs::path golden = fs::path(MAPWRIGHT_SOURCE_DIR) / "tests/flows/data/tiny_run.golden.json";
  const char* update = std::getenv("MAPWRIGHT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden) << got;
    GTEST_SKIP() << "golden rewritten: " << golden;
  }
  const std::string want = mapwright::test_files::read_file(golden);
  ASSERT_FALSE(want.empty()) << "missing " << golden;
  if (got != want) {
    // The first differing line, for a readable failure.
    std::istringstream a(got), b(want);
    std::string la, lb;
    int line = 0;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
    ADD_FAILURE() << "results.json differs from the golden at line " << line + 1
                  << ":\n  got:  " << la << "\n  want: " << lb;
  }
  fs::remove_all(dir);
}
#endif
