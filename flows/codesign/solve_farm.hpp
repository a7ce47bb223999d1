#pragma once
/// \file solve_farm.hpp
/// `mpirun -np K mapwright codesign`: rank 0 searches and writes every file as one process
/// would; the other K-1 ranks make its layer solves (the mapper, one thread each), a point's
/// unique layers spread over them at once. The solves are deterministic, so every answer is
/// the one a single process gives (tests/apps/mpi_codesign.cmake compares the files).

#include <map>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"

namespace mapwright::flows::codesign {

/// Rank 0's side: hands solve requests to whichever rank is free and gathers the answers.
class SolveFarm {
 public:
  SolveFarm() = default;
  /// Stops the other ranks (close) if that has not been done.
  ~SolveFarm();
  SolveFarm(const SolveFarm&) = delete;
  SolveFarm& operator=(const SolveFarm&) = delete;
  /// Solves each request (a solve_request message) on some other rank; the answers in the
  /// requests' order. A rank's failure is a std::runtime_error naming the rank.
  std::vector<LayerFigures> solve(const std::vector<nlohmann::json>& requests);
  /// Hands each request (a solve_request or a design_check_request) to some other rank; the
  /// answers in the requests' order. A rank's failure is a std::runtime_error naming the rank.
  std::vector<nlohmann::json> run(const std::vector<nlohmann::json>& requests);
  /// Tells every other rank to stop and waits until each has; afterwards solve() throws.
  void close();
  /// Solves each rank made (rank -> count).
  const std::map<int, long long>& solved_by() const { return solved_by_; }
  /// Closes the farm and writes "rank R: N layer solves, M designs on the RTL" for every other
  /// rank to `out`.
  void close_and_report(std::ostream& out);

 private:
  std::vector<int> idle_;                ///< Ranks waiting for work.
  int ready_ = 0;                        ///< Ranks that have said they are ready.
  bool closed_ = false;                  ///< close() ran.
  std::map<int, long long> solved_by_;   ///< Per rank, solves answered.
  std::map<int, long long> checked_by_;  ///< Per rank, designs checked on the RTL.
};

/// The message asking for layer `layer` (its shape key must match the worker's unique layer
/// `u`) on architecture `a` within `time_limit_s`.
nlohmann::json solve_request(size_t u, const core::Layer& layer, const core::Arch& a,
                             double time_limit_s);
/// A rank other than 0: answers rank 0's solve requests and design checks (rtl_check.hpp) for
/// space `s` until told to stop; returns 0.
int serve_solves(const CodesignSpace& s);

}  // namespace mapwright::flows::codesign
