// Architecture specs: strict YAML loading and validation of the array, buffers, DRAM port and
// energy table, and lookup of named configs under configs/arch.
#include "mapwright/core/arch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace fs = std::filesystem;

namespace mapwright::core {

const char* dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::WS:
      return "ws";
    case Dataflow::OS:
      return "os";
    case Dataflow::IS:
      return "is";
  }
  return "?";
}

bool parse_dataflow(const std::string& text, Dataflow& out) {
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS})
    if (text == dataflow_name(d)) {
      out = d;
      return true;
    }
  return false;
}

const char* known_dataflows() {
  return "ws, os, is";
}

void require_rtl_dram_port(const Arch& a, const std::string& where) {
  if (a.dram_port == DramPort::Packed || a.dram_latency_cycles + 1 <= kRtlMaxBursts) return;
  throw SpecError(where, "dram.latency_cycles", std::to_string(a.dram_latency_cycles),
                  "the RTL's bursts port keeps at most " + std::to_string(kRtlMaxBursts) +
                      " bursts in flight and needs latency + 1 to move one beat per cycle as "
                      "the surrogate times it; architecture '" +
                      a.name +
                      "' can be scored on the surrogate (eval, search, the run without RTL) "
                      "but not verified on RTL");
}

const char* dram_port_name(DramPort p) {
  return p == DramPort::Bursts ? "bursts" : "packed";
}

bool parse_dram_port(const std::string& text, DramPort& out) {
  for (DramPort p : {DramPort::Packed, DramPort::Bursts})
    if (text == dram_port_name(p)) {
      out = p;
      return true;
    }
  return false;
}

bool Arch::supports(Dataflow d) const {
  return std::find(dataflows.begin(), dataflows.end(), d) != dataflows.end();
}

