// The compute controller's bank of a padding lane (rtl/mw_compute.sv, bank_floor_mod) against the
// floor modulo it replaced, both Verilated from one generated module per bank count
// (tests/rtl/CMakeLists.txt copies the function from mw_compute.sv): every address in a window
// around zero, addresses with every top byte and random lower bytes, and the extremes.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>

#include "Vfm_top.h"
#include "verilated.h"

namespace {

constexpr unsigned kBanks[] = {MW_BANK_COUNTS};
constexpr int kCounts = sizeof(kBanks) / sizeof(kBanks[0]);

class FloorMod : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = std::make_unique<VerilatedContext>();
    top_ = std::make_unique<Vfm_top>(ctx_.get());
  }
  void TearDown() override { top_->final(); }

  // Byte k of a wide output port (Verilator's 32-bit words, the least significant first).
  template <typename Wide>
  static unsigned byte_of(const Wide& w, int k) {
    return (w[k / 4] >> (8 * (k % 4))) & 0xFFu;
  }

  // Evaluates one address; counts (and reports the first few) differences from the reference.
  void check(int32_t v) {
    top_->v_i = static_cast<uint32_t>(v);
    top_->eval();
    for (int k = 0; k < kCounts; ++k) {
      const unsigned bank = byte_of(top_->bank_o, k);
      const unsigned ref = byte_of(top_->ref_o, k);
      const int64_t b = kBanks[k];
      const auto expected = static_cast<unsigned>(((static_cast<int64_t>(v) % b) + b) % b);
      if (bank != ref || ref != expected) {
        if (++wrong_ < 10)
          ADD_FAILURE() << "address " << v << ", " << kBanks[k] << " banks: bank_floor_mod " << bank
                        << ", the % form " << ref << ", expected " << expected;
      }
    }
    ++checked_;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vfm_top> top_;
  long long wrong_ = 0;
  long long checked_ = 0;
};

// fm_top's outputs hold 8 bits per bank count; beyond 64 bits Verilator makes them arrays of
// 32-bit words, which byte_of reads.
static_assert(kCounts * 8 > 64, "byte_of reads the outputs as wide ports");

TEST_F(FloorMod, EqualsTheFloorModuloOnEveryAddressNearZero) {
  const int32_t half = 1 << 21;
  for (int32_t v = -half; v < half; ++v) check(v);
  EXPECT_EQ(wrong_, 0) << "of " << checked_ << " addresses";
}

TEST_F(FloorMod, EqualsTheFloorModuloForEveryTopByteAndTheExtremes) {
  std::mt19937 rng(7);
  const int per_byte = 8192;
  for (uint32_t top = 0; top < 256; ++top)
    for (int i = 0; i < per_byte; ++i)
      check(static_cast<int32_t>((top << 24) | (rng() & 0xFFFFFFu)));
  for (int64_t v : {INT64_C(-2147483648), INT64_C(-2147483647), INT64_C(2147483647),
                    INT64_C(2147483646), INT64_C(-16777216), INT64_C(16777215), INT64_C(-65536),
                    INT64_C(65535), INT64_C(-256), INT64_C(255), INT64_C(-1), INT64_C(0)})
    check(static_cast<int32_t>(v));
  EXPECT_EQ(wrong_, 0) << "of " << checked_ << " addresses";
}

}  // namespace
