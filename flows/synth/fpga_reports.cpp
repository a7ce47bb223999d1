// The FPGA flow's report readers (nextpnr-ice40's log, yosys' stat after synth_ice40) and the
// forms of its result: the text `mapwright synth --fpga` prints and the JSON it prints with
// --json and always writes to <out>/fpga.json.

#include "synth/fpga_reports.hpp"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <regex>
#include <sstream>

#include "synth/tool_run.hpp"
#include "synth/yosys_reports.hpp"

namespace mapwright::flows {

namespace synth_detail {

std::map<std::string, FpgaUse> parse_nextpnr_utilisation(const std::string& log) {
  std::map<std::string, FpgaUse> use;
  const size_t at = log.rfind("Device utilisation:");
  if (at == std::string::npos) return use;
  static const std::regex line_re(R"(^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%)");
  std::istringstream in(log.substr(at));
  std::string line;
  std::getline(in, line);  // the heading
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, line_re)) {
      use[m[1].str()] = FpgaUse{std::stoll(m[2].str()), std::stoll(m[3].str())};
    } else if (line.find_first_not_of(" \t") != std::string::npos && line != "Info:") {
      break;  // the table ends at the first other line
    }
  }
  return use;
}

double parse_nextpnr_fmax(const std::string& log) {
  static const std::regex re(R"(Max frequency for clock '[^']*': ([0-9.]+) MHz)");
  double fmax = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator();
       ++it)
    fmax = std::stod((*it)[1].str());
  return fmax;
}

bool nextpnr_out_of_cells(const std::string& log) {
  if (log.find("no BELs remaining") != std::string::npos) return true;
  for (const auto& [name, u] : parse_nextpnr_utilisation(log))
    if (u.used > u.available) return true;
  return false;
}

std::string first_tool_error(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("ERROR:", 0) == 0) return line;
  return "";
}

void add_ice40_cells(const std::string& stat_json, FpgaResult& r) {
  r.luts = r.carries = r.flops = 0;
  for (const auto& [module, report] : parse_stat_json(stat_json)) {
    for (const auto& [type, n] : report.cells_by_type) {
      if (type == "SB_LUT4") r.luts += n;
      if (type == "SB_CARRY") r.carries += n;
      if (type.rfind("SB_DFF", 0) == 0) r.flops += n;
    }
  }
}

}  // namespace synth_detail

namespace {

nlohmann::json use_json(const FpgaUse& u) {
  return {{"used", u.used}, {"available", u.available}};
}

/// "1234 / 5280 (23 %)", or "1234" when the device's count is unknown.
std::string use_text(const FpgaUse& u) {
  std::ostringstream s;
  s << u.used;
  if (u.available > 0) s << " / " << u.available << " (" << (100 * u.used) / u.available << " %)";
  return s.str();
}

}  // namespace

std::string fpga_json(const FpgaResult& r) {
  nlohmann::json j;
  j["arch"] = r.arch;
  j["device"] = r.device;
  j["top"] = fpga_top_name(r.top);
  for (const auto& [name, v] : synth_detail::param_list(r.params)) j["params"][name] = v;
  j["synth_ice40"] = {{"luts", r.luts}, {"carries", r.carries}, {"flops", r.flops}};
  j["utilization"] = {{"logic_cells", use_json(r.logic_cells)},
                      {"brams", use_json(r.brams)},
                      {"dsps", use_json(r.dsps)},
                      {"ios", use_json(r.ios)}};
  j["fits"] = r.fits;
  j["fmax_mhz"] = r.fmax_mhz;
  j["seed"] = r.seed;
  j["seconds"] = r.seconds;
  j["bitstream"] = r.bitstream;
  j["out_dir"] = r.out_dir;
  return j.dump(2) + "\n";
}

void print_fpga(const FpgaResult& r, std::ostream& out) {
  if (r.top == FpgaTop::Array)
    out << "fpga " << r.device << ", " << r.arch << ": mw_fpga_array (the array engine alone, "
        << "mw_array " << r.params.rows << "x" << r.params.cols << ", behind the scan wrapper)\n";
  else
    out << "fpga " << r.device << ", " << r.arch << ": mw_fpga (mw_accel "
        << synth_detail::params_text(r.params) << ", behind the scan wrapper)\n";
  out << "synth_ice40: " << r.luts << " LUT4, " << r.carries << " carry, " << r.flops
      << " flip-flops\n"
      << "utilization: logic cells " << use_text(r.logic_cells) << ", block RAMs "
      << use_text(r.brams) << ", DSPs " << use_text(r.dsps) << ", I/O " << use_text(r.ios) << "\n";
  if (r.fits)
    out << "fits: placed and routed (nextpnr seed " << r.seed << "), Fmax " << std::fixed
        << std::setprecision(2) << r.fmax_mhz << " MHz post-route; bitstream " << r.bitstream
        << "\n";
  else
    out << "does not fit " << r.device << ": the utilization above is what it needed\n";
  out << "tools: " << std::fixed << std::setprecision(1) << r.seconds << " s; logs in " << r.out_dir
      << "\n";
}

}  // namespace mapwright::flows
