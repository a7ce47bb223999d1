// The torch module is loaded when the first learning searcher is built, not before: a process
// that runs no learning searcher never maps LibTorch (search/src/torch_module.hpp). Its own
// executable, so that no earlier test in the process has loaded the module.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "mapwright/search/options.hpp"
#include "mapwright/search/searcher.hpp"

namespace {

using mapwright::search::make_searcher;
using mapwright::search::Problem;
using mapwright::search::SearchOptions;

/// True when a mapped file of this process has `name` in its path.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

TEST(TorchModule, LoadedByTheFirstLearningSearcherOnly) {
  Problem problem;
  problem.params = {{"a", 4, true}, {"b", 3, false}};
  SearchOptions options;
  EXPECT_FALSE(mapped("libtorch_cpu")) << "LibTorch is loaded before any searcher";
  auto ga = make_searcher("ga", problem, options, 1);
  ASSERT_FALSE(ga->ask(4).empty());
  EXPECT_FALSE(mapped("libmapwright_torch")) << "a ga searcher loaded the torch module";
  EXPECT_FALSE(mapped("libtorch_cpu"));
  auto ppo = make_searcher("ppo", problem, options, 1);  // Builds its learner.
  ASSERT_FALSE(ppo->ask(4).empty());
  EXPECT_TRUE(mapped("libmapwright_torch"));
  EXPECT_TRUE(mapped("libtorch_cpu"));
  auto box = make_searcher("ppo-box", problem, options, 1);
  EXPECT_EQ(box->name(), "ppo-box");
}

}  // namespace
