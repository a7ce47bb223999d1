// The outputs of a small study (tests/flows/data/tiny_study.yaml), byte for byte against
// tests/flows/data/tiny_study.golden/ (summary.csv, runs.csv without its wall-time column,
// study.json without times and folders): a refactoring of the study flow must not change what
// it reports. After an intended change, rewrite the goldens with
// MAPWRIGHT_UPDATE_GOLDEN=1 build/tests/flows/flows_tests --gtest_filter=GoldenStudy.*
// and review their diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "files.hpp"
#include "mapwright/flows/study.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// study.json without what differs between two runs of the same study.
json stable(const json& j) {
  if (j.is_object()) {
    json o = json::object();
    for (const auto& [k, v] : j.items()) {
      const bool varies = k == "threads" || k == "suite_file" || k == "options_file" ||
                          k == "runs_from_earlier_sessions" ||
                          (k.size() >= 7 && k.compare(k.size() - 7, 7, "seconds") == 0);
      if (!varies) o[k] = stable(v);
    }
    return o;
  }
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(stable(v));
    return a;
  }
  return j;
}

}  // namespace

TEST(GoldenStudy, TinyStudyReportsExactlyTheGolden) {
  const fs::path dir = mapwright::test_files::fresh_path("golden_study");
  mapwright::flows::StudyOptions o;
  o.suite = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_study.yaml";
  o.out_dir = dir.string();
  o.jobs = 2;
  std::ostringstream log;
  ASSERT_EQ(mapwright::flows::cmd_study(o, log), 0) << log.str();
  const std::pair<std::string, std::string> outputs[] = {
      {"summary.csv", mapwright::test_files::read_file(dir / "summary.csv")},
      {"runs.csv", mapwright::test_files::runs_without_seconds(
                       mapwright::test_files::read_file(dir / "runs.csv"))},
      {"study.json",
       stable(json::parse(mapwright::test_files::read_file(dir / "study.json"))).dump(2) + "\n"}};
  const fs::path golden = fs::path(MAPWRIGHT_SOURCE_DIR) / "tests/flows/data/tiny_study.golden";
  const char* update = std::getenv("MAPWRIGHT_UPDATE_GOLDEN");
  for (const auto& [name, got] : outputs) {
    if (update && std::string(update) == "1") {
      fs::create_directories(golden);
      std::ofstream(golden / name) << got;
      continue;
    }
    const std::string want = mapwright::test_files::read_file(golden / name);
    ASSERT_FALSE(want.empty()) << "missing " << golden / name;
    EXPECT_EQ(got, want) << name << " differs from the golden";
  }
  fs::remove_all(dir);
}
