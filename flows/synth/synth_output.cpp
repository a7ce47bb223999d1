// The forms of a synthesis result: the text table `mapwright synth` prints, the JSON it prints
// with --json and always writes to <out>/synth.json, and the command itself (exit codes).

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/files.hpp"
#include "mapwright/flows/asic.hpp"
#include "mapwright/flows/fpga.hpp"
#include "mapwright/flows/gate_sim.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/support/error.hpp"
#include "synth/tool_run.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

namespace {

nlohmann::json figures_json(const SynthFigures& f) {
  return {{"cells", f.cells},
          {"flops", f.flops},
          {"latches", f.latches},
          {"memories", f.memories},
          {"memory_bits", f.memory_bits},
          {"transistors", f.transistors},
          {"cell_area_um2", f.cell_area_um2},
          {"depth", f.depth},
          {"cells_by_type", f.cells_by_type}};
}

/// One row of the text table.
void row(std::ostream& out, const std::string& name, const std::string& inst,
         const SynthFigures& f) {
  out << std::left << std::setw(12) << name << std::right << std::setw(7) << inst << std::setw(10)
      << f.cells << std::setw(8) << f.flops << std::setw(8) << f.latches << std::setw(6)
      << f.memories << std::setw(12) << f.memory_bits << std::setw(12) << f.transistors
      << std::setw(12) << std::fixed << std::setprecision(0) << f.cell_area_um2 << std::setw(7)
      << f.depth << "\n";
}

}  // namespace

std::string synth_json(const SynthResult& r) {
  nlohmann::json j;
  j["arch"] = r.arch;
  for (const auto& [name, v] : synth_detail::param_list(r.params)) j["params"][name] = v;
  j["yosys"] = r.yosys_version;
  j["check_clean"] = r.check_clean;
  j["design"] = figures_json(r.design);
  nlohmann::json mods = nlohmann::json::array();
  for (const auto& m : r.modules) {
    nlohmann::json e = figures_json(m.total);
    e["module"] = m.name;
    e["instances"] = m.instances;
    e["variants"] = m.variants;
    mods.push_back(e);
  }
  j["modules"] = mods;
  j["seconds"] = r.seconds;
  j["peak_rss_mib"] = r.peak_rss_mib;
  j["out_dir"] = r.out_dir;
  return j.dump(2) + "\n";
}

nlohmann::json synth_record(const SynthOutcome& s) {
  if (s.failure != SynthFailureKind::None)
    return {{"status", "failed"}, {"failure", s.message}, {"log", s.log}};
  const SynthResult& r = s.result;
  nlohmann::json parts = {
      {"pe_array", 0.0}, {"array_control", 0.0}, {"dma", 0.0}, {"bank_logic", 0.0}};
  for (const SynthModule& m : r.modules) {
    const std::string part = m.name == "mw_pe" || m.name == "mw_mesh" ? "pe_array"
                             : m.name == "mw_dma"                     ? "dma"
                             : m.name == "mw_bank_buf" || m.name == "mw_row_fetch"
                                 ? "bank_logic"
                                 : "array_control";
    parts[part] = parts[part].get<double>() + m.total.cell_area_um2 / 1e6;
  }
  return {{"status", "done"},         {"cells", r.design.cells},
          {"flops", r.design.flops},  {"transistors", r.design.transistors},
          {"depth", r.design.depth},  {"cell_area_mm2", r.design.cell_area_um2 / 1e6},
          {"parts_mm2", parts},       {"memory_bits", r.design.memory_bits},
          {"yosys", r.yosys_version}, {"seconds", r.seconds},
          {"out_dir", r.out_dir}};
}

void print_synth(const SynthResult& r, std::ostream& out) {
  out << "synth " << r.arch << ": mw_accel " << synth_detail::params_text(r.params) << " ("
      << r.yosys_version << ")\n";
  out << std::left << std::setw(12) << "module" << std::right << std::setw(7) << "inst"
      << std::setw(10) << "cells" << std::setw(8) << "flops" << std::setw(8) << "latches"
      << std::setw(6) << "mems" << std::setw(12) << "mem bits" << std::setw(12) << "transistors"
      << std::setw(12) << "area um^2" << std::setw(7) << "depth"
      << "\n";
  for (const auto& m : r.modules) row(out, m.name, std::to_string(m.instances), m.total);
  row(out, "design", "", r.design);
  out << "check: " << (r.check_clean ? "clean" : "problems") << ", latches: " << r.design.latches
      << ", memories kept as macros: " << r.design.memories << " (" << r.design.memory_bits
      << " bits)\n"
      << "cells: each module's own (submodules in their rows), summed over its instances; "
         "transistors: yosys' CMOS estimate without the memory macros; area: the gates and flops "
         "priced at NanGate45 X1 cells (no memory macros, no routing); depth: longest "
         "combinational path in cells (design: flattened; module: its own logic, paths through "
         "submodules cut)\n"
      << "yosys: " << std::fixed << std::setprecision(1) << r.seconds << " s, peak "
      << std::setprecision(0) << r.peak_rss_mib << " MiB; reports and log in " << r.out_dir << "\n";
}

nlohmann::json area_parts_json(const model::AreaBreakdown& a, bool with_total) {
  nlohmann::json j = {
      {"pe_array_mm2", a.pe_array_mm2},           {"input_buf_mm2", a.input_buf_mm2},
      {"weight_buf_mm2", a.weight_buf_mm2},       {"accum_buf_mm2", a.accum_buf_mm2},
      {"array_control_mm2", a.array_control_mm2}, {"dma_mm2", a.dma_mm2},
      {"bank_logic_mm2", a.bank_logic_mm2},       {"control_mm2", a.control_mm2}};
  if (with_total) j["total_mm2"] = a.total_mm2;
  return j;
}

