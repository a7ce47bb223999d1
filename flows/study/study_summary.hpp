#pragma once
/// \file study_summary.hpp
/// study.json: the summary of a study (StudyResult) as JSON, which study.html is rendered
/// from and `mapwright study --json` prints. print_study (study.hpp) is its table form.

#include <nlohmann/json.hpp>

#include "mapwright/flows/study.hpp"

namespace mapwright::flows {

/// study.json: the suite, the optima, every figure, and notes on how to read them. A figure
/// that is not finite is null (not reached, or undefined).
nlohmann::json study_summary_json(const StudyResult& r);

}  // namespace mapwright::flows
