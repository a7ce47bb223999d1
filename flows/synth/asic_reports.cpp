// Reading OpenSTA's reports and writing the library flow's result (flows/asic.hpp): the text
// and JSON reports and `mapwright synth --liberty`.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>

#include "common/files.hpp"
#include "mapwright/flows/asic.hpp"
#include "mapwright/flows/gate_sim.hpp"
#include "mapwright/support/error.hpp"
#include "synth/tool_run.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

namespace asic_detail {

std::string net_instance(const std::string& net) {
  std::string n = net;
  if (n.rfind("$flatten", 0) == 0) n = n.substr(8);
  n.erase(std::remove(n.begin(), n.end(), '\\'), n.end());
  if (const size_t d = n.find(".$"); d != std::string::npos) return n.substr(0, d);
  if (n.empty() || n[0] == '$') return "";
  const size_t dot = n.rfind('.');
  return dot == std::string::npos ? "" : n.substr(0, dot);
}

std::vector<TimingPath> parse_report_checks(const std::string& text) {
  std::vector<TimingPath> out;
  std::istringstream in(text);
  static const std::regex net_re(R"re(^\s*(?:\d+\s+)?(\S+) \(net\)\s*$)re");
  static const std::regex cell_re(R"re(^\s*(-?[0-9.]+)\s+-?[0-9.]+ [\^v] \S+ \(\S+\)\s*$)re");
  static const std::regex value_re(
      R"re(^\s*(-?[0-9.]+)\s+(data arrival time|data required time|slack))re");
  TimingPath* cur = nullptr;
  bool arrival_seen = false, required_seen = false;
  std::vector<std::string> nets;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Startpoint:", 0) == 0) {
      out.emplace_back();
      cur = &out.back();
      arrival_seen = required_seen = false;
      nets.clear();
      continue;
    }
    if (!cur) continue;
    if (std::regex_search(line, m, net_re)) {
      nets.push_back(m[1]);
      continue;
    }
    if (std::regex_search(line, m, cell_re)) {  // a pin: a cell's output when it adds delay
      if (!arrival_seen && std::stod(m[1]) != 0) ++cur->cells;
      continue;
    }
    if (std::regex_search(line, m, value_re)) {
      const double v = std::stod(m[1]);
      if (m[2] == "data arrival time" && !arrival_seen) {
        cur->arrival_ns = v;
        arrival_seen = true;
        if (!nets.empty()) {
          cur->startpoint = nets.front();
          cur->endpoint = nets.back();
        }
        for (const std::string& n : nets) {
          const std::string inst = net_instance(n);
          if (cur->instances.empty() || cur->instances.back() != inst)
            cur->instances.push_back(inst);
        }
      } else if (m[2] == "data required time" && !required_seen) {
        cur->required_ns = v;
        required_seen = true;
      } else if (m[2] == "slack") {
        cur->slack_ns = v;
        cur = nullptr;
      }
    }
  }
  // A path cut off before its slack is not one.
  if (!out.empty() && cur == &out.back()) out.pop_back();
  return out;
}

double parse_sta_value(const std::string& text, const std::string& key) {
  const std::regex re("(^|\\n)" + key + "\\s+(-?[0-9.]+)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) throw std::runtime_error("sta printed no " + key);
  return std::stod(m[2]);
}

}  // namespace asic_detail

namespace {

nlohmann::json path_json(const TimingPath& p) {
  return {{"startpoint_net", p.startpoint},
          {"endpoint_net", p.endpoint},
          {"instances", p.instances},
          {"arrival_ns", p.arrival_ns},
          {"required_ns", p.required_ns},
          {"slack_ns", p.slack_ns},
          {"cells", p.cells}};
}

nlohmann::json sta_json(const StaFigures& f, double factor) {
  nlohmann::json paths = nlohmann::json::array();
  for (const TimingPath& p : f.paths) paths.push_back(path_json(p));
  return {{"period_ns", f.period_ns},
          {"worst_slack_ns", f.worst_slack_ns},
          {"total_negative_slack_ns", f.total_negative_ns},
          {"min_period_ns", f.min_period_ns},
          {"fmax_mhz", 1000.0 / f.min_period_ns},
          {"min_period_ns_scaled", f.min_period_ns * factor},
          {"fmax_mhz_scaled", 1000.0 / (f.min_period_ns * factor)},
          {"hold_worst_slack_ns", f.hold_slack_ns},
          {"hold_path", path_json(f.hold_path)},
          {"setup_paths", paths}};
}

std::string fixed(double v, int d) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(d) << v;
  return s.str();
}

