#pragma once
/// \file arch.hpp
/// The accelerator: a Rows x Cols int8 systolic array with input, weight and int32 accumulator
/// buffers, a DRAM port with bandwidth and latency, and an energy table. Loaded from
/// `configs/arch/<name>.yaml` (the single source of truth for the surrogate and the RTL).

#include <string>
#include <vector>

#include "mapwright/support/configs_dir.hpp"

namespace mapwright::core {

/// Level-1 dataflow of the array. What the array's rows, columns and stream carry:
/// - WS (weight-stationary): rows = reduction (C, R, S), columns = output channels K, stream =
///   output pixels (N, P, Q); the weights are held in the PEs.
/// - OS (output-stationary): rows = output pixels, columns = K, stream = reduction; the partial
///   sums stay in the PEs.
/// - IS (input-stationary): rows = reduction, columns = output pixels, stream = K; the input
///   pixels are held in the PEs and the weights stream past them.
enum class Dataflow { WS, OS, IS };
const char* dataflow_name(Dataflow d);
/// "ws", "os" or "is" -> the dataflow; false for any other text.
bool parse_dataflow(const std::string& text, Dataflow& out);
/// The names known to parse_dataflow, for error messages: "ws, os, is".
const char* known_dataflows();

/// How the DRAM port serves a DMA transfer (arch key dram.port).
/// - Packed: the transfer's bytes come as one packed stream, ceil(bytes / bytes_per_cycle)
///   beats after the latency, wherever they lie in DRAM (what the RTL's DMA engine and DRAM
///   model do).
/// - Bursts: one burst per contiguous DRAM run of the tile (core::dram_segments), ceil(run /
///   bytes_per_cycle) beats each, back to back after the latency; the port realigns each run to
///   the first byte of its first beat, and enough bursts are in flight to hide the latency.
///   The surrogate and the reference schedule time it; the RTL does not implement it yet.
enum class DramPort { Packed, Bursts };
const char* dram_port_name(DramPort p);
/// "packed" or "bursts" -> the port; false for any other text.
bool parse_dram_port(const std::string& text, DramPort& out);

/// Energy per event, in picojoules. Defaults cite their source in `source`.
struct EnergyTable {
  double mac_pj = 0.3;              ///< One int8 x int8 MAC with int32 add.
  double input_buf_pj = 2.5;        ///< One byte read or written in the input buffer.
  double weight_buf_pj = 2.5;       ///< One byte read or written in the weight buffer.
  double accum_buf_pj = 10.0;       ///< One int32 word read or written in the accumulator.
  double dram_pj_per_byte = 160.0;  ///< One byte moved to or from DRAM.
  double pe_static_pj = 0.02;       ///< Clock/leakage of one enabled PE for one cycle.
  std::string source;               ///< Where the numbers come from.
  /// energy.capacity_scaling (off by default): each buffer's per-access energy scales with its
  /// capacity (sram_energy_scale); the three buffer energies above are then the scaled values
  /// and the ones below the configured values, which hold for a 32 KiB buffer.
  bool capacity_scaling = false;
  double input_buf_ref_pj = 2.5;   ///< Configured input buffer pJ/byte (32 KiB).
  double weight_buf_ref_pj = 2.5;  ///< Configured weight buffer pJ/byte (32 KiB).
  double accum_buf_ref_pj = 10.0;  ///< Configured accumulator pJ/word (32 KiB).
};

/// One accelerator, immutable after `load_arch` validated it.
struct Arch {
  std::string name;  ///< Config name (file stem).
  int rows = 16;     ///< Array rows.
  int cols = 16;     ///< Array columns.
  std::vector<Dataflow> dataflows{Dataflow::WS, Dataflow::OS, Dataflow::IS};  ///< Allowed.
  long long input_buf_bytes = 256 * 1024;   ///< Input (activation) buffer.
  long long weight_buf_bytes = 256 * 1024;  ///< Weight buffer.
  long long accum_buf_bytes = 64 * 1024;    ///< Accumulator buffer (int32 words x 4).
  /// Banks of the input and weight buffers (word a in bank a mod banks, one read per bank and
  /// cycle, registered read) and of each half of the accumulator (core::accum_bank_problem),
  /// or 0 for buffers every lane reads in the same cycle.
  int buffer_banks = 0;
  double dram_bytes_per_cycle = 16;       ///< DRAM bandwidth.
  int dram_latency_cycles = 100;          ///< Latency of one DRAM transfer.
  DramPort dram_port = DramPort::Packed;  ///< How a transfer's runs are served.
  double clock_mhz = 1000;                ///< Clock, for seconds and power in reports.
  int operand_bits = 8;                   ///< Operand width (the RTL supports 8).
  int acc_bits = 32;                      ///< Accumulator width (the RTL supports 32).
  EnergyTable energy;                     ///< Energy per event.

  bool supports(Dataflow d) const;
};

/// Per-access energy of an SRAM of `bytes` relative to a 32 KiB one: e(C) = a + b * sqrt(C) with
/// C in KiB, a = 1.959 and b = 3.066 pJ per 64-bit access, the least-squares fit of Horowitz,
/// "Computing's energy problem", ISSCC 2014, 45 nm (64-bit cache access: 8 KB 10 pJ, 32 KB
/// 20 pJ, 1 MB 100 pJ; the fit gives 10.6, 19.3, 100.1). Fitted over 8 KiB..1 MiB; sizes outside
/// that range are extrapolated along the same curve.
double sram_energy_scale(long long bytes);
/// With energy.capacity_scaling, sets each buffer's per-access energy from its configured value
/// times sram_energy_scale of its capacity; without, leaves `a` as it is.
void apply_capacity_scaling(Arch& a);

/// Bursts the RTL's DMA keeps in flight at most on the bursts port (mw_dma's MaxBursts).
constexpr int kRtlMaxBursts = 256;

/// Throws SpecError (key dram.latency_cycles, `where` the file or flag) unless the RTL can run
/// this architecture's DRAM port as the surrogate times it: packed always; bursts when
/// latency + 1 bursts may be in flight (latency_cycles + 1 <= kRtlMaxBursts).
void require_rtl_dram_port(const Arch& a, const std::string& where);

/// Loads and validates an architecture from a YAML file; errors name the file, key, value.
Arch load_arch_file(const std::string& path);
/// Resolves `name_or_path`: an existing file path, or a name under the configs/arch folder
/// (support/configs_dir.hpp says which folder that is).
Arch load_arch(const std::string& name_or_path);
/// The YAML file load_arch reads for `name_or_path` (the file itself, or the named
/// architecture's file under configs/arch); "" when there is none.
std::string arch_file_path(const std::string& name_or_path);
/// Names of the architectures in configs/arch.
std::vector<std::string> arch_names();

}  // namespace mapwright::core
