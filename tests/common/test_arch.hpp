#pragma once
// Every field of an architecture compared, for the tests of flows that build an Arch in memory
// and write its YAML for the RTL workers (sweep and codesign points): loading the YAML must give
// the same architecture.
#include <gtest/gtest.h>

#include <string>

#include "mapwright/core/arch.hpp"

namespace mapwright::test_arch {

/// Expects `got` and `want` equal in every field; failures name `what`.
inline void expect_same_arch(const core::Arch& got, const core::Arch& want,
                             const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.dataflows, want.dataflows);
  EXPECT_EQ(got.input_buf_bytes, want.input_buf_bytes);
  EXPECT_EQ(got.weight_buf_bytes, want.weight_buf_bytes);
  EXPECT_EQ(got.accum_buf_bytes, want.accum_buf_bytes);
  EXPECT_EQ(got.buffer_banks, want.buffer_banks);
  EXPECT_EQ(got.dram_bytes_per_cycle, want.dram_bytes_per_cycle);
  EXPECT_EQ(got.dram_latency_cycles, want.dram_latency_cycles);
  EXPECT_EQ(got.dram_port, want.dram_port);
  EXPECT_EQ(got.clock_mhz, want.clock_mhz);
  EXPECT_EQ(got.operand_bits, want.operand_bits);
  EXPECT_EQ(got.acc_bits, want.acc_bits);
  EXPECT_EQ(got.energy.mac_pj, want.energy.mac_pj);
  EXPECT_EQ(got.energy.input_buf_pj, want.energy.input_buf_pj);
  EXPECT_EQ(got.energy.weight_buf_pj, want.energy.weight_buf_pj);
  EXPECT_EQ(got.energy.accum_buf_pj, want.energy.accum_buf_pj);
  EXPECT_EQ(got.energy.dram_pj_per_byte, want.energy.dram_pj_per_byte);
  EXPECT_EQ(got.energy.pe_static_pj, want.energy.pe_static_pj);
  EXPECT_EQ(got.energy.capacity_scaling, want.energy.capacity_scaling);
  EXPECT_EQ(got.energy.source, want.energy.source);
}

}  // namespace mapwright::test_arch