std::string instances_text(const TimingPath& p) {
  std::string s;
  for (const std::string& i : p.instances) s += (s.empty() ? "" : " > ") + (i.empty() ? "top" : i);
  return s;
}

}  // namespace

nlohmann::json asic_json(const AsicResult& r) {
  nlohmann::json mods = nlohmann::json::array();
  for (const AsicModule& m : r.modules)
    mods.push_back({{"module", m.name},
                    {"instances", m.instances},
                    {"cells", m.cells},
                    {"flops", m.flops},
                    {"area_um2", m.area_um2},
                    {"area_um2_scaled", m.area_um2 * r.area_factor},
                    {"cells_by_type", m.cells_by_type}});
  nlohmann::json macros = nlohmann::json::array();
  for (const AsicMacro& m : r.macros)
    macros.push_back({{"cell", m.cell},
                      {"kind", m.kind},
                      {"words", m.depth},
                      {"bits", m.width},
                      {"read_ports", m.read_ports},
                      {"write_ports", m.write_ports},
                      {"instances", m.instances}});
  const bool met = r.target_slack_ns() >= 0;
  return {
      {"arch", r.arch},
      {"liberty", {{"name", r.liberty.name}, {"file", r.liberty.path}, {"cells", r.liberty.cells}}},
      {"library_node", r.library_node},
      {"target_node", r.target_node},
      {"scaling",
       {{"delay_factor", r.delay_factor},
        {"area_factor", r.area_factor},
        {"source", r.scaling_source}}},
      {"sram_timing", {{"source", r.sram_source}, {"min_period_ns", r.sram_min_period_ns}}},
      {"clock_mhz", r.clock_mhz},
      {"timing",
       {{"met", met},
        {"slack_ns_scaled", r.target_slack_ns()},
        {"fmax_mhz_scaled", r.target_fmax_mhz()},
        {"min_period_ns", r.min_period_ns()},
        {"limited_by", r.sram_min_period_ns > r.design.min_period_ns ? "sram_macros" : "logic"},
        {"critical_over_pe", r.critical_over_pe()}}},
      {"design", sta_json(r.design, r.delay_factor)},
      {"pe", sta_json(r.pe, r.delay_factor)},
      {"cells", r.cells},
      {"flops", r.flops},
      {"area_um2", r.area_um2},
      {"area_mm2_scaled", r.area_um2 * r.area_factor * 1e-6},
      {"fanout", {{"cells_changed", r.buffers_added}, {"passes", r.fanout_passes}}},
      {"modules_before_buffering", mods},
      {"macros", macros},
      {"tools",
       {{"yosys_seconds", r.yosys_seconds},
        {"yosys_peak_mib", r.yosys_peak_mib},
        {"blif_fanout_seconds", r.fanout_seconds},
        {"sta_seconds", r.sta_seconds},
        {"sta_peak_mib", r.sta_peak_mib}}},
      {"simplifications",
       "no placement or wire load; ideal clock; mw_accel's ports unconstrained (mw_pe alone: its "
       "ports registered); the memory macros as configs/tech/sram-timing.yaml states"},
      {"out_dir", r.out_dir}};
}

