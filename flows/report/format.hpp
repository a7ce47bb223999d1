#pragma once
// What the report pages (run_page.cpp, compare_page.cpp) format alike: the head of a page with
// their style rules, a time from cycles, and a mapping's dataflow and PE use. The numbers
// themselves are formatted by common/text.hpp.

#include <string>

#include "mapwright/core/mapping.hpp"

namespace mapwright::flows {

/// The page up to <main>: doctype, <title>, the base style rules and the report pages' own.
std::string page_head(const std::string& title);
/// `cycles` at a clock of `mhz` as a time with an SI prefix: 4532 at 1000 MHz -> "4.532us".
std::string time_of(double cycles, double mhz);
/// A mapping's dataflow and PE use: "ws, 16x9 PEs".
std::string dataflow_and_pes(const core::Mapping& m);

}  // namespace mapwright::flows
