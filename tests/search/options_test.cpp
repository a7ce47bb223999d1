// Options: the defaults validate, configs/search/default.yaml equals them, and every rejection
// path (malformed YAML, unknown key, wrong type, out of range, missing file) names the file,
// the key and the value.
#include "mapwright/search/options.hpp"

#include <gtest/gtest.h>

#include <string>

#include "problems.hpp"

namespace mapwright::search {
namespace {

/// Runs f, expects std::invalid_argument and returns its message.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument thrown";
  return "";
}

TEST(SearchOptions, DefaultsAreValid) { EXPECT_NO_THROW(validate_options(testing::kDefaults)); }

TEST(SearchOptions, ShippedDefaultFileEqualsBuiltInDefaults) {
  const SearchOptions o =
      load_search_options(std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/search/default.yaml");
  EXPECT_EQ(to_json(o), to_json(testing::kDefaults));
}

TEST(SearchOptions, EmptyTextGivesDefaults) {
  EXPECT_EQ(to_json(parse_search_options("", "empty.yaml")), to_json(testing::kDefaults));
}

TEST(SearchOptions, ReadsNestedValues) {
  const SearchOptions o = parse_search_options(
      "ga: {population: 10, elitism: 1}\n"
      "marl:\n  mode: per-param\n  learner: {algorithm: reinforce, lr: 0.5}\n"
      "  clustering: {agents: 3, linkage: single}\n",
      "x.yaml");
  EXPECT_EQ(o.ga.population, 10);
  EXPECT_EQ(o.ga.elitism, 1);
  EXPECT_EQ(o.marl.mode, "per-param");
  EXPECT_EQ(o.marl.learner.algorithm, "reinforce");
  EXPECT_DOUBLE_EQ(o.marl.learner.lr, 0.5);
  EXPECT_TRUE(o.marl.learner.autoregressive);  // Untouched keys keep their defaults.
  EXPECT_EQ(o.marl.clustering.agents, 3);
  EXPECT_EQ(o.marl.clustering.linkage, "single");
}

TEST(SearchOptionsBad, MalformedYamlNamesTheFile) {
  const std::string msg =
      error_of([] { parse_search_options("ga: [population: 3\n", "broken.yaml"); });
  EXPECT_NE(msg.find("broken.yaml: malformed YAML"), std::string::npos) << msg;
}

TEST(SearchOptionsBad, UnknownTopLevelKey) {
  const std::string msg = error_of([] { parse_search_options("gaa: {}\n", "o.yaml"); });
  EXPECT_NE(msg.find("o.yaml: unknown key 'gaa'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("random, ga, sa, ppo, marl"), std::string::npos) << msg;
}

TEST(SearchOptionsBad, UnknownNestedKeyNamesDottedPathAndValue) {
  const std::string msg = error_of(
      [] { parse_search_options("marl:\n  learner:\n    lr_rate: 0.1\n", "o.yaml"); });
  EXPECT_NE(msg.find("o.yaml: unknown key 'marl.learner.lr_rate' = '0.1'"), std::string::npos)
      << msg;
}

TEST(SearchOptionsBad, WrongTypes) {
  EXPECT_EQ(error_of([] { parse_search_options("ga: {population: many}\n", "o.yaml"); }),
            "o.yaml: key 'ga.population' = 'many': expected an integer");
  EXPECT_EQ(error_of([] { parse_search_options("ga: {population: 2.5}\n", "o.yaml"); }),
            "o.yaml: key 'ga.population' = '2.5': expected an integer");
  EXPECT_EQ(error_of([] { parse_search_options("sa: {cooling: [1, 2]}\n", "o.yaml"); }),
            "o.yaml: key 'sa.cooling' = '[1, 2]': expected a number");
  EXPECT_EQ(error_of([] { parse_search_options("ppo: {autoregressive: maybe}\n", "o.yaml"); }),
            "o.yaml: key 'ppo.autoregressive' = 'maybe': expected true or false");
  EXPECT_EQ(error_of([] { parse_search_options("ppo: 3\n", "o.yaml"); }),
            "o.yaml: key 'ppo' = '3': expected a map");
}

TEST(SearchOptionsBad, OutOfRangeAndBadEnumerations) {
  EXPECT_EQ(error_of([] { parse_search_options("ga: {mutation_prob: 1.5}\n", "o.yaml"); }),
            "o.yaml: key 'ga.mutation_prob' = '1.5': expected a number in [0, 1]");
  EXPECT_EQ(error_of([] { parse_search_options("ga: {population: 4, elitism: 4}\n", "o.yaml"); }),
            "o.yaml: key 'ga.elitism' = '4': expected less than ga.population (4)");
  EXPECT_EQ(error_of([] { parse_search_options("ppo: {lr: 0}\n", "o.yaml"); }),
            "o.yaml: key 'ppo.lr' = '0': expected a number > 0");
  EXPECT_EQ(error_of([] { parse_search_options("marl: {mode: clusters}\n", "o.yaml"); }),
            "o.yaml: key 'marl.mode' = 'clusters': expected one of: correlation, per-param, "
            "random, single");
  EXPECT_EQ(
      error_of([] { parse_search_options("marl: {learner: {algorithm: a2c}}\n", "o.yaml"); }),
      "o.yaml: key 'marl.learner.algorithm' = 'a2c': expected one of: ppo, reinforce");
}

TEST(SearchOptionsBad, MissingFile) {
  const std::string msg = error_of([] { load_search_options("no/such/search.yaml"); });
  EXPECT_EQ(msg, "no/such/search.yaml: cannot open search options file");
}

}  // namespace
}  // namespace mapwright::search
