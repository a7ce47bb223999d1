// The data the library flow (asic.cpp) reads besides the design: the node scaling equations
// (configs/tech/node-scaling.yaml), the SRAM macros' timing model (configs/tech/sram-timing.yaml)
// and the liberty file's cells (checked for what the flow needs before any tool runs).

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/asic.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using core::SpecError;

namespace {

std::string tech_file(const std::string& name) {
  return (fs::path(core::configs_dir()) / "tech" / name).string();
}

/// A list of `n` finite coefficients at `key` of node map `m`.
std::vector<double> coefficients(const YAML::Node& m, const std::string& key,
                                 const std::string& where, const std::string& path, size_t n) {
  const YAML::Node l = m[key];
  const std::string k = core::join_key(path, key);
  if (!l || !l.IsSequence() || l.size() != n)
    throw SpecError(where, k, core::node_text(l),
                    "expected a list of " + std::to_string(n) + " coefficients");
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(core::double_of(l[i], where, k + "[" + std::to_string(i) + "]", -1e7, 1e7));
  return out;
}

double poly(const std::vector<double>& c, double v) {
  double y = 0;
  for (double x : c) y = y * v + x;
  return y;
}

}  // namespace

std::string default_node_scaling_path() {
  return tech_file("node-scaling.yaml");
}
std::string default_sram_timing_path() {
  return tech_file("sram-timing.yaml");
}

NodeScaling load_node_scaling(const std::string& path) {
  const YAML::Node root = core::load_yaml_file(path);
  core::require_map(root, path, "");
  core::check_keys(root, path, "", {"source", "nodes", "area"});
  NodeScaling s;
  s.source = core::get_string(root, "source", path, "", "", true);
  const YAML::Node nodes = root["nodes"];
  if (!nodes || !nodes.IsMap() || nodes.size() == 0)
    throw SpecError(path, "nodes", core::node_text(nodes), "expected a map of nodes");
  for (const auto& kv : nodes) {
    TechNode n;
    n.name = kv.first.as<std::string>();
    const std::string p = core::join_key("nodes", n.name);
    core::require_map(kv.second, path, p);
    core::check_keys(kv.second, path, p, {"nm", "supply_v", "delay", "energy", "power"});
    n.nm = static_cast<int>(core::get_int_in(kv.second, "nm", path, p, 0, 1, 1000, true));
    n.supply_v = core::get_double_in(kv.second, "supply_v", path, p, 0, 0, 5);
    n.delay = coefficients(kv.second, "delay", path, p, 4);
    n.energy = coefficients(kv.second, "energy", path, p, 3);
    n.power = coefficients(kv.second, "power", path, p, 3);
    if (n.supply_v > 0 && !(poly(n.delay, n.supply_v) > 0 && poly(n.energy, n.supply_v) > 0))
      throw SpecError(path, p + ".supply_v", std::to_string(n.supply_v),
                      "the node's delay or energy equation is not positive at this supply");
    s.nodes.emplace(n.name, n);
  }
  const YAML::Node area = root["area"];
  if (!area || !area.IsMap())
    throw SpecError(path, "area", core::node_text(area), "expected a map of rows by nm");
  for (const auto& row : area) {
    const std::string rk = "area." + row.first.as<std::string>();
    const int from = static_cast<int>(core::int_of(row.first, path, rk, 1, 1000));
    core::require_map(row.second, path, rk);
    for (const auto& cell : row.second) {
      const std::string ck = rk + "." + cell.first.as<std::string>();
      const int to = static_cast<int>(core::int_of(cell.first, path, ck, 1, 1000));
      s.area[from][to] = core::double_of(cell.second, path, ck, 1e-6, 1e6);
    }
  }
  return s;
}

const TechNode& NodeScaling::node(const std::string& name, const std::string& where) const {
  const auto it = nodes.find(name);
  if (it == nodes.end()) {
    std::string known;
    for (const auto& [k, n] : nodes)
      if (n.supply_v > 0) known += (known.empty() ? "" : ", ") + k;
    throw SpecError(where, "node", name, "not a node of the scaling file (usable: " + known + ")");
  }
  if (it->second.supply_v <= 0)
    throw SpecError(where, "node", name, "the scaling file gives this node no supply_v");
  return it->second;
}

double NodeScaling::delay_factor(const TechNode& from, const TechNode& to) const {
  return poly(to.delay, to.supply_v) / poly(from.delay, from.supply_v);
}

double NodeScaling::energy_factor(const TechNode& from, const TechNode& to) const {
  return poly(to.energy, to.supply_v) / poly(from.energy, from.supply_v);
}

double NodeScaling::area_factor(const TechNode& from, const TechNode& to) const {
  const auto r = area.find(from.nm);
  if (r != area.end())
    if (const auto c = r->second.find(to.nm); c != r->second.end()) return c->second;
  throw SpecError("node scaling", "area", std::to_string(from.nm) + " -> " + std::to_string(to.nm),
                  "the area table has no such pair");
}

