// The report pages' shared formatting: the page head with the style rules of both pages (cards,
// tables, verdict colours, banners), a latency as a time at the architecture's clock, and the
// dataflow and PE use of a typed mapping.
#include "report/format.hpp"

#include <cstring>

#include "common/html.hpp"
#include "common/text.hpp"
#include "mapwright/core/arch.hpp"

namespace mapwright::flows {

namespace {

/// The pages' own rules, after page_base_css().
const char* kCss = R"css(
.meta{color:#5a6473;font-size:13px}
.ok{background:#e3f4e8;color:#17612e;border:1px solid #a8d8b5}.bad{background:#fde8e8;color:#a01616;border:1px solid #f0a5a5}
.info{background:#e8eef9;color:#234a8a;border:1px solid #b4c6ea}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:12px 0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 14px}
.card .k{font-size:12px;color:#5a6473;text-transform:uppercase;letter-spacing:.04em}.card .v{font-size:24px;font-weight:650;margin-top:4px}
.card .s{font-size:12px;color:#5a6473;margin-top:2px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;border:1px solid #dde1e7}
th,td{padding:4px 5px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}th{white-space:normal;vertical-align:bottom}
th{background:#eef1f5;font-weight:600;position:sticky;top:0}
td.l,th.l{text-align:left}td.shape{white-space:normal;font-size:11px;color:#3a4250;min-width:150px;max-width:190px;text-align:left}td.wrap{white-space:normal;text-align:left;max-width:420px}
tr.fail td{background:#fdeaea;color:#a01616}td.fail,span.fail{color:#c01818;font-weight:650}td.pass,span.pass{color:#17612e;font-weight:600}
.stats{display:flex;gap:24px;font-size:14px;margin:6px 0 10px}.stats b{font-size:16px}
pre{background:#fff;border:1px solid #dde1e7;padding:8px;font-size:12px;overflow:auto}
details{margin:4px 0}summary{cursor:pointer;font-size:13px}
.note{font-size:12px;color:#5a6473}
)css";

}  // namespace

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + page_base_css() + kCss +
         "</style></head><body><main>\n";
}

std::string time_of(double cycles, double mhz) {
  return si(cycles / (mhz * 1e6), 4) + "s";
}

std::string dataflow_and_pes(const core::Mapping& m) {
  return std::string(core::dataflow_name(m.dataflow)) + ", " + std::to_string(m.pe_rows) + "x" +
         std::to_string(m.pe_cols) + " PEs";
}

void area_parts_html(std::ostream& h, const nlohmann::json& area, double total_mm2,
                     const nlohmann::json& synthesis) {
  const bool synth = synthesis.is_object() && synthesis.value("status", "") == "done";
  h << "<h3>Area by part (analytical model" << (synth ? "; synthesized logic beside it" : "")
    << ")</h3>\n<table style=\"width:auto\"><thead><tr><th class=\"l\">part</th><th>mm<sup>"
       "2</sup></th><th>share</th>"
    << (synth ? "<th>synthesized mm<sup>2</sup></th>" : "") << "</tr></thead><tbody>\n";
  for (const char* k : {"pe_array_mm2", "input_buf_mm2", "weight_buf_mm2", "accum_buf_mm2",
                        "array_control_mm2", "dma_mm2", "bank_logic_mm2"}) {
    const std::string part = std::string(k).substr(0, std::strlen(k) - 4);
    h << "<tr><td class=\"l\">" << html_escape(part) << "</td><td>" << fmt_fixed(area[k], 4)
      << "</td><td>" << fmt_fixed(100 * area[k].get<double>() / total_mm2, 1) << " %</td>";
    if (synth) {
      const nlohmann::json& sp = synthesis["parts_mm2"];
      h << "<td>" << (sp.contains(part) ? fmt_fixed(sp[part], 4) : "macro") << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</tbody></table>\n";
  if (synth)
    h << "<p>Synthesized: yosys' generic cells priced at NanGate45 X1 areas (no memory macros, no "
         "routing), "
      << html_escape(synthesis["cells"].dump()) << " cells, logic depth "
      << html_escape(synthesis["depth"].dump()) << " cells; reports in "
      << html_escape(synthesis["out_dir"].get<std::string>()) << ".</p>\n";
  else if (synthesis.is_object() && synthesis.contains("failure"))
    h << "<p>Synthesis failed: " << html_escape(synthesis["failure"].get<std::string>())
      << "</p>\n";
}

}  // namespace mapwright::flows