std::vector<std::string> arch_names() {
  std::vector<std::string> names;
  const std::string root = configs_dir();
  const fs::path dir = fs::path(root) / "arch";
  // An empty list is never an answer: a wrong MAPWRIGHT_CONFIGS is named with its value.
  const char* env = std::getenv("MAPWRIGHT_CONFIGS");
  const bool from_env = env && *env;
  auto refuse = [&](const std::string& why) {
    if (from_env)
      throw SpecError("MAPWRIGHT_CONFIGS", "MAPWRIGHT_CONFIGS", root,
                      why +
                          " (the environment variable must name a configs folder holding "
                          "arch/<name>.yaml; unset it to use the built-in configs)");
    throw SpecError(root, "arch", dir.string(), why);
  };
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) refuse("has no arch/ folder");
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  if (ec) refuse("cannot list " + dir.string() + ": " + ec.message());
  if (names.empty()) refuse("has no architectures (no *.yaml in " + dir.string() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

std::string arch_file_path(const std::string& name_or_path) {
  // error_code forms: a name the OS refuses (too long, ...) is "no such file", not an
  // uncaught filesystem_error (found by fuzz/regress_suite_fuzz).
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  const fs::path named = fs::path(configs_dir()) / "arch" / (name_or_path + ".yaml");
  if (fs::is_regular_file(named, ec)) return named.string();
  return "";
}

Arch load_arch(const std::string& name_or_path) {
  if (const std::string f = arch_file_path(name_or_path); !f.empty()) return load_arch_file(f);
  std::string known;
  for (const auto& n : arch_names()) known += (known.empty() ? "" : ", ") + n;
  throw SpecError("--arch", "arch", name_or_path,
                  "no such file or named architecture (known: " + known + ")");
}

namespace {

// Ranges of every numeric key (the getters refuse anything outside them, never wrap):
//   array.rows, array.cols          2 .. 64 (what the RTL array generates)
//   buffers.*_kib                   1 .. 65536 (64 MiB)
//   dram.bytes_per_cycle            whole number 1 .. 1024
//   dram.latency_cycles             0 .. 100000
//   dram.port                       packed | bursts (optional, default packed)
//   clock_mhz                       (0, 1e5]
//   precision.operand_bits/acc_bits 1 .. 64 (and then only 8 / 32 are supported)
//   energy.* (pJ)                   0 .. 1e6, finite

/// array: rows and cols (required).
void read_array(const YAML::Node& root, const std::string& path, Arch& a) {
  const YAML::Node arr = root["array"];
  if (!arr) throw SpecError(path, "array", "", "required key is missing");
  check_keys(arr, path, "array", {"rows", "cols"});
  a.rows = static_cast<int>(get_int_in(arr, "rows", path, "array", 0, 2, 64, true));
  a.cols = static_cast<int>(get_int_in(arr, "cols", path, "array", 0, 2, 64, true));
  if (a.rows < 2 || a.rows > 64)
    throw SpecError(path, "array.rows", std::to_string(a.rows), "must be between 2 and 64");
  if (a.cols < 2 || a.cols > 64)
    throw SpecError(path, "array.cols", std::to_string(a.cols), "must be between 2 and 64");
}

/// dataflows (optional): a non-empty list of ws/os/is, duplicates dropped.
void read_dataflows(const YAML::Node& root, const std::string& path, Arch& a) {
  const YAML::Node dfs = root["dataflows"];
  if (!dfs) return;
  if (!dfs.IsSequence() || dfs.size() == 0)
    throw SpecError(path, "dataflows", node_text(dfs), "expected a non-empty list of ws/os/is");
  a.dataflows.clear();
  for (size_t i = 0; i < dfs.size(); ++i) {
    const std::string t = scalar_of(dfs[i], path, "dataflows[" + std::to_string(i) + "]");
    Dataflow df;
    if (!parse_dataflow(t, df))
      throw SpecError(path, "dataflows", t,
                      std::string("unknown dataflow (known: ") + known_dataflows() + ")");
    if (!a.supports(df)) a.dataflows.push_back(df);
  }
}

/// buffers: input, weight and accumulator KiB (required), banks (optional, 0 = multi-ported).
void read_buffers(const YAML::Node& root, const std::string& path, Arch& a) {
  const YAML::Node buf = root["buffers"];
  if (!buf) throw SpecError(path, "buffers", "", "required key is missing");
  check_keys(buf, path, "buffers", {"input_kib", "weight_kib", "accum_kib", "banks"});
  const long long max_kib = 64 * 1024;
  const long long in_kib = get_int_in(buf, "input_kib", path, "buffers", 0, 1, max_kib, true);
  const long long wt_kib = get_int_in(buf, "weight_kib", path, "buffers", 0, 1, max_kib, true);
  const long long ac_kib = get_int_in(buf, "accum_kib", path, "buffers", 0, 1, max_kib, true);
  a.input_buf_bytes = in_kib * 1024;
  a.weight_buf_bytes = wt_kib * 1024;
  a.accum_buf_bytes = ac_kib * 1024;
  a.buffer_banks = static_cast<int>(get_int_in(buf, "banks", path, "buffers", 0, 0, 128));
}

/// buffers.banks, once the array and the DRAM beat are known: every lane of a row of
/// consecutive words and every byte of a DRAM beat needs its own bank (mw_accel's BufBanks).
void check_banks(const std::string& path, const Arch& a) {
  if (a.buffer_banks == 0) return;
  const long long need =
      std::max<long long>({a.rows, a.cols, static_cast<long long>(a.dram_bytes_per_cycle)});
  if (a.buffer_banks < need)
    throw SpecError(
        path, "buffers.banks", std::to_string(a.buffer_banks),
        "must be 0 (multi-ported) or at least max(rows, cols, dram.bytes_per_cycle) = " +
            std::to_string(need) + ", and at most 128");
}

/// dram: bytes per cycle and latency (required), port (optional).
void read_dram(const YAML::Node& root, const std::string& path, Arch& a) {
  const YAML::Node dram = root["dram"];
  if (!dram) throw SpecError(path, "dram", "", "required key is missing");
  check_keys(dram, path, "dram", {"bytes_per_cycle", "latency_cycles", "port"});
  a.dram_bytes_per_cycle = get_double_in(dram, "bytes_per_cycle", path, "dram", 0, 1, 1024, true);
  if (!(a.dram_bytes_per_cycle >= 1 && a.dram_bytes_per_cycle <= 1024) ||
      a.dram_bytes_per_cycle != static_cast<long long>(a.dram_bytes_per_cycle))
    throw SpecError(path, "dram.bytes_per_cycle", node_text(dram["bytes_per_cycle"]),
                    "must be a whole number of bytes between 1 and 1024");
  a.dram_latency_cycles =
      static_cast<int>(get_int_in(dram, "latency_cycles", path, "dram", 0, 0, 100000, true));
  if (a.dram_latency_cycles < 0 || a.dram_latency_cycles > 100000)
    throw SpecError(path, "dram.latency_cycles", std::to_string(a.dram_latency_cycles),
                    "must be between 0 and 100000");
  if (dram["port"]) {
    const std::string t = scalar_of(dram["port"], path, "dram.port");
    if (!parse_dram_port(t, a.dram_port))
      throw SpecError(path, "dram.port", t, "unknown DRAM port (known: packed, bursts)");
  }
}

/// precision (optional): only 8-bit operands and 32-bit accumulators are supported.
void read_precision(const YAML::Node& root, const std::string& path, Arch& a) {
  const YAML::Node pr = root["precision"];
  if (!pr) return;
  check_keys(pr, path, "precision", {"operand_bits", "acc_bits"});
  a.operand_bits = static_cast<int>(get_int_in(pr, "operand_bits", path, "precision", 8, 1, 64));
  a.acc_bits = static_cast<int>(get_int_in(pr, "acc_bits", path, "precision", 32, 1, 64));
  if (a.operand_bits != 8)
    throw SpecError(path, "precision.operand_bits", std::to_string(a.operand_bits),
                    "only 8-bit operands are supported");
  if (a.acc_bits != 32)
    throw SpecError(path, "precision.acc_bits", std::to_string(a.acc_bits),
                    "only 32-bit accumulators are supported");
}

/// energy (optional): per-operation energies in pJ and their source; the source defaults to
/// the published numbers the defaults come from.
void read_energy(const YAML::Node& root, const std::string& path, Arch& a) {
  if (const YAML::Node en = root["energy"]) {
    check_keys(
        en, path, "energy",
        {"mac_pj", "input_buf_pj_per_byte", "weight_buf_pj_per_byte", "accum_buf_pj_per_word",
         "dram_pj_per_byte", "pe_static_pj_per_cycle", "source", "capacity_scaling"});
    auto& e = a.energy;
    const double max_pj = 1e6;  // Every energy is finite and in [0, 1e6] pJ.
    auto pj = [&](const char* key, double fallback) {
      return get_double_in(en, key, path, "energy", fallback, 0, max_pj);
    };
    e.mac_pj = pj("mac_pj", e.mac_pj);
    e.input_buf_pj = pj("input_buf_pj_per_byte", e.input_buf_pj);
    e.weight_buf_pj = pj("weight_buf_pj_per_byte", e.weight_buf_pj);
    e.accum_buf_pj = pj("accum_buf_pj_per_word", e.accum_buf_pj);
    e.dram_pj_per_byte = pj("dram_pj_per_byte", e.dram_pj_per_byte);
    e.pe_static_pj = pj("pe_static_pj_per_cycle", e.pe_static_pj);
    e.source = get_string(en, "source", path, "energy", "");
    e.capacity_scaling = get_bool(en, "capacity_scaling", path, "energy", false);
    const std::pair<const char*, double> vals[] = {
        {"energy.mac_pj", e.mac_pj},
        {"energy.input_buf_pj_per_byte", e.input_buf_pj},
        {"energy.weight_buf_pj_per_byte", e.weight_buf_pj},
        {"energy.accum_buf_pj_per_word", e.accum_buf_pj},
        {"energy.dram_pj_per_byte", e.dram_pj_per_byte},
        {"energy.pe_static_pj_per_cycle", e.pe_static_pj}};
    for (const auto& [k, v] : vals)
      if (!(v >= 0)) throw SpecError(path, k, std::to_string(v), "must be >= 0");
  }
  if (a.energy.source.empty())
    a.energy.source =
        "Horowitz, 'Computing's energy problem', ISSCC 2014 (45 nm): 8b mult 0.2 pJ + 32b add "
        "0.1 pJ; 32 KB SRAM 20 pJ per 64-bit access; DRAM 1.3-2.6 nJ per 64-bit access";
}

}  // namespace

Arch load_arch_file(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "",
             {"name", "description", "array", "buffers", "dram", "clock_mhz", "dataflows",
              "precision", "energy"});
  Arch a;
  a.name = fs::path(path).stem().string();
  a.name = get_string(root, "name", path, "", a.name);
  get_string(root, "description", path, "", "");  // Free text, but it must be text.
  read_array(root, path, a);
  read_dataflows(root, path, a);
  read_buffers(root, path, a);
  read_dram(root, path, a);
  check_banks(path, a);
  a.clock_mhz = get_double_in(root, "clock_mhz", path, "", a.clock_mhz, 0, 1e5);
  if (!(a.clock_mhz > 0))
    throw SpecError(path, "clock_mhz", node_text(root["clock_mhz"]), "must be positive");
  read_precision(root, path, a);
  read_energy(root, path, a);
  a.energy.input_buf_ref_pj = a.energy.input_buf_pj;
  a.energy.weight_buf_ref_pj = a.energy.weight_buf_pj;
  a.energy.accum_buf_ref_pj = a.energy.accum_buf_pj;
  apply_capacity_scaling(a);
  return a;
}

double sram_energy_scale(long long bytes) {
  // Least-squares fit of Horowitz ISSCC 2014 (arch.hpp): pJ per 64-bit access = a + b sqrt(KiB).
  constexpr double a = 1.959, b = 3.066;
  const double kib = static_cast<double>(bytes) / 1024.0;
  return (a + b * std::sqrt(kib)) / (a + b * std::sqrt(32.0));
}

void apply_capacity_scaling(Arch& a) {
  EnergyTable& e = a.energy;
  if (!e.capacity_scaling) return;
  e.input_buf_pj = e.input_buf_ref_pj * sram_energy_scale(a.input_buf_bytes);
  e.weight_buf_pj = e.weight_buf_ref_pj * sram_energy_scale(a.weight_buf_bytes);
  e.accum_buf_pj = e.accum_buf_ref_pj * sram_energy_scale(a.accum_buf_bytes);
}

}  // namespace mapwright::core
