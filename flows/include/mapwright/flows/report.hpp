#pragma once
/// \file report.hpp
/// `mapwright report` and `mapwright compare`: the HTML pages of run folders (report.cpp; the
/// pages themselves are drawn by report/run_page.cpp and report/compare_page.cpp).

#include <ostream>
#include <string>
#include <vector>

namespace mapwright::flows {

struct ReportOptions {
  std::string run_dir;  ///< Run folder with results.json.
  std::string out;      ///< HTML file ("" = <run_dir>/report.html).
};
/// Re-renders report.html of a run folder from results.json and the curve CSVs.
int cmd_report(const ReportOptions& o, std::ostream& out);

struct CompareOptions {
  std::vector<std::string> runs;     ///< Two or more run folders.
  std::string out = "compare.html";  ///< HTML file.
  bool json = false;                 ///< Print the comparison as JSON.
};
/// Compares runs layer by layer and in total (latency, energy, EDP, utilization), marking the
/// winner of each; writes a self-contained HTML page.
int cmd_compare(const CompareOptions& o, std::ostream& out);

}  // namespace mapwright::flows
