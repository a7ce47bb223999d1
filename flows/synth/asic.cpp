// `mapwright synth --liberty`: the accelerator mapped to a standard-cell library, buffered and
// timed (flows/asic.hpp). The steps, each a child process run in the output folder:
//   1. yosys (asic.ys): elaborate, dump the memory macros' shapes (macros.il), make them black
//      boxes, synthesize with the hierarchy kept (per-module figures, stat_lib.json), map flops
//      and logic to the library, flatten, write mapped.blif;
//   2. the BLIF gets the macros' cell names and scalar pins (written here with their liberty
//      model, macros.lib), then qflow's blifFanout buffers and resizes until nothing changes;
//   3. yosys (netlist.ys) turns the buffered BLIF into Verilog for the timer (netlist.v);
//   4. OpenSTA (sta.tcl): setup and hold with an ideal clock at the architecture's period;
//   5. the same for mw_pe alone (pe.ys, pe_sta.tcl): the PE's own critical path.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "common/files.hpp"
#include "mapwright/flows/asic.hpp"
#include "mapwright/support/error.hpp"
#include "synth/asic_macros.hpp"
#include "synth/tool_run.hpp"
#include "synth/yosys_reports.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using core::SpecError;

using asic_detail::MacroShape;
using asic_detail::num;

namespace {

const char* const kBlifFanout = "/usr/lib/qflow/bin/blifFanout";

/// A tool failure of one step: the kind, the message, the log.
struct StepError {
  AsicFailureKind kind = AsicFailureKind::None;
  std::string message;
  std::string log;
};

/// The yosys script of the accelerator: per-module library figures, then the flat mapped BLIF.
std::string asic_script(const std::vector<std::string>& files, const SynthParams& p,
                        const LibertyInfo& lib) {
  std::ostringstream s;
  s << "# written by mapwright synth --liberty; run in this folder: yosys -s asic.ys\n"
    << "read_verilog -sv -DSYNTHESIS";
  for (const auto& f : files) s << " rtl/" << f;
  s << "\nhierarchy -check -top mw_accel" << synth_detail::chparams(p) << "\n"
    << "proc\n"
    << "tee -q -o macros.il dump *mw_sram* *mw_buf\n"
    << "blackbox *mw_sram* *mw_buf\n"
    // The hierarchy of the generic flow (synth.cpp): mw_fold_seq, mw_cmd and mw_buffers inside
    // their parents, every other module its own.
    << "setattr -mod -set keep_hierarchy 1 *\n"
       "setattr -mod -unset keep_hierarchy *mw_fold_seq *mw_cmd *mw_buffers\n"
       "flatten\n"
       "setattr -mod -unset keep_hierarchy *\n"
       "synth -top mw_accel -noshare -run begin:fine\n"
       // The command FIFOs' memories (combinational reads) become flip-flops.
       "memory_map\n"
       "opt -fast -full\n"
       "techmap\n"
       "opt -fast\n"
       "read_liberty -lib cells.lib\n"
       "dfflibmap -liberty cells.lib\n"
       "abc -liberty cells.lib\n"
       "opt_clean\n"
       "hierarchy -check\n"
       "check -assert\n"
       "setattr -mod -unset top\n"
       "tee -q -o stat_lib.json stat -json\n"
       "hierarchy -top mw_accel\n"
       "flatten\n"
       "opt_clean -purge\n"
       "setundef -zero\n"
    << "write_blif -buf " << lib.buffer << " " << lib.buffer_in << " " << lib.buffer_out
    << " mapped.blif\n";
  return s.str();
}

/// The yosys script of one PE alone.
std::string pe_script(const LibertyInfo& lib) {
  std::ostringstream s;
  s << "# written by mapwright synth --liberty: mw_pe alone; run here: yosys -s pe.ys\n"
       "read_verilog -sv -DSYNTHESIS rtl/mw_pe.sv\n"
       "hierarchy -check -top mw_pe\n"
       "synth -top mw_pe -flatten -noshare\n"
       "read_liberty -lib cells.lib\n"
       "dfflibmap -liberty cells.lib\n"
       "abc -liberty cells.lib\n"
       "opt_clean -purge\n"
       "setundef -zero\n"
    << "write_blif -buf " << lib.buffer << " " << lib.buffer_in << " " << lib.buffer_out
    << " pe_mapped.blif\n";
  return s.str();
}

/// The yosys script turning a buffered BLIF into the timer's Verilog.
std::string netlist_script(const std::string& blif, const std::string& top, const std::string& v,
                           const std::string& stat, const LibertyInfo& lib) {
  std::ostringstream s;
  s << "# written by mapwright synth --liberty\n"
       "read_liberty -lib cells.lib\n"
       "read_liberty -lib macros.lib\n"
    << "read_blif " << blif << "\nhierarchy -top " << top
    << "\nopt_clean -purge\n"
       "insbuf -buf "
    << lib.buffer << " " << lib.buffer_in << " " << lib.buffer_out << "\n"
    << "tee -q -o " << stat
    << " stat -json\n"
    // -norename: the flattened nets keep their names, which name their RTL instance.
    << "write_verilog -noattr -noexpr -norename " << v << "\n";
  return s.str();
}

/// The timer's script: setup and hold at `period_ns` (in the library's time unit).
std::string sta_script(const std::string& netlist, const std::string& top, double period,
                       bool registered_ports) {
  std::ostringstream s;
  s << "# written by mapwright synth --liberty; run in this folder: sta -no_splash -exit "
       "<this file>\n"
       "read_liberty cells.lib\n"
       "read_liberty macros.lib\n"
    << "read_verilog " << netlist << "\nlink_design " << top << "\n"
    << "create_clock -name clk -period " << num(period) << " [get_ports clk_i]\n";
  if (registered_ports)
    s << "set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk_i]]\n"
         "set_output_delay 0 -clock clk [all_outputs]\n";
  s << "puts \"mapwright-section setup\"\n"
       "report_checks -path_delay max -group_count 5 -endpoint_count 1 -fields {net} -digits 4\n"
       "puts \"mapwright-section hold\"\n"
       "report_checks -path_delay min -group_count 1 -fields {net} -digits 4\n"
       "puts \"mapwright-section totals\"\n"
       "report_wns -digits 4\n"
       "report_tns -digits 4\n"
       "puts \"mapwright-section end\"\n";
  return s.str();
}

/// Runs a tool; a failure becomes a StepError with the first error line of `log_name` (or of
/// its output).
StepError run_step(const fs::path& dir, const std::vector<std::string>& argv,
                   const std::string& out_name, const std::string& package, double& seconds,
                   double& peak) {
  const synth_detail::ToolRun r = synth_detail::run_tool(dir, argv, out_name);
  StepError e;
  e.log = (dir / out_name).string();
  if (r.spawn_error != 0) {
    e.kind = AsicFailureKind::NoTool;
    e.message =
        synth_detail::not_started(fs::path(argv[0]).filename().string(), package, r.spawn_error);
    return e;
  }
  seconds += r.seconds;
  peak = std::max(peak, r.peak_rss_mib);
  if (r.ok()) return e;
  e.kind = AsicFailureKind::ToolError;
  const std::string text = read_text(dir / out_name);
  e.message = synth_detail::first_error_line(text);
  if (e.message.empty()) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.find("Error") != std::string::npos || line.find("error") != std::string::npos) {
        e.message = line;
        break;
      }
  }
  if (e.message.empty()) e.message = argv[0] + " " + r.exit_text();
  return e;
}

