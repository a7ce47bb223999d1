#pragma once
/// \file asic.hpp
/// `mapwright synth --liberty osu018|FILE`: the accelerator mapped to a real standard-cell
/// library and timed. yosys maps the logic and the flip-flops to the library's cells (memories
/// stay macros: every mw_sram, and on an unbanked array every multi-ported mw_buf, is a black
/// box; the command FIFOs' small memories become flip-flops); qflow's blifFanout buffers every
/// net whose load the library's gates cannot drive (as qflow's own synthesis does, iterated
/// until nothing changes); OpenSTA times the buffered netlist with an ideal clock on clk_i. The
/// macros get a liberty model written from configs/tech/sram-timing.yaml (cited there). Each
/// tool runs as a child process with an argument vector, its log kept in the run folder; every
/// script is written there and names only files in it (the liberty file is copied in).
///
/// The figures come at the library's node (180 nm for OSU 0.18 um) and scaled to the
/// architecture's node by the published equations in configs/tech/node-scaling.yaml
/// (Stillmaker and Baas 2017).
///
/// Simplifications (stated in the reports): no placement or wires (the timer sees pin loads
/// only), an ideal clock (no clock tree, no skew), the ports of mw_accel unconstrained (the SoC
/// registers them), the macros' timing as configs/tech/sram-timing.yaml states it.

#include <map>
#include <set>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/synth.hpp"

namespace mapwright::flows {

/// One node of the scaling equations (configs/tech/node-scaling.yaml).
struct TechNode {
  std::string name;            ///< "180", "HP45", ...
  int nm = 0;                  ///< Feature size.
  double supply_v = 0;         ///< The supply the flows scale at (0: none given).
  std::vector<double> delay;   ///< d3, d2, d1, d0 (delay = d3 V^3 + d2 V^2 + d1 V + d0).
  std::vector<double> energy;  ///< e2, e1, e0.
  std::vector<double> power;   ///< p2, p1, p0.
};

/// The scaling equations of Stillmaker and Baas (Integration 58, 2017) as the data file holds
/// them.
struct NodeScaling {
  std::string source;                     ///< The citation.
  std::map<std::string, TechNode> nodes;  ///< By name.
  /// area[A][B]: the area at feature size B of one unit of area at feature size A (by nm).
  std::map<int, std::map<int, double>> area;