void print_asic(const AsicResult& r, std::ostream& out) {
  out << "synth " << r.arch << " on " << r.liberty.name << " (" << r.library_node
      << " nm library, scaled to " << r.target_node << "): " << synth_detail::params_text(r.params)
      << "\n";
  out << std::left << std::setw(14) << "module" << std::right << std::setw(6) << "inst"
      << std::setw(10) << "cells" << std::setw(9) << "flops" << std::setw(14) << "area um^2"
      << std::setw(14) << "scaled um^2"
      << "\n";
  for (const AsicModule& m : r.modules)
    out << std::left << std::setw(14) << m.name << std::right << std::setw(6) << m.instances
        << std::setw(10) << m.cells << std::setw(9) << m.flops << std::setw(14)
        << fixed(m.area_um2, 0) << std::setw(14) << fixed(m.area_um2 * r.area_factor, 0) << "\n";
  out << "buffered netlist: " << r.cells << " cells, " << r.flops << " flops, "
      << fixed(r.area_um2 * 1e-6, 3) << " mm^2 at " << r.library_node << " ("
      << fixed(r.area_um2 * r.area_factor * 1e-6, 3) << " mm^2 scaled; no macros); blifFanout "
      << r.buffers_added << " cells changed in " << r.fanout_passes << " passes\n";
  for (const AsicMacro& m : r.macros)
    out << "macro " << m.cell << " x" << m.instances << " (" << m.kind << ")\n";
  const auto line = [&](const char* what, const StaFigures& f) {
    out << what << ": critical path " << fixed(f.min_period_ns, 3) << " ns at " << r.library_node
        << " (" << fixed(1000.0 / f.min_period_ns, 1) << " MHz), "
        << fixed(f.min_period_ns * r.delay_factor, 3) << " ns scaled ("
        << fixed(1000.0 / (f.min_period_ns * r.delay_factor), 1) << " MHz); hold slack "
        << fixed(f.hold_slack_ns, 3) << " ns\n";
  };
  line("design", r.design);
  line("PE alone", r.pe);
  out << "design / PE: " << fixed(r.critical_over_pe(), 2) << "x\n";
  for (size_t i = 0; i < r.design.paths.size(); ++i) {
    const TimingPath& p = r.design.paths[i];
    out << "  path " << i + 1 << ": " << fixed(p.arrival_ns, 3) << " ns, " << p.cells << " cells, "
        << instances_text(p) << "\n";
  }
  out << "SRAM macros' own cycle: " << fixed(r.sram_min_period_ns, 3) << " ns (" << r.sram_source
      << ")\n";
  out << "clock " << fixed(r.clock_mhz, 0) << " MHz at " << r.target_node << ": "
      << (r.target_slack_ns() >= 0 ? "met" : "VIOLATED") << ", slack "
      << fixed(r.target_slack_ns(), 3) << " ns; the design meets " << fixed(r.target_fmax_mhz(), 1)
      << " MHz there (limited by "
      << (r.sram_min_period_ns > r.design.min_period_ns ? "the SRAM macros" : "the logic") << ")\n";
  out << "scaling: delay x" << fixed(r.delay_factor, 4) << ", area x" << fixed(r.area_factor, 4)
      << " (" << r.scaling_source << ")\n";
  out << "simplifications: no placement or wire load; ideal clock; ports unconstrained (the PE "
         "alone: ports registered)\n";
  out << "yosys " << fixed(r.yosys_seconds, 1) << " s (peak " << fixed(r.yosys_peak_mib, 0)
      << " MiB), blifFanout " << fixed(r.fanout_seconds, 1) << " s, sta " << fixed(r.sta_seconds, 1)
      << " s (peak " << fixed(r.sta_peak_mib, 0) << " MiB); " << r.out_dir << "\n";
}

int cmd_asic(const SynthOptions& o, const AsicOptions& a, std::ostream& out) {
  const core::Arch arch = core::load_arch(o.arch);
  synth_params(arch, "--arch " + o.arch);  // refused before any work
  AsicOptions opts = a;
  opts.sim_netlist = o.gate_sim > 0;
  const AsicOutcome res = implement_asic(arch, opts, o.rtl_dir, o.out_dir);
  if (res.failure != AsicFailureKind::None) {
    std::cerr << "synth --liberty: " << res.message;
    if (!res.log.empty()) std::cerr << " (log: " << res.log << ")";
    std::cerr << "\n";
    return 1;
  }
  const int timing_rc = res.result.target_slack_ns() >= 0 ? 0 : 3;
  if (o.gate_sim == 0) {
    if (o.json)
      out << asic_json(res.result).dump(2) << "\n";
    else
      print_asic(res.result, out);
    return timing_rc;
  }
  if (!o.json) print_asic(res.result, out);
  out << std::flush;
  const GateSimResult g =
      gate_sim_files(arch, o.arch, res.result.sim_files, o.gate_sim, o.seed, o.jobs, &std::cerr);
  const nlohmann::json gj = gate_sim_json(g);
  write_atomic(fs::path(res.result.out_dir) / "gate_sim.json", gj.dump(2) + "\n");
  if (o.json)
    out << nlohmann::json{{"asic", asic_json(res.result)}, {"gate_sim", gj}}.dump(2) << "\n";
  else
    print_gate_sim(g, out);
  return g.ok() ? timing_rc : 1;
}

}  // namespace mapwright::flows