/// blifFanout over `in_blif` until a pass changes nothing (at most 16 passes): the result in
/// `out_blif`, the passes' output appended to fanout.log.
StepError buffer_fanout(const fs::path& dir, const std::string& in_blif,
                        const std::string& out_blif, const LibertyInfo& lib, AsicResult& r,
                        bool count) {
  // The clock is left as it is: the timer takes it as ideal, and a buffered clock would make the
  // gate-level simulation race (flops on different clock buffers in one time step).
  write_atomic(dir / "nofanout", "vdd\ngnd\nclk_i\n");
  fs::copy_file(dir / in_blif, dir / out_blif, fs::copy_options::overwrite_existing);
  std::ofstream all(dir / "fanout.log", std::ios::app);
  static const std::regex changed_re(R"re(Number of gates changed:\s*(\d+))re");
  for (int pass = 1; pass <= 16; ++pass) {
    fs::rename(dir / out_blif, dir / "fanout_in.blif");
    double peak = 0;
    // qflow's settings for the OSU libraries (osu018.sh): 100 ps latency per gate, 20 fF load.
    StepError e = run_step(
        dir,
        {kBlifFanout, "-l",         "100", "-c",          "20", "-I",           "nofanout",
         "-s",        "nullstring", "-p",  "cells.lib",   "-S", "-p",           "macros.lib",
         "-b",        lib.buffer,   "-i",  lib.buffer_in, "-o", lib.buffer_out, "fanout_in.blif",
         out_blif},
        "fanout_pass.log", "qflow", r.fanout_seconds, peak);
    const std::string text = read_text(dir / "fanout_pass.log");
    all << "== pass " << pass << " (" << in_blif << ")\n" << text;
    if (e.kind != AsicFailureKind::None) {
      e.log = (dir / "fanout.log").string();
      return e;
    }
    std::smatch m;
    if (!std::regex_search(text, m, changed_re)) {
      e.kind = AsicFailureKind::BadReport;
      e.message = "blifFanout printed no 'Number of gates changed'";
      e.log = (dir / "fanout.log").string();
      return e;
    }
    const long long changed = std::stoll(m[1]);
    if (count) {
      r.buffers_added += changed;
      r.fanout_passes = pass;
    }
    if (changed == 0) break;
  }
  fs::remove(dir / "fanout_in.blif");
  return {};
}