  /// The node named `name`. Throws core::SpecError (naming `where`, key node) when absent or
  /// without a supply.
  const TechNode& node(const std::string& name, const std::string& where) const;
  /// Delay at `to` of a delay measured at `from`, each at its own supply: the ratio of the
  /// paper's delay polynomials.
  double delay_factor(const TechNode& from, const TechNode& to) const;
  /// The same for energy.
  double energy_factor(const TechNode& from, const TechNode& to) const;
  /// Area at `to` of one unit of area at `from` (the paper's table). Throws core::SpecError
  /// for a pair the table lacks.
  double area_factor(const TechNode& from, const TechNode& to) const;
};

/// Reads a node-scaling file. Throws core::SpecError naming the file, key and value.
NodeScaling load_node_scaling(const std::string& path);
/// configs/tech/node-scaling.yaml of the shipped configs.
std::string default_node_scaling_path();

/// The SRAM macros' timing model (configs/tech/sram-timing.yaml).
struct SramTiming {
  std::string source;               ///< The citation and the simplifications' summary.
  std::string node;                 ///< The node its figures are at ("180").
  double clock_to_output_ns = 0;    ///< Clock to read data (registered read), or address to
                                    ///< data (mw_buf's combinational read).
  double output_transition_ns = 0;  ///< The read data's transition.
  double minimum_period_ns = 0;     ///< The macro's own minimum cycle.
  double setup_ns = 0;              ///< Setup at its inputs.
  double hold_ns = 0;               ///< Hold at its inputs.
  double input_capacitance_pf = 0;  ///< Each input pin's load.
};
/// Reads an SRAM timing file. Throws core::SpecError naming the file, key and value.
SramTiming load_sram_timing(const std::string& path);
/// configs/tech/sram-timing.yaml of the shipped configs.
std::string default_sram_timing_path();

/// What a liberty file offers the flow.
struct LibertyInfo {
  std::string name;                   ///< The library's name.
  std::string path;                   ///< The file read.
  long long cells = 0;                ///< Cells.
  std::string buffer;                 ///< The smallest-area buffer (function = its one input).
  std::string buffer_in, buffer_out;  ///< Its pins.
  std::string time_unit;              ///< As the file states it ("1ns").
  double time_unit_ns = 1;            ///< Its unit in ns.
  std::map<std::string, double> cell_area;  ///< Cell -> area (the file's unit, um^2 for OSU).
  std::set<std::string> flop_cells;         ///< Cells with an ff group.
};
/// Reads the cells of a liberty file and checks that the flow can use it: a flip-flop, an
/// inverter, a buffer, and delay tables (cell_rise). Throws core::SpecError naming the file
/// (`where`, key "liberty") and the reason.
LibertyInfo check_liberty(const std::string& path, const std::string& where);
/// The liberty file a --liberty value names: "osu018" (the Debian package qflow-tech-osu018's
/// OSU 0.18 um library) or a path. Throws core::SpecError (--liberty) when it is not there,
/// naming the package for osu018.
std::string resolve_liberty(const std::string& value);

/// One path of a timing report.
struct TimingPath {
  std::string startpoint;              ///< The launching register's output net (or the port).
  std::string endpoint;                ///< The capturing register's data net (or the port).
  std::vector<std::string> instances;  ///< The RTL instances its nets belong to, in order
                                       ///< ("u_compute.u_seq", "u_compute.u_array.u_mesh...").
  double arrival_ns = 0;               ///< Data arrival (at the library's node).
  double required_ns = 0;              ///< Data required.
  double slack_ns = 0;                 ///< Required minus arrival.
  long long cells = 0;                 ///< Cells on it.
};

/// Static timing of one netlist.
struct StaFigures {
  double period_ns = 0;           ///< The clock period timed (the architecture's, at the
                                  ///< library's node).
  double worst_slack_ns = 0;      ///< Setup: worst slack.
  double total_negative_ns = 0;   ///< Setup: sum of the negative slacks.
  double min_period_ns = 0;       ///< period - worst slack: the shortest clock the logic meets.
  double hold_slack_ns = 0;       ///< Hold: worst slack.
  std::vector<TimingPath> paths;  ///< The worst setup paths, distinct endpoints, worst first.
  TimingPath hold_path;           ///< The worst hold path.
};

/// One source module's figures after library mapping (before fanout buffering, which works on
/// the flattened design).
struct AsicModule {
  std::string name;                                ///< Source module ("mw_pe").
  long long instances = 0;                         ///< Instances in the design.
  long long cells = 0;                             ///< Its own library cells over its instances.
  long long flops = 0;                             ///< Its flip-flops (cells with an ff group).
  double area_um2 = 0;                             ///< Its cells' library area.
  std::map<std::string, long long> cells_by_type;  ///< Library cell -> count.
};

/// One macro kind of the design.
struct AsicMacro {
  std::string cell;     ///< The cell name the flow gave it ("mw_sram_2048x8").
  std::string kind;     ///< "sram" (registered read) or "buffer" (mw_buf, combinational).
  long long depth = 0;  ///< Words.
  long long width = 0;  ///< Bits per word.
  long long read_ports = 1, write_ports = 1;  ///< Ports (mw_buf's lanes).
  long long instances = 0;                    ///< Instances in the design.
};

/// The result of a library mapping and its timing.
struct AsicResult {
  std::string arch;                 ///< Architecture name.
  SynthParams params;               ///< RTL parameters.
  LibertyInfo liberty;              ///< The library.
  std::string library_node;         ///< Its node in the scaling file ("180").
  std::string target_node;          ///< The architecture's node ("HP45").
  double delay_factor = 1;          ///< Library node -> target node.
  double area_factor = 1;           ///< Library node -> target node.
  std::string scaling_source;       ///< The scaling equations' citation.
  std::string sram_source;          ///< The macros' timing model's citation.
  double clock_mhz = 0;             ///< The architecture's clock (at the target node).
  std::vector<AsicModule> modules;  ///< Per source module, library-mapped, before buffering.
  std::vector<AsicMacro> macros;    ///< The memory macros.
  long long cells = 0;              ///< Cells of the buffered netlist.
  long long flops = 0;              ///< Its flip-flops.
  long long buffers_added = 0;      ///< Cells blifFanout added or resized (summed passes).
  int fanout_passes = 0;            ///< blifFanout passes until nothing changed.
  double area_um2 = 0;              ///< Library area of the buffered netlist (no macros).
  StaFigures design;                ///< The whole accelerator.
  StaFigures pe;                    ///< One PE alone (mw_pe as the top, its ports registered).
  double sram_min_period_ns = 0;    ///< The macro model's own minimum cycle (library node).
  double yosys_seconds = 0, fanout_seconds = 0, sta_seconds = 0;  ///< Wall time per tool.
  double yosys_peak_mib = 0, sta_peak_mib = 0;                    ///< Peak memory.
  std::string out_dir;  ///< Folder with the scripts, logs, netlists and reports.
  /// With AsicOptions::sim_netlist: the files Verilator simulates the buffered netlist from
  /// (netlist_sim.v with mw_accel's bus ports, cells_sim.v: the library's cells as yosys models
  /// them from the liberty functions, macros_sim.v, and the RTL's mw_sram.sv and mw_buf.sv).
  std::vector<std::string> sim_files;

