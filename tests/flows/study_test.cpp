// Study suites: refusals name the file, key and value.
#include "mapwright/flows/study.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "files.hpp"
#include "mapwright/core/error.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

TEST(StudySuite, TargetsWithoutFivePercentAreRefused_bad) {
  const fs::path dir = mapwright::test_files::fresh_path("study_bad");
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "name: s\nsearchers: [ga]\nseeds: [1]\nbudget: 10\n"
                                   "targets_pct: [10]\nlayers: ['gemm:M=8,N=8,K=8']\n";
  try {
    flows::load_study_suite((dir / "s.yaml").string());
    FAIL() << "accepted";
  } catch (const core::SpecError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("s.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find("targets_pct"), std::string::npos) << m;
    EXPECT_NE(m.find("must include 5"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}
