#pragma once
/// \file results_db.hpp
/// The results store of `mapwright run`: one SQLite file (in the run folder by default, or any
/// file given with --db, which many runs may share) with these tables:
///   runs          one row per run (settings, status, network totals)
///   layers        one row per (run, unique layer): search statistics and the chosen mapping
///   evaluations   one row per (run, layer, sample): every surrogate evaluation of the search
///   verifications one row per (run, layer, candidate): every RTL run and its checks
///   sweep_points  one row per (sweep, point) of `mapwright sweep`: parameters, area, totals
/// Rows are written as their work finishes (INSERT OR REPLACE keyed by run id), so an
/// interrupted run keeps what it finished and a resumed run fills in the rest.

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mapwright/flows/run_record.hpp"

namespace mapwright::flows {

/// One surrogate evaluation seen during a search.
struct EvaluationRow {
  int64_t sample = 0;    ///< 0-based sample index.
  bool valid = false;    ///< Valid mapping.
  double cost = 0;       ///< Objective (valid only).
  long long cycles = 0;  ///< Surrogate cycles (valid only).
  double energy_pj = 0;  ///< Surrogate energy (valid only).
  std::string reason;    ///< Why invalid.
  std::string point;     ///< The parameter vector as JSON text.
};

class ResultsDb {
 public:
  /// Opens (creating if needed) the file and its tables; throws core::SpecError naming it.
  explicit ResultsDb(const std::string& path);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  /// Inserts or replaces the run's row (settings, status and the totals of `summary`).
  void put_run(const RunRecord& run, const RunSummary& summary);
  /// Inserts or replaces one layer's row (and its exact-mapper proof, when it has one).
  void put_layer(const std::string& run_id, const LayerRecord& layer);
  /// Inserts the evaluations of one layer (one transaction).
  void put_evaluations(const std::string& run_id, int layer_index,
                       const std::vector<EvaluationRow>& rows);
  /// Inserts or replaces one candidate's verification (the candidate must have one).
  void put_verification(const std::string& run_id, int layer_index, const Candidate& cand);
  /// Inserts or replaces one point of a sweep (`mapwright sweep`): the keys of the
  /// sweep_points table read from `point` (absent keys are NULL).
  void put_sweep_point(const std::string& sweep_id, int index, const nlohmann::json& point);

 private:
  void exec(const std::string& sql);
  /// Adds the columns a store written by an earlier version lacks.
  void add_missing_columns();
  sqlite3* db_ = nullptr;  ///< Connection.
  std::string path_;       ///< File, for messages.
};

}  // namespace mapwright::flows
