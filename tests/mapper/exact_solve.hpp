#pragma once
// The exact mapper as the mapper tests call it: no gap left, two threads.
#include <string>

#include "mapwright/core/objective.hpp"
#include "mapwright/mapper/mapper.hpp"

namespace mapwright::mapper_test {

/// Solves `l` on `a` to a zero gap with two threads, for `objective` ("" = the default, EDP).
inline mapper::Result solve_exact(const core::Layer& l, const core::Arch& a,
                                  const std::string& objective = "") {
  mapper::Options o;
  if (!objective.empty()) o.objective = core::parse_objective(objective);
  o.target_gap = 0;
  o.threads = 2;
  return mapper::solve(l, a, o);
}

}  // namespace mapwright::mapper_test
