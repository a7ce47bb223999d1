#pragma once
/// \file run_output.hpp
/// What a run writes for people besides results.json: layers.csv and verifications.csv in the
/// run folder, and the summary table `mapwright run` prints.

#include <filesystem>
#include <ostream>

#include "mapwright/flows/run_record.hpp"

namespace mapwright::flows {

/// layers.csv and verifications.csv of `rec` in `dir`.
void write_run_csvs(const RunRecord& rec, const std::filesystem::path& dir);
/// The summary table of `rec`: one line per layer, the network totals, the RTL checks, where
/// the files are, and how to continue an interrupted run.
void print_run_summary(const RunRecord& rec, std::ostream& out);

}  // namespace mapwright::flows
