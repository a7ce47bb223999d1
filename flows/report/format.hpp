#pragma once
// What the report pages (run_page.cpp, compare_page.cpp, the co-design and sweep pages) format
// alike: the head of a page with their style rules, a time from cycles, a mapping's dataflow and
// PE use, and a design's area by part. The numbers themselves are formatted by common/text.hpp.

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/mapping.hpp"

namespace mapwright::flows {

/// The page up to <main>: doctype, <title>, the base style rules and the report pages' own.
std::string page_head(const std::string& title);
/// `cycles` at a clock of `mhz` as a time with an SI prefix: 4532 at 1000 MHz -> "4.532us".
std::string time_of(double cycles, double mhz);
/// A mapping's dataflow and PE use: "ws, 16x9 PEs".
std::string dataflow_and_pes(const core::Mapping& m);
/// A design's area by part as an HTML table: `area` is codesign::area_json's record (the model's
/// parts in mm^2), `total_mm2` their sum; `synthesis` (null when there is none) is
/// flows::synth_record's: when done, its synthesized cell area per part is a column beside the
/// model's and a line under the table names its cells, depth and folder; when failed, why.
void area_parts_html(std::ostream& h, const nlohmann::json& area, double total_mm2,
                     const nlohmann::json& synthesis);

}  // namespace mapwright::flows
