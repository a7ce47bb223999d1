// The RTL model cache on stand-in source trees: a CMake project of one C file named like the
// worker, so a "model build" takes about a second. What is tested: the key follows the
// parameters and the sources, a build happens once and is then found, two processes wanting
// the same model build it once (the lock), a failing build is a typed failure naming its log,
// and parameters the RTL refuses are refused before anything is built.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/rtlpool/model_cache.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using rtlpool::ModelParams;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("mw_model_cache_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A stand-in source tree: rtl/mw_accel.sv (the cache checks it is there) and a CMake project
/// that counts its configurations in configured.txt, waits `sleep_s`, and builds a worker-named
/// executable, or fails with `fail` as its message.
fs::path stand_in_tree(const fs::path& root, int sleep_s, const std::string& fail = "") {
  write(root / "rtl" / "mw_accel.sv", "module mw_accel; endmodule\n");
  write(root / "main.c", "int main(void) { return 0; }\n");
  std::string cm =
      "cmake_minimum_required(VERSION 3.22)\nproject(stand_in C)\n"
      "file(APPEND ${CMAKE_CURRENT_SOURCE_DIR}/configured.txt \"${MAPWRIGHT_RTL_MODEL}\\n\")\n"
      "execute_process(COMMAND ${CMAKE_COMMAND} -E sleep " +
      std::to_string(sleep_s) + ")\n";
  if (!fail.empty()) cm += "message(FATAL_ERROR \"" + fail + "\")\n";
  cm += "add_executable(mapwright-rtl-worker main.c)\n";
  write(root / "CMakeLists.txt", cm);
  return root;
}

ModelParams params(long long rows, long long cols) {
  return ModelParams{rows, cols, 16384, 16384, 2048, 8};
}