  /// The shortest clock period the design meets at the library's node: its logic's, or the
  /// macros' own cycle when longer.
  double min_period_ns() const;
  /// The design's critical path over the PE's own (both by STA delay).
  double critical_over_pe() const;
  /// Slack at the architecture's clock, at the target node (ns): its period minus the scaled
  /// minimum period.
  double target_slack_ns() const;
  /// The highest clock the design meets at the target node.
  double target_fmax_mhz() const;
};

/// Why a library mapping has no result.
enum class AsicFailureKind {
  None,       ///< It has one.
  NoTool,     ///< yosys, sta (opensta) or blifFanout (qflow) is missing: names the package.
  ToolError,  ///< A tool failed: its first error line, its log kept.
  BadReport   ///< A tool finished but its report could not be read.
};

/// An outcome: a result (timing met or not), or a typed failure.
struct AsicOutcome {
  AsicFailureKind failure = AsicFailureKind::None;  ///< None: `result` is valid.
  std::string message;                              ///< For a failure: what happened.
  std::string log;                                  ///< For a failure: the log kept.
  AsicResult result;                                ///< The result.
};

/// Options of the library flow beside SynthOptions'.
struct AsicOptions {
  std::string liberty = "osu018";    ///< "osu018" or a liberty file.
  std::string library_node = "180";  ///< The library's node in the scaling file.
  std::string target_node = "HP45";  ///< The architecture's node (its energies are 45 nm).
  std::string scaling_file;          ///< "" = configs/tech/node-scaling.yaml.
  std::string sram_file;             ///< "" = configs/tech/sram-timing.yaml.
  bool sim_netlist = false;          ///< Also write the netlist's simulation files.
};

/// Maps and times `arch`'s accelerator in `out_dir`. Never throws for a tool problem (typed
/// failure); throws core::SpecError for bad input (a liberty file the flow cannot use, an
/// architecture without RTL parameters, a node the scaling file lacks).
AsicOutcome implement_asic(const core::Arch& arch, const AsicOptions& options,
                           const std::string& rtl_dir, const std::string& out_dir);

/// The text report.
void print_asic(const AsicResult& r, std::ostream& out);
/// The JSON form (also written to <out>/asic.json).
nlohmann::json asic_json(const AsicResult& r);

/// `mapwright synth --liberty`: exit 0 when the architecture's clock is met at the target node,
/// 3 when it is not (the result printed: negative slack, the clock it meets), 1 for a missing or
/// failing tool, 2 for bad input.
int cmd_asic(const SynthOptions& o, const AsicOptions& a, std::ostream& out);

namespace asic_detail {
/// The setup or hold paths of an OpenSTA `report_checks -fields {net}` text, in report order.
/// Nets name their RTL instance as yosys flattened them ("$flatten\u_compute.\u_seq.x").
std::vector<TimingPath> parse_report_checks(const std::string& text);
/// "wns -1.23" / "tns -4.5" lines of report_wns / report_tns: the value after `key`.
double parse_sta_value(const std::string& text, const std::string& key);
/// The RTL instance path of a flattened net name ("" at the top).
std::string net_instance(const std::string& net);
}  // namespace asic_detail

}  // namespace mapwright::flows