SramTiming load_sram_timing(const std::string& path) {
  const YAML::Node root = core::load_yaml_file(path);
  core::require_map(root, path, "");
  core::check_keys(root, path, "",
                   {"source", "node", "clock_to_output_ns", "output_transition_ns",
                    "minimum_period_ns", "setup_ns", "hold_ns", "input_capacitance_pf"});
  SramTiming t;
  t.source = core::get_string(root, "source", path, "", "", true);
  t.node = core::get_string(root, "node", path, "", "", true);
  t.clock_to_output_ns = core::get_double_in(root, "clock_to_output_ns", path, "", 0, 0, 1e3, true);
  t.output_transition_ns =
      core::get_double_in(root, "output_transition_ns", path, "", 0, 0, 1e3, true);
  t.minimum_period_ns = core::get_double_in(root, "minimum_period_ns", path, "", 0, 0, 1e4, true);
  t.setup_ns = core::get_double_in(root, "setup_ns", path, "", 0, -1e3, 1e3, true);
  t.hold_ns = core::get_double_in(root, "hold_ns", path, "", 0, -1e3, 1e3, true);
  t.input_capacitance_pf =
      core::get_double_in(root, "input_capacitance_pf", path, "", 0, 0, 100, true);
  return t;
}

std::string resolve_liberty(const std::string& value) {
  std::error_code ec;
  if (value == "osu018") {
    const std::string p = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";
    if (!fs::is_regular_file(p, ec))
      throw SpecError("--liberty", "liberty", value,
                      "the OSU 0.18 um library is not installed: install the Debian package "
                      "'qflow-tech-osu018' (apt-get install qflow-tech-osu018)");
    return p;
  }
  if (value.empty() || !fs::is_regular_file(value, ec))
    throw SpecError("--liberty", "liberty", value, "no such file (osu018 or a liberty file)");
  return value;
}

LibertyInfo check_liberty(const std::string& path, const std::string& where) {
  std::ifstream in(path);
  if (!in) throw SpecError(where, "liberty", path, "cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  LibertyInfo info;
  info.path = path;
  static const std::regex lib_re(R"re(library\s*\(\s*"?([A-Za-z0-9_.\-]+)"?\s*\))re");
  std::smatch m;
  if (!std::regex_search(text, m, lib_re))
    throw SpecError(where, "liberty", path, "not a liberty file: no library (...) group");
  info.name = m[1];
  static const std::regex unit_re(R"re(time_unit\s*:\s*"?\s*([0-9.]+)\s*(ps|ns)\s*"?)re");
  if (std::regex_search(text, m, unit_re)) {
    info.time_unit = m[1].str() + m[2].str();
    info.time_unit_ns = std::stod(m[1]) * (m[2] == "ps" ? 1e-3 : 1.0);
  } else {
    info.time_unit = "1ns";
  }
  // Cells: each "cell (NAME)" up to the next; its area, whether it holds an ff group, and the
  // function of a single-output, single-input cell.
  static const std::regex cell_re(R"re(\n\s*cell\s*\(\s*"?([A-Za-z0-9_]+)"?\s*\))re");
  std::vector<std::pair<std::string, size_t>> starts;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), cell_re);
       it != std::sregex_iterator(); ++it)
    starts.emplace_back((*it)[1], static_cast<size_t>(it->position()));
  info.cells = static_cast<long long>(starts.size());
  if (starts.empty()) throw SpecError(where, "liberty", path, "the library has no cells");
  bool flop = false, inverter = false;
  double buffer_area = 1e300;
  static const std::regex area_re(R"re(\barea\s*:\s*([0-9.eE+\-]+))re");
  static const std::regex pin_re(
      R"re(pin\s*\(\s*"?([A-Za-z0-9_]+)"?\s*\)\s*\{[^{}]*?direction\s*:\s*"?(input|output)"?)re");
  static const std::regex func_re(
      R"re(function\s*:\s*"\s*\(?\s*(!?)\s*([A-Za-z0-9_]+)\s*\)?\s*'?\s*")re");
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1].second : text.size();
    const std::string body = text.substr(starts[i].second, end - starts[i].second);
    const double a = std::regex_search(body, m, area_re) ? std::stod(m[1]) : 0;
    info.cell_area[starts[i].first] = a;
    if (body.find("ff (") != std::string::npos || body.find("ff(") != std::string::npos) {
      flop = true;
      info.flop_cells.insert(starts[i].first);
      continue;
    }
    std::vector<std::string> ins, outs;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), pin_re);
         it != std::sregex_iterator(); ++it)
      ((*it)[2] == "input" ? ins : outs).push_back((*it)[1]);
    if (ins.size() != 1 || outs.size() != 1) continue;
    if (!std::regex_search(body, m, func_re) || m[2] != ins[0]) continue;
    if (m[1] == "!") {
      inverter = true;
      continue;
    }
    if (a < buffer_area && starts[i].first.find("CLK") == std::string::npos) {
      buffer_area = a;
      info.buffer = starts[i].first;
      info.buffer_in = ins[0];
      info.buffer_out = outs[0];
    }
  }
  if (!flop) throw SpecError(where, "liberty", path, "the library has no flip-flop (ff group)");
  if (!inverter) throw SpecError(where, "liberty", path, "the library has no inverter");
  if (info.buffer.empty()) throw SpecError(where, "liberty", path, "the library has no buffer");
  if (text.find("cell_rise") == std::string::npos)
    throw SpecError(where, "liberty", path, "the library has no timing (no cell_rise table)");
  return info;
}

}  // namespace mapwright::flows
