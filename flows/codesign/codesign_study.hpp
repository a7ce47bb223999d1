#pragma once
/// \file codesign_study.hpp
/// `mapwright study --suite FILE` with `kind: codesign`: the sampling searchers over hardware
/// spaces measured against each space's proven co-design optimum, with the mapping study's
/// statistics (study_stats.hpp): per case (a space file at an area budget) and searcher the
/// Kaplan-Meier median of the hardware points needed to come within each target of the optimum
/// (a run that never does is censored at its points), with a bootstrap interval over the seeds;
/// the median best / optimum at iso budgets; over the cases the median of the per-case medians
/// and the geometric mean of the gaps, seeds resampled within each case (docs/codesign.md).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/flows/study.hpp"

namespace mapwright::flows::codesign {

/// One case of a co-design study: a space file, optionally at another area budget.
struct StudyCase {
  std::string space;         ///< The space file (relative: beside the suite).
  double max_area_mm2 = -1;  ///< The area budget (-1: the space file's; 0: none).
  std::string name;          ///< "<space name>@<budget> mm2" unless given.
};

/// A co-design study suite, checked.
struct CodesignStudySuite {
  std::string path;                    ///< Where it was read from.
  std::string name;                    ///< name: (file stem).
  std::string options_file;            ///< options: search options ("" = the defaults).
  std::vector<StudyCase> cases;        ///< cases:, in order.
  std::vector<std::string> searchers;  ///< random and the search library's samplers.
  std::vector<uint64_t> seeds;         ///< One run per seed, searcher and case.
  int64_t budget = 500;                ///< Distinct hardware points per run.
  std::vector<int64_t> iso_budgets;    ///< Points at which the gaps are compared.
  std::vector<double> targets_pct;     ///< Within-X % targets (0: the optimum itself).
  int bootstrap_resamples = 2000;      ///< bootstrap.resamples.
  double bootstrap_confidence = 0.95;  ///< bootstrap.confidence.
  uint64_t bootstrap_seed = 1;         ///< bootstrap.seed.
};

/// True when the suite file says `kind: codesign` (a file that does not parse is left to the
/// mapping study's loader, which names the error).
bool is_codesign_study(const std::string& path);
/// Reads and checks a co-design study suite; errors name the file, the key and the value
/// (unknown keys, a searcher that cannot sample a hardware space, a space file that does not
/// load, budgets and targets out of range).
CodesignStudySuite load_codesign_study(const std::string& path);
/// Runs the study into its folder (--out, default runs/study-<name>): the exact optimum of each
/// case, then every (case, searcher, seed) run, each recorded in runs.jsonl as it finishes (a
/// resumed study skips those) with every layer solve in a journal per space file
/// (solves-<k>.jsonl, shared by the cases of that space and by a resumed study); then
/// codesign-study.json, runs.csv and summary.csv, and the table on `out`. Exit 0, or 130 when
/// interrupted (the runs recorded are kept; `--resume` continues).
int cmd_codesign_study(const StudyOptions& o, std::ostream& out);

}  // namespace mapwright::flows::codesign