/// Cells, flops and library area of a flat module's `stat -json`.
void flat_figures(const std::string& stat, const LibertyInfo& lib, long long& cells,
                  long long& flops, double& area) {
  const auto mods = synth_detail::parse_stat_json(stat);
  cells = flops = 0;
  area = 0;
  for (const auto& [name, rep] : mods)
    for (const auto& [type, n] : rep.cells_by_type) {
      const auto a = lib.cell_area.find(type);
      if (a == lib.cell_area.end()) continue;  // a macro
      cells += n;
      area += a->second * static_cast<double>(n);
      if (lib.flop_cells.count(type)) flops += n;
    }
}

/// Per source module figures from the hierarchical `stat -json`, instances counted from the top.
std::vector<AsicModule> module_figures(const std::string& stat, const LibertyInfo& lib) {
  const auto mods = synth_detail::parse_stat_json(stat);
  std::map<std::string, long long> inst;
  inst["mw_accel"] = 1;
  // Instances: a module's count is the sum over its parents (the hierarchy is a DAG; settle it
  // by repeating as deep as it can be).
  for (size_t round = 0; round < mods.size() + 1; ++round) {
    std::map<std::string, long long> next;
    next["mw_accel"] = 1;
    for (const auto& [name, rep] : mods)
      for (const auto& [type, n] : rep.cells_by_type)
        if (mods.count(type)) next[type] += n * (inst.count(name) ? inst[name] : 0);
    if (next == inst) break;
    inst = next;
  }
  std::map<std::string, AsicModule> by_src;
  std::vector<std::string> order;
  for (const auto& [name, rep] : mods) {
    const std::string src = synth_detail::source_module(name);
    if (src == "mw_sram" || src == "mw_buf") continue;
    const long long k = inst.count(name) ? inst[name] : 0;
    if (!by_src.count(src)) order.push_back(src);
    AsicModule& m = by_src[src];
    m.name = src;
    m.instances += k;
    for (const auto& [type, n] : rep.cells_by_type) {
      const auto a = lib.cell_area.find(type);
      if (a == lib.cell_area.end()) continue;
      m.cells += n * k;
      m.area_um2 += a->second * static_cast<double>(n * k);
      if (lib.flop_cells.count(type)) m.flops += n * k;
      m.cells_by_type[type] += n * k;
    }
  }
  std::vector<AsicModule> out;
  for (const auto& n : order) out.push_back(by_src[n]);
  std::sort(out.begin(), out.end(),
            [](const AsicModule& a, const AsicModule& b) { return a.area_um2 > b.area_um2; });
  return out;
}

/// The sections of a timer's output.
StaFigures read_sta(const std::string& text, double period) {
  const auto section = [&](const std::string& name) {
    const std::string tag = "mapwright-section " + name + "\n";
    const size_t a = text.find(tag);
    if (a == std::string::npos) throw std::runtime_error("sta output has no " + name + " report");
    const size_t b = text.find("mapwright-section", a + tag.size());
    return text.substr(a + tag.size(),
                       b == std::string::npos ? std::string::npos : b - a - tag.size());
  };
  StaFigures f;
  f.period_ns = period;
  f.paths = asic_detail::parse_report_checks(section("setup"));
  const std::vector<TimingPath> hold = asic_detail::parse_report_checks(section("hold"));
  if (f.paths.empty()) throw std::runtime_error("sta reported no setup path");
  if (!hold.empty()) f.hold_path = hold.front();
  f.worst_slack_ns = f.paths.front().slack_ns;
  f.hold_slack_ns = hold.empty() ? 0 : hold.front().slack_ns;
  const std::string totals = section("totals");
  f.total_negative_ns = asic_detail::parse_sta_value(totals, "tns");
  f.min_period_ns = period - f.worst_slack_ns;
  return f;
}

}  // namespace

double AsicResult::min_period_ns() const {
  return std::max(design.min_period_ns, sram_min_period_ns);
}