std::string synth_summary(const nlohmann::json& record, double model_logic_mm2) {
  if (record.value("status", "") != "done")
    return "synthesis failed: " + record.value("failure", std::string());
  std::ostringstream s;
  s << "synthesis (yosys, cells at NanGate45 X1 areas): logic " << std::fixed
    << std::setprecision(3) << record["cell_area_mm2"].get<double>() << " mm^2 against the model's "
    << model_logic_mm2 << ", " << record["cells"].get<long long>() << " cells, depth "
    << record["depth"].get<long long>() << "; " << record["out_dir"].get<std::string>();
  return s.str();
}

int cmd_synth(const SynthOptions& o, std::ostream& out) {
  if (o.gate_sim < 0 || o.gate_sim > 100000)
    throw core::SpecError("--gate-sim", "gate_sim", std::to_string(o.gate_sim),
                          "expected a number of runs in 0..100000");
  if (o.jobs < 0) throw core::SpecError("--jobs", "jobs", std::to_string(o.jobs), "expected >= 0");
  if (!o.fpga.empty() && o.gate_sim > 0)
    throw core::SpecError("--gate-sim", "gate_sim", std::to_string(o.gate_sim),
                          "the gate-level simulation is of the generic synthesis, not of --fpga");
  if (!o.netlist.empty() && o.gate_sim == 0)
    throw core::SpecError("--netlist", "netlist", o.netlist,
                          "a given netlist is for --gate-sim N (N runs against the RTL)");
  if (o.fpga.empty() && !o.fpga_top.empty())
    throw core::SpecError("--fpga-top", "fpga_top", o.fpga_top,
                          "the FPGA top is for --fpga ice40-up5k|ice40-hx8k");
  if (o.liberty.empty() && o.node != "HP45")
    throw core::SpecError("--node", "node", o.node,
                          "the node the figures are scaled to is for --liberty");
  if (!o.fpga.empty() && !o.liberty.empty())
    throw core::SpecError("--liberty", "liberty", o.liberty,
                          "a standard-cell library is for the ASIC flow, not for --fpga");
  if (!o.fpga.empty()) return cmd_fpga(o, out);
  if (!o.liberty.empty()) {
    if (!o.netlist.empty())
      throw core::SpecError("--netlist", "netlist", o.netlist,
                            "--liberty simulates the netlist it maps (--gate-sim N), not a given "
                            "one");
    AsicOptions a;
    a.liberty = o.liberty;
    a.target_node = o.node;
    return cmd_asic(o, a, out);
  }
  const core::Arch arch = core::load_arch(o.arch);
  synth_params(arch, "--arch " + o.arch);  // refused here, naming the file, before any work
  if (!o.netlist.empty()) {                // a netlist made elsewhere: simulated, not synthesized
    std::error_code ec;
    if (!fs::is_regular_file(o.netlist, ec))
      throw core::SpecError("--netlist", "netlist", o.netlist, "no such file");
    SynthResult given;
    given.arch = arch.name;
    given.netlist = fs::absolute(o.netlist).string();
    given.out_dir = o.out_dir.empty() ? "gate-sim-" + arch.name : o.out_dir;
    make_output_dir(given.out_dir);
    const GateSimResult g = gate_sim(arch, o.arch, given, o.gate_sim, o.seed, o.jobs, &std::cerr);
    const nlohmann::json gj = gate_sim_json(g);
    write_atomic(fs::path(given.out_dir) / "gate_sim.json", gj.dump(2) + "\n");
    if (o.json)
      out << nlohmann::json{{"gate_sim", gj}}.dump(2) << "\n";
    else
      print_gate_sim(g, out);
    return g.ok() ? 0 : 1;
  }
  const SynthOutcome s = synthesize(arch, o.rtl_dir, o.out_dir, o.gate_sim > 0);
  switch (s.failure) {
    case SynthFailureKind::None:
      break;
    case SynthFailureKind::NoYosys:
      std::cerr << "synth: " << s.message << "\n";
      return 1;
    case SynthFailureKind::Yosys:
      std::cerr << "synth: yosys failed: " << s.message << " (log: " << s.log << ")\n";
      return 1;
    case SynthFailureKind::BadReport:
      std::cerr << "synth: yosys' reports unreadable: " << s.message << " (log: " << s.log << ")\n";
      return 1;
  }
  const std::string json = synth_json(s.result);
  write_atomic(fs::path(s.result.out_dir) / "synth.json", json);
  if (o.gate_sim == 0) {
    if (o.json)
      out << json;
    else
      print_synth(s.result, out);
    return 0;
  }
  if (!o.json) print_synth(s.result, out);
  out << std::flush;
  const GateSimResult g = gate_sim(arch, o.arch, s.result, o.gate_sim, o.seed, o.jobs, &std::cerr);
  const nlohmann::json gj = gate_sim_json(g);
  write_atomic(fs::path(s.result.out_dir) / "gate_sim.json", gj.dump(2) + "\n");
  if (o.json)
    out << nlohmann::json{{"synthesis", nlohmann::json::parse(json)}, {"gate_sim", gj}}.dump(2)
        << "\n";
  else
    print_gate_sim(g, out);
  return g.ok() ? 0 : 1;
}

}  // namespace mapwright::flows
