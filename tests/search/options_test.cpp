// Options: the defaults validate, configs/search/default.yaml equals them, and every rejection
// path (malformed YAML, unknown key, wrong type, out of range, missing file) names the file,
// the key and the value.
#include "mapwright/search/options.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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

TEST(SearchOptions, DefaultsAreValid) {
  EXPECT_NO_THROW(validate_options(testing::kDefaults));
}

TEST(SearchOptions, ShippedDefaultFileEqualsBuiltInDefaults) {
  const SearchOptions o =
      load_search_options(std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/search/default.yaml");
  EXPECT_EQ(to_json(o), to_json(testing::kDefaults));
}

TEST(SearchOptions, EveryShippedOptionsFileIsValid) {
  // configs/search/tuned.yaml (written by `mapwright tune`) and the ablation files.
  const std::filesystem::path dir = std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/search";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_search_options(e.path().string())) << e.path();
    ++files;
  }
  EXPECT_GE(files, 8);
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
  EXPECT_NE(msg.find("broken.yaml: key '(syntax)'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
}

TEST(SearchOptionsBad, UnknownTopLevelKey) {
  const std::string msg = error_of([] { parse_search_options("gaa: {}\n", "o.yaml"); });
  EXPECT_NE(msg.find("o.yaml: key 'gaa' = '{}': unknown key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("random, ga, sa, ppo, ppo_box, marl, bo"), std::string::npos) << msg;
}

TEST(SearchOptionsBad, UnknownNestedKeyNamesDottedPathAndValue) {
  const std::string msg =
      error_of([] { parse_search_options("marl:\n  learner:\n    lr_rate: 0.1\n", "o.yaml"); });
  EXPECT_NE(msg.find("o.yaml: key 'marl.learner.lr_rate' = '0.1': unknown key"), std::string::npos)
      << msg;
}

TEST(SearchOptionsBad, WrongTypes) {
  EXPECT_EQ(error_of([] { parse_search_options("ga: {population: many}\n", "o.yaml"); }),
            "o.yaml: key 'ga.population' = 'many': expected an integer");
  EXPECT_EQ(error_of([] { parse_search_options("ga: {population: 2.5}\n", "o.yaml"); }),
            "o.yaml: key 'ga.population' = '2.5': expected an integer");
  EXPECT_EQ(error_of([] { parse_search_options("sa: {cooling: [1, 2]}\n", "o.yaml"); }),
            "o.yaml: key 'sa.cooling' = '[1, 2]': expected a number, got a list");
  EXPECT_EQ(error_of([] { parse_search_options("ppo: {autoregressive: maybe}\n", "o.yaml"); }),
            "o.yaml: key 'ppo.autoregressive' = 'maybe': expected true or false");
  EXPECT_EQ(error_of([] { parse_search_options("ppo: 3\n", "o.yaml"); }),
            "o.yaml: key 'ppo' = '3': expected a mapping");
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
  EXPECT_EQ(error_of([] { parse_search_options("marl: {learner: {algorithm: a2c}}\n", "o.yaml"); }),
            "o.yaml: key 'marl.learner.algorithm' = 'a2c': expected one of: ppo, reinforce");
  EXPECT_EQ(error_of([] { parse_search_options("ppo_box: {reward: exp}\n", "o.yaml"); }),
            "o.yaml: key 'ppo_box.reward' = 'exp': expected one of: log, inverse");
  EXPECT_EQ(
      error_of([] { parse_search_options("marl: {learner: {inverse_scale: 0}}\n", "o.yaml"); }),
      "o.yaml: key 'marl.learner.inverse_scale' = '0': expected a number > 0");
  EXPECT_EQ(error_of([] {
              parse_search_options("ppo: {reward: inverse, invalid_reward: x}\n", "o.yaml");
            }).find("ppo.invalid_reward"),
            0u + std::string("o.yaml: key '").size());
}

TEST(SearchOptionsBad, StrictLayerDefectClasses) {
  auto err = [](const std::string& text) {
    return error_of([&] { parse_search_options(text, "o.yaml"); });
  };
  EXPECT_EQ(err("ga: {population: 10}\nga: {population: 12}\n"),
            "o.yaml: key 'ga' = '{population: 12}': duplicate key (given more than once in the "
            "same map)");
  EXPECT_EQ(err("ga: {population: ~}\n"),
            "o.yaml: key 'ga.population' = 'null': expected an integer, got null");
  EXPECT_EQ(err("marl: {mode: {a: 1}}\n"),
            "o.yaml: key 'marl.mode' = '{a: 1}': expected a scalar value, got a map");
  EXPECT_EQ(err("sa: {cooling: !!float 0.5}\n"),
            "o.yaml: key 'sa.cooling' = 'tag:yaml.org,2002:float 0.5': YAML tags are not "
            "supported (remove 'tag:yaml.org,2002:float')");
  EXPECT_EQ(err("ga: {population: 4294967300}\n"),
            "o.yaml: key 'ga.population' = '4294967300': expected an integer <= 1000000");
  EXPECT_EQ(err("ga: {population: 99999999999999999999}\n"),
            "o.yaml: key 'ga.population' = '99999999999999999999': must be between "
            "-9223372036854775808 and 9223372036854775807");
  EXPECT_EQ(err("ppo: {lr: inf}\n"), "o.yaml: key 'ppo.lr' = 'inf': expected a finite number");
  EXPECT_EQ(err("ppo: {lr: nan}\n"), "o.yaml: key 'ppo.lr' = 'nan': expected a finite number");
  EXPECT_EQ(err("ppo: {lr: 1e30}\n"), "o.yaml: key 'ppo.lr' = '1e+30': expected a number <= 1e+09");
  EXPECT_EQ(
      err("\"ga \": {}\n"),
      "o.yaml: key 'ga ' = '{}': unknown key (known: random, ga, sa, ppo, ppo_box, marl, bo); "
      "did you mean 'ga' without the spaces?");
  EXPECT_EQ(err("marl: {mode: \"per\\x07param\\n\"}\n"),
            "o.yaml: key 'marl.mode' = 'per\\x07param\\n': expected one of: correlation, "
            "per-param, random, single");
  EXPECT_EQ(err("? [ga]\n: 1\n"),
            "o.yaml: key '[ga]' = '1': a key must be plain text, not a map or a list");
}

TEST(SearchOptions, ReadsThePpoBoxSection) {
  const SearchOptions o = parse_search_options(
      "ppo_box: {lr: 2.0e-5, minibatches: 8, batch: 64, normalize_advantage: false}\n", "x.yaml");
  EXPECT_DOUBLE_EQ(o.ppo_box.lr, 2e-5);
  EXPECT_EQ(o.ppo_box.minibatches, 8);
  EXPECT_EQ(o.ppo_box.batch, 64);
  EXPECT_FALSE(o.ppo_box.normalize_advantage);
  EXPECT_EQ(o.ppo_box.layers, 3);  // Untouched keys keep their defaults.
  EXPECT_EQ(to_json(o)["ppo_box"]["minibatches"], 8);
}

TEST(SearchOptionsBad, PpoBoxRejections) {
  EXPECT_EQ(error_of([] {
              parse_search_options("ppo_box: {std: 1}\n", "o.yaml");
            }).rfind("o.yaml: key 'ppo_box.std' = '1': unknown key", 0),
            0u);
  EXPECT_EQ(error_of([] { parse_search_options("ppo_box: {minibatches: 40}\n", "o.yaml"); }),
            "o.yaml: key 'ppo_box.minibatches' = '40': expected at most ppo_box.batch (19)");
  EXPECT_EQ(error_of([] { parse_search_options("ppo_box: {init_std: 0.001}\n", "o.yaml"); }),
            "o.yaml: key 'ppo_box.init_std' = '0.001': expected more than ppo_box.min_std (0.001)");
  EXPECT_EQ(error_of([] { parse_search_options("ppo_box: {lr: 0}\n", "o.yaml"); }),
            "o.yaml: key 'ppo_box.lr' = '0': expected a number > 0");
}

TEST(SearchOptions, ReadsTheBoSection) {
  const SearchOptions o = parse_search_options(
      "bo: {batch: 4, ordinal_continuous: false, pure_random_search_probability: 1}\n", "x.yaml");
  EXPECT_EQ(o.bo.batch, 4);
  EXPECT_FALSE(o.bo.ordinal_continuous);
  EXPECT_DOUBLE_EQ(o.bo.pure_random_search_probability, 1.0);
  // Untouched keys keep their defaults.
  EXPECT_DOUBLE_EQ(o.bo.relative_noise_magnitude, BoOptions{}.relative_noise_magnitude);
  EXPECT_EQ(to_json(o)["bo"]["batch"], 4);
}

TEST(SearchOptionsBad, BoRejections) {
  auto err = [](const std::string& text) {
    return error_of([&] { parse_search_options(text, "o.yaml"); });
  };
  EXPECT_EQ(err("bo: {seed: 1}\n").rfind("o.yaml: key 'bo.seed' = '1': unknown key", 0), 0u);
  EXPECT_EQ(err("bo: {batch: 0}\n"), "o.yaml: key 'bo.batch' = '0': expected an integer >= 1");
  EXPECT_EQ(err("bo: {batch: 1001}\n"),
            "o.yaml: key 'bo.batch' = '1001': expected an integer <= 1000");
  EXPECT_EQ(err("bo: {batch: 2.5}\n"), "o.yaml: key 'bo.batch' = '2.5': expected an integer");
  EXPECT_EQ(err("bo: {invalid_penalty: 0}\n"),
            "o.yaml: key 'bo.invalid_penalty' = '0': expected a number > 0");
  EXPECT_EQ(err("bo: {solver_epsilon: -0.1}\n"),
            "o.yaml: key 'bo.solver_epsilon' = '-0.1': expected a number >= 0");
  EXPECT_EQ(err("bo: {relative_noise_magnitude: 0}\n"),
            "o.yaml: key 'bo.relative_noise_magnitude' = '0': expected a number > 0");
  EXPECT_EQ(err("bo: {pure_random_search_probability: 1.5}\n"),
            "o.yaml: key 'bo.pure_random_search_probability' = '1.5': expected a number in [0, 1]");
  EXPECT_EQ(err("bo: {ordinal_continuous: sometimes}\n"),
            "o.yaml: key 'bo.ordinal_continuous' = 'sometimes': expected true or false");
}

TEST(SearchOptionsBad, BoOptionsInCodeAreCheckedByTheFactory) {
  SearchOptions o;
  o.bo.batch = -3;
  EXPECT_EQ(error_of([&] { make_searcher("bo", testing::separable_problem(), o, 1); }),
            "options: key 'bo.batch' = '-3': expected an integer >= 1");
}

TEST(SearchOptionsBad, MissingFile) {
  const std::string msg = error_of([] { load_search_options("no/such/search.yaml"); });
  EXPECT_EQ(msg, "no/such/search.yaml: cannot open search options file");
}

}  // namespace
}  // namespace mapwright::search
