#pragma once
// The interface between mw_accel and the testbench logic around it (cmd_driver.hpp,
// dram_model.hpp), in plain C++ (no SystemC, no Verilator types): the register map, the job a
// harness runs, the DUT outputs sampled in a cycle and the inputs driven for the next one, and
// what a state machine waits for between the edges it must see. Shared by the SystemC testbench
// (accel_tb.hpp), the plain C++ Verilator harness (plain_harness.hpp) and the evaluator.
// Private to systemc/: never include it from a public header.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/systemc/command_program.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"

namespace mapwright::systemc::detail {

/// Register map of mw_accel (rtl/README.md).
enum Csr : unsigned {
  kCsrRows = 0,
  kCsrCols,
  kCsrInBytes,
  kCsrWtBytes,
  kCsrAccWords,
  kCsrBeatBytes,
  kCsrMagic,
  kCsrStatus,
  kCsrMacs,
  kCsrSteps,
  kCsrFolds,
  kCsrInRd,
  kCsrInWr,
  kCsrWtRd,
  kCsrWtWr,
  kCsrAccRd,
  kCsrAccWr,
  kCsrDramIn,
  kCsrDramWt,
  kCsrDramOut,
  kCsrDramPsumWr,
  kCsrDramPsumRd,
  kCsrLoadIn,
  kCsrLoadWt,
  kCsrReload,
  kCsrSpill,
  kCsrStore,
  kCsrArrayBusy,
  kCsrArrayStall,
  kCsrDmaBusy,
  kCsrDramStall,
  kCsrCycle,
  kCsrFirst,
  kCsrLast,
  kCsrDmaDone,
  kCsrCmpDone,
  kCsrDmaQueue,
  kCsrCmpQueue,
  kCsrDecoder,
  kCsrMaxBursts,
  kCsrBufBanks,
  kCsrInBankStall,
  kCsrWtBankStall,
  kCsrAccBankStall,
  kNumCsr
};

/// Widest DRAM beat (mw_accel allows BeatBytes up to 64), in 32-bit words.
constexpr int kMaxBeatWords = 16;

/// One run handed to the testbench.
struct TbJob {
  const CommandProgram* prog = nullptr;  ///< Commands and DMA segment lists.
  std::vector<uint8_t>* dram = nullptr;  ///< DRAM contents (tensors in DRAM layout).
  int latency = 1;                       ///< DRAM latency, cycles.
  /// The run's options: the DRAM's stall chance and seed, and the test hooks of the DRAM
  /// (drop_dram_responses; misflag_burst_last, cleared once done) and of the command driver
  /// (unheld_command).
  RtlRunOptions options;
  bool done = false;    ///< The driver saw the accelerator idle after the last word.
  long long edges = 0;  ///< Rising edges from the job's start to its end.
  std::string failure;  ///< DRAM-side protocol failure ("" = none).
  std::array<uint64_t, kNumCsr> csr{};  ///< Registers read at the end.
};

/// DUT outputs sampled in a cycle (before its rising edge).
struct DutOut {
  bool cmd_ready = false;
  bool idle = false;
  uint64_t csr_rdata = 0;
  bool req_valid = false, req_write = false;
  uint32_t req_bytes = 0, req_id = 0;
  uint64_t req_addr = 0;  ///< Bursts port: the burst's first byte.
  bool wr_valid = false;
  const uint32_t* wr_data = nullptr;  ///< BeatBytes / 4 words (read only when a beat is taken).
};

/// DUT inputs driven for the next cycle. The `*_dirty` flags tell a harness which groups changed
/// (a SystemC harness writes only those signals).
struct DutIn {
  bool cmd_valid = false, cmd_last = false;
  uint64_t cmd_data = 0;
  uint32_t csr_addr = 0;
  bool rd_valid = false, rd_last = false;
  std::array<uint32_t, kMaxBeatWords> rd_data{};
  bool wr_ready = true, wr_done = false;
  bool cmd_dirty = true, csr_dirty = true, rd_dirty = true, rd_data_dirty = true, wr_dirty = true;
};

/// What a state machine waits for when it has no edge due.
enum class Wake : uint8_t {
  Edge,      ///< the edge at cycle `due`
  CmdReady,  ///< cmd_ready rising (or the edge at `due`)
  Idle,      ///< idle rising
  ReqValid,  ///< dram_req_valid rising
  Never      ///< nothing (job over)
};

constexpr uint64_t kNoDue = ~0ull;

}  // namespace mapwright::systemc::detail