rtlpool::ModelCacheOptions options(const fs::path& src, const fs::path& cache) {
  rtlpool::ModelCacheOptions o;
  o.source_dir = src.string();
  o.cache_dir = cache.string();
  o.jobs = 1;
  return o;
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST(ModelCache, ParametersTheRtlRefusesAreNamed) {
  EXPECT_EQ(rtlpool::check_model_params(params(2, 64)), "");
  EXPECT_NE(rtlpool::check_model_params(params(1, 4)).find("array rows 1"), std::string::npos);
  EXPECT_NE(rtlpool::check_model_params(params(4, 65)).find("array cols 65"), std::string::npos);
  ModelParams p = params(4, 4);
  p.beat_bytes = 6;
  EXPECT_NE(rtlpool::check_model_params(p).find("multiple of 4"), std::string::npos);
  p = params(4, 4);
  p.input_bytes = 2 << 20;
  EXPECT_NE(rtlpool::check_model_params(p).find("input buffer"), std::string::npos);
  p = params(4, 4);
  p.accum_words = 8;
  EXPECT_NE(rtlpool::check_model_params(p).find("accumulator 8 words"), std::string::npos);
  // Refused before any build: no source tree or cache folder is touched.
  const fs::path cache = fresh("refused") / "cache";
  p.accum_words = 8;
  const auto m = rtlpool::find_or_build_model(p, "prebuilt", options("/nonexistent", cache));
  EXPECT_FALSE(m.ok());
  EXPECT_NE(m.failure.find("no RTL model can be built"), std::string::npos) << m.failure;
  EXPECT_FALSE(fs::exists(cache));
}

TEST(ModelCache, KeyFollowsParametersAndSources) {
  const fs::path src = stand_in_tree(fresh("key") / "src", 0);
  std::string why;
  const std::string k1 = rtlpool::model_key(params(2, 2), src.string(), why);
  ASSERT_EQ(k1.size(), 64u) << why;
  EXPECT_EQ(rtlpool::model_key(params(2, 2), src.string(), why), k1);
  EXPECT_NE(rtlpool::model_key(params(2, 4), src.string(), why), k1);
  write(src / "rtl" / "mw_accel.sv", "module mw_accel; /* changed */ endmodule\n");
  EXPECT_NE(rtlpool::model_key(params(2, 2), src.string(), why), k1);
  EXPECT_EQ(rtlpool::model_key(params(2, 2), "/nonexistent", why), "");
  EXPECT_NE(why.find("MAPWRIGHT_SOURCE_DIR"), std::string::npos) << why;
}

TEST(ModelCache, BuildsOnceThenFindsIt) {
  const fs::path root = fresh("once");
  const fs::path src = stand_in_tree(root / "src", 0);
  const auto o = options(src, root / "cache");
  auto look = o;
  look.build = false;
  const auto before = rtlpool::find_or_build_model(params(2, 2), "prebuilt", look);
  EXPECT_FALSE(before.ok());
  EXPECT_NE(before.failure.find("mapwright archs --build"), std::string::npos) << before.failure;

  const auto m = rtlpool::find_or_build_model(params(2, 2), "prebuilt", o);
  ASSERT_TRUE(m.ok()) << m.failure;
  EXPECT_TRUE(m.built);
  EXPECT_FALSE(m.prebuilt);
  EXPECT_EQ(fs::path(m.exe).filename(), "mapwright-rtl-worker");
  EXPECT_EQ(access(m.exe.c_str(), X_OK), 0);
  EXPECT_TRUE(fs::exists(fs::path(m.dir) / "model.json"));
  EXPECT_TRUE(fs::exists(fs::path(m.dir) / "build.log"));
  EXPECT_FALSE(fs::exists(fs::path(m.dir) / "build")) << "the build folder is removed";
  // The parameters reach the build as MAPWRIGHT_RTL_MODEL.
  EXPECT_EQ(read(src / "configured.txt"), "2;2;16384;16384;2048;8\n");

  const auto again = rtlpool::find_or_build_model(params(2, 2), "prebuilt", o);
  ASSERT_TRUE(again.ok()) << again.failure;
  EXPECT_FALSE(again.built);
  EXPECT_EQ(again.exe, m.exe);
  EXPECT_EQ(lines(read(src / "configured.txt")), 1u) << "built once";
  fs::remove_all(root);
}

TEST(ModelCache, TwoProcessesWantingTheSameModelBuildItOnce) {
  const fs::path root = fresh("lock");
  const fs::path src = stand_in_tree(root / "src", 2);  // slow enough for the two to overlap
  const auto o = options(src, root / "cache");
  pid_t kids[2];
  for (pid_t& k : kids) {
    k = fork();
    ASSERT_GE(k, 0);
    if (k == 0) {
      const auto m = rtlpool::find_or_build_model(params(2, 2), "prebuilt", o);
      _exit(m.ok() ? 0 : 1);
    }
  }
  for (pid_t k : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(k, &status, 0), k);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(lines(read(src / "configured.txt")), 1u) << "one build for two processes";
  fs::remove_all(root);
}

TEST(ModelCache, AFailedBuildIsATypedFailureNamingItsLog) {
  const fs::path root = fresh("fail");
  const fs::path src = stand_in_tree(root / "src", 0, "stand-in build failure");
  const auto m =
      rtlpool::find_or_build_model(params(2, 2), "prebuilt", options(src, root / "cache"));
  EXPECT_FALSE(m.ok());
  EXPECT_NE(m.failure.find("building the RTL model for 2x2"), std::string::npos) << m.failure;
  EXPECT_NE(m.failure.find("stand-in build failure"), std::string::npos) << m.failure;
  EXPECT_NE(m.failure.find("build.log"), std::string::npos) << m.failure;
  EXPECT_FALSE(fs::exists(fs::path(m.dir) / "mapwright-rtl-worker"));
  fs::remove_all(root);
}

#ifdef MAPWRIGHT_HAVE_RTL
TEST(ModelCache, ACompiledInModelIsUsedAsItIs) {
  const core::Arch small4 = core::load_arch("small4");
  const auto m = rtlpool::find_or_build_model(rtlpool::model_params(small4), "the-prebuilt-worker",
                                              options("/nonexistent", "/nonexistent"));
  ASSERT_TRUE(m.ok()) << m.failure;
  EXPECT_TRUE(m.prebuilt);
  EXPECT_EQ(m.exe, "the-prebuilt-worker");
  EXPECT_EQ(m.name, "small4");
}
#endif