double AsicResult::critical_over_pe() const {
  return pe.min_period_ns > 0 ? design.min_period_ns / pe.min_period_ns : 0;
}

double AsicResult::target_slack_ns() const {
  return 1000.0 / clock_mhz - min_period_ns() * delay_factor;
}

double AsicResult::target_fmax_mhz() const {
  return 1000.0 / (min_period_ns() * delay_factor);
}

AsicOutcome implement_asic(const core::Arch& arch, const AsicOptions& o, const std::string& rtl_dir,
                           const std::string& out_dir) {
  AsicOutcome out;
  AsicResult& r = out.result;
  r.arch = arch.name;
  r.params = synth_params(arch, "--arch");
  r.clock_mhz = arch.clock_mhz;
  const std::string lib_path = resolve_liberty(o.liberty);
  r.liberty = check_liberty(lib_path, "--liberty");
  const NodeScaling scaling =
      load_node_scaling(o.scaling_file.empty() ? default_node_scaling_path() : o.scaling_file);
  const TechNode& from = scaling.node(o.library_node, "--library-node");
  const TechNode& to = scaling.node(o.target_node, "--node");
  r.library_node = from.name;
  r.target_node = to.name;
  r.delay_factor = scaling.delay_factor(from, to);
  r.area_factor = scaling.area_factor(from, to);
  r.scaling_source = scaling.source;
  const std::string sram_path = o.sram_file.empty() ? default_sram_timing_path() : o.sram_file;
  const SramTiming sram = load_sram_timing(sram_path);
  if (sram.node != from.name)
    throw SpecError(sram_path, "node", sram.node,
                    "the macros' timing must be at the library's node (" + from.name + ")");
  r.sram_source = sram.source;
  r.sram_min_period_ns = sram.minimum_period_ns;
  // The period timed at the library's node: the architecture's, scaled back from its node.
  const double period_ns = 1000.0 / arch.clock_mhz / r.delay_factor;
  const double period = period_ns / r.liberty.time_unit_ns;

  const fs::path src = rtl_dir.empty() ? synth_detail::default_rtl_dir() : fs::path(rtl_dir);
  const std::vector<std::string> files = synth_detail::rtl_files(src);
  const fs::path dir =
      out_dir.empty() ? fs::path("synth-" + arch.name + "-" + r.liberty.name) : fs::path(out_dir);
  make_output_dir(dir);
  FolderLock lock(dir, "--out");
  synth_detail::copy_rtl(src, dir, files);
  if (std::error_code same; !fs::equivalent(lib_path, dir / "cells.lib", same))  // not itself
    fs::copy_file(lib_path, dir / "cells.lib", fs::copy_options::overwrite_existing);
  r.out_dir = dir.string();
  for (const char* stale : {"netlist.v", "pe_netlist.v", "asic.json"}) {
    std::error_code ec;
    fs::remove(dir / stale, ec);
  }
  const auto fail = [&](const StepError& e) {
    out.failure = e.kind;
    out.message = e.message;
    out.log = e.log;
    return out;
  };
  if (::access(kBlifFanout, X_OK) != 0)
    return fail({AsicFailureKind::NoTool,
                 std::string(kBlifFanout) +
                     " not found: install the Debian package 'qflow' (apt-get install qflow)",
                 ""});
  double ypeak = 0, speak = 0;
  // yosys on <name>.ys in the folder: output in <name>.out, log (named on a failure) <name>.log.
  const auto yosys = [&](const std::string& name) {
    StepError e = run_step(dir, {"yosys", "-q", "-l", name + ".log", "-s", name + ".ys"},
                           name + ".out", "yosys", r.yosys_seconds, ypeak);
    if (e.kind == AsicFailureKind::ToolError) e.log = (dir / (name + ".log")).string();
    return e;
  };
  try {
    write_atomic(dir / "asic.ys", asic_script(files, r.params, r.liberty));
    if (StepError e = yosys("asic"); e.kind != AsicFailureKind::None) return fail(e);
    const std::vector<MacroShape> shapes = asic_detail::parse_macros(read_text(dir / "macros.il"));
    r.modules = module_figures(read_text(dir / "stat_lib.json"), r.liberty);
    write_atomic(dir / "macros.lib", asic_detail::macros_liberty(shapes, sram));
    const std::string mapped = read_text(dir / "mapped.blif");
    for (const MacroShape& s : shapes) {
      AsicMacro m = s.macro;
      size_t pos = 0;
      const std::string key = ".subckt " + s.yosys_name + " ";
      for (; (pos = mapped.find(key, pos)) != std::string::npos; pos += key.size()) ++m.instances;
      if (m.instances > 0) r.macros.push_back(m);
    }
    write_atomic(dir / "named.blif", asic_detail::rewrite_blif(mapped, shapes));
    if (StepError e = buffer_fanout(dir, "named.blif", "buffered.blif", r.liberty, r, true);
        e.kind != AsicFailureKind::None)
      return fail(e);
    write_atomic(dir / "netlist.ys", netlist_script("buffered.blif", "mw_accel", "netlist.v",
                                                    "stat_final.json", r.liberty));
    if (StepError e = yosys("netlist"); e.kind != AsicFailureKind::None) return fail(e);
    flat_figures(read_text(dir / "stat_final.json"), r.liberty, r.cells, r.flops, r.area_um2);
    if (o.sim_netlist) {
      // The buffered netlist for simulation: the same cells, mw_accel's ports as buses again.
      write_atomic(dir / "netlist_sim.ys",
                   "# written by mapwright synth --liberty\n"
                   "read_liberty -lib cells.lib\nread_liberty -lib macros.lib\n"
                   "read_blif -wideports buffered.blif\nhierarchy -top mw_accel\n"
                   "write_verilog -noattr -noexpr netlist_sim.v\n"
                   "design -reset\n"
                   // The library's cells as yosys models them from their liberty functions.
                   "read_liberty -ignore_miss_func cells.lib\n"
                   "write_verilog -noattr cells_sim.v\n");
      if (StepError e = yosys("netlist_sim"); e.kind != AsicFailureKind::None) return fail(e);
      write_atomic(dir / "macros_sim.v", asic_detail::macros_sim_verilog(shapes));
      for (const char* f :
           {"netlist_sim.v", "cells_sim.v", "macros_sim.v", "rtl/mw_sram.sv", "rtl/mw_buf.sv"})
        r.sim_files.push_back(fs::absolute(dir / f).string());
    }
    // The PE alone, through the same steps.
    write_atomic(dir / "pe.ys", pe_script(r.liberty));
    if (StepError e = yosys("pe"); e.kind != AsicFailureKind::None) return fail(e);
    if (StepError e = buffer_fanout(dir, "pe_mapped.blif", "pe_buffered.blif", r.liberty, r, false);
        e.kind != AsicFailureKind::None)
      return fail(e);
    write_atomic(dir / "pe_netlist.ys", netlist_script("pe_buffered.blif", "mw_pe", "pe_netlist.v",
                                                       "pe_stat.json", r.liberty));
    if (StepError e = yosys("pe_netlist"); e.kind != AsicFailureKind::None) return fail(e);
    // Timing.
    write_atomic(dir / "sta.tcl", sta_script("netlist.v", "mw_accel", period, false));
    write_atomic(dir / "pe_sta.tcl", sta_script("pe_netlist.v", "mw_pe", period, true));
    for (const auto& [tcl, log] :
         {std::pair{"sta.tcl", "sta.log"}, std::pair{"pe_sta.tcl", "pe_sta.log"}}) {
      if (StepError e = run_step(dir, {"sta", "-no_splash", "-exit", tcl}, log, "opensta",
                                 r.sta_seconds, speak);
          e.kind != AsicFailureKind::None)
        return fail(e);
      const std::string text = read_text(dir / log);
      if (const size_t at = text.find("Error:"); at != std::string::npos)
        return fail({AsicFailureKind::ToolError, text.substr(at, text.find('\n', at) - at),
                     (dir / log).string()});
    }
    r.design = read_sta(read_text(dir / "sta.log"), period);
    r.pe = read_sta(read_text(dir / "pe_sta.log"), period);
  } catch (const SpecError&) {
    throw;
  } catch (const std::exception& e) {  // a report written differently than expected
    return fail({AsicFailureKind::BadReport, e.what(), r.out_dir});
  }
  // Times in ns from here on.
  for (StaFigures* f : {&r.design, &r.pe}) {
    const double u = r.liberty.time_unit_ns;
    f->period_ns *= u;
    f->worst_slack_ns *= u;
    f->total_negative_ns *= u;
    f->min_period_ns *= u;
    f->hold_slack_ns *= u;
    for (TimingPath* p = f->paths.data(); p != f->paths.data() + f->paths.size(); ++p) {
      p->arrival_ns *= u;
      p->required_ns *= u;
      p->slack_ns *= u;
    }
  }
  r.yosys_peak_mib = ypeak;
  r.sta_peak_mib = speak;
  write_atomic(dir / "asic.json", asic_json(r).dump(2) + "\n");
  return out;
}

}  // namespace mapwright::flows
