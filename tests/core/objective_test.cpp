// Tests of the objective (core/objective.hpp): the names and weighted mixes the parser accepts,
// the cost as a product of powers (for metrics and for a (cycles, energy) pair alike), and every
// rejection, naming where, the key and the value.
#include "mapwright/core/objective.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "mapwright/support/error.hpp"

namespace mc = mapwright::core;

namespace {

/// The SpecError `parse_objective(text, where)` throws (fails the test when none).
mc::SpecError refusal(const std::string& text, const std::string& where = "--objective") {
  try {
    mc::parse_objective(text, where);
  } catch (const mc::SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return mc::SpecError(where, "", text, "");
}

}  // namespace

TEST(Objective, NamesSetTheExponents) {
  for (const auto& [text, latency, energy] : {std::tuple<std::string, double, double>{"edp", 1, 1},
                                              {"latency", 1, 0},
                                              {"cycles", 1, 0},
                                              {"energy", 0, 1},
                                              {"mix:latency=2,energy=0.5", 2, 0.5},
                                              {"mix:energy=3", 0, 3},
                                              {"mix:latency=16", 16, 0}}) {
    const mc::Objective o = mc::parse_objective(text);
    EXPECT_EQ(o.latency, latency) << text;
    EXPECT_EQ(o.energy, energy) << text;
    EXPECT_EQ(o.name, text);
  }
}

TEST(Objective, CostIsAProductOfPowers) {
  mc::Objective o;
  o.latency = 2;
  o.energy = 0.5;
  EXPECT_DOUBLE_EQ(o.cost(10.0, 16.0), 100 * 4);
  mc::Metrics m;
  m.cycles = 10;
  m.energy_pj = 16;
  EXPECT_EQ(o.cost(m), o.cost(10.0, 16.0));
  EXPECT_DOUBLE_EQ(mc::Objective{}.cost(m), 160);  // EDP by default
}

TEST(Objective, Refusals_bad) {
  const mc::SpecError unknown = refusal("speed", "suite.yaml: objective");
  EXPECT_EQ(unknown.where(), "suite.yaml: objective");
  EXPECT_EQ(unknown.key(), "objective");
  EXPECT_EQ(unknown.value(), "speed");
  EXPECT_EQ(unknown.why(),
            "unknown objective (known: edp, latency, energy, mix:latency=W,energy=W)");
  EXPECT_EQ(refusal("mix:latency").why(), "expected NAME=WEIGHT");
  for (const std::string w : {"", "abc", "-1", "17", "nan", "1e400", "2x"}) {
    const mc::SpecError e = refusal("mix:latency=" + w);
    EXPECT_EQ(e.where(), "--objective");
    EXPECT_EQ(e.key(), "latency");
    EXPECT_EQ(e.value(), w);
    EXPECT_EQ(e.why(), "weight must be a number between 0 and 16");
  }
  const mc::SpecError term = refusal("mix:speed=1");
  EXPECT_EQ(term.key(), "speed");
  EXPECT_EQ(term.why(), "unknown objective term (known: latency, energy)");
  const mc::SpecError zero = refusal("mix:latency=0,energy=0");
  EXPECT_EQ(zero.value(), "mix:latency=0,energy=0");
  EXPECT_EQ(zero.why(), "at least one weight must be positive");
}
