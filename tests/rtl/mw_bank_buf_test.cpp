// Tests for the banked buffer (rtl/mw_bank_buf.sv, built from rtl/mw_sram.sv), Verilated for
// seven geometries: 5 banks with 4 byte lanes, 17 banks with 16 byte lanes (the input and weight
// buffers of a 16x16 array), 17 banks with 8 word lanes, with linear write rows (WrLinear, the
// accelerator's DMA writes) 17 banks with 16 lanes and 5 banks with 4 read and 5 write lanes,
// and two sets of 5 banks with direct rows (the banked accumulator's form), with an arbitrated
// and with an unarbitrated (WrDirect) write row.
//
// A cycle-level harness streams rows of lane reads and rows of lane writes, back to back, and
// acts as a scoreboard against a C++ memory: every read lane's word must equal the reference,
// every row must be granted after exactly as many cycles as its busiest bank has lanes, and the
// stall counters must equal the sum of the rows' extra cycles. Seeds are explicit.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "Vmw_bank_buf_b17x16.h"
#include "Vmw_bank_buf_b17x8w32.h"
#include "Vmw_bank_buf_b17x16lin.h"
#include "Vmw_bank_buf_b5x4.h"
#include "Vmw_bank_buf_b5x4w5lin.h"
#include "Vmw_bank_buf_b5x6s2.h"
#include "Vmw_bank_buf_b5x6s2d.h"
#include "verilated.h"

namespace {

/// Writes `width` bits of `v` at bit `lsb` of a port (an integer up to 64 bits or a VlWide).
template <typename T>
void setField(T& port, unsigned lsb, unsigned width, uint64_t v) {
  for (unsigned b = 0; b < width; ++b) {
    const unsigned bit = lsb + b;
    const bool one = ((v >> b) & 1U) != 0;
    if constexpr (std::is_integral_v<T>) {
      const T mask = static_cast<T>(T{1} << bit);
      port = one ? static_cast<T>(port | mask) : static_cast<T>(port & ~mask);
    } else {
      const uint32_t mask = 1U << (bit % 32);
      port[bit / 32] = one ? (port[bit / 32] | mask) : (port[bit / 32] & ~mask);
    }
  }
}

template <typename T>
uint64_t getField(const T& port, unsigned lsb, unsigned width) {
  uint64_t v = 0;
  for (unsigned b = 0; b < width; ++b) {
    const unsigned bit = lsb + b;
    uint64_t one = 0;
    if constexpr (std::is_integral_v<T>) {
      one = (static_cast<uint64_t>(port) >> bit) & 1U;
    } else {
      one = (port[bit / 32] >> (bit % 32)) & 1U;
    }
    v |= one << b;
  }
  return v;
}

unsigned clog2(unsigned n) {
  unsigned b = 0;
  while ((1U << b) < n) ++b;
  return b == 0 ? 1 : b;
}

/// One row of lane accesses: enabled lanes, their addresses and (writes) words.
struct Row {
  std::vector<bool> en;
  std::vector<uint32_t> addr;
  std::vector<uint64_t> data;
};

/// The bank of word a: a mod banks, or with two sets split at word `split` (> 0) the second
/// set's banks + (a - split) mod banks for the words from `split` on.
unsigned bankOf(uint32_t a, unsigned banks, uint32_t split) {
  return (split > 0 && a >= split) ? banks + (a - split) % banks : a % banks;
}

/// Cycles the banked buffer needs for a row: its busiest bank's enabled lanes (at least one).
int expectedCycles(const Row& r, unsigned banks, uint32_t split = 0) {
  std::vector<int> per(2 * banks, 0);
  int most = 1;
  for (size_t l = 0; l < r.en.size(); ++l)
    if (r.en[l]) most = std::max(most, ++per[bankOf(r.addr[l], banks, split)]);
  return most;
}

/// A banked buffer's geometry, as its model was Verilated (the -G parameters of
/// tests/rtl/CMakeLists.txt): words, bits per word, banks, read and write lanes, and the word
/// where the second set of banks starts (0: one set; Sets = 2 otherwise).
struct Geometry {
  unsigned depth, width, banks, rd, wr;
  uint32_t split;
};

/// The geometry of each model.
Geometry geometryOf(const std::type_info& model) {
  static const std::map<std::type_index, Geometry> geometries = {
      {typeid(Vmw_bank_buf_b5x4), {64, 8, 5, 4, 4, 0}},
      {typeid(Vmw_bank_buf_b17x16), {2048, 8, 17, 16, 16, 0}},
      {typeid(Vmw_bank_buf_b17x8w32), {512, 32, 17, 8, 8, 0}},
      {typeid(Vmw_bank_buf_b17x16lin), {2048, 8, 17, 16, 16, 0}},
      {typeid(Vmw_bank_buf_b5x4w5lin), {64, 8, 5, 4, 5, 0}},
      {typeid(Vmw_bank_buf_b5x6s2), {67, 32, 5, 6, 6, 33}},
      {typeid(Vmw_bank_buf_b5x6s2d), {67, 32, 5, 6, 6, 33}}};
  return geometries.at(model);
}

/// A fresh model M, out of reset, that streams rows and checks them against a C++ memory.
template <class M>
class Harness {
 public:
  /// M with its own geometry (geometryOf).
  Harness() : Harness(geometryOf(typeid(M))) {}
  /// M, described by `g`.
  explicit Harness(const Geometry& g)
      : depth_(g.depth),
        width_(g.width),
        banks_(g.banks),
        split_(g.split),
        rd_(g.rd),
        wr_(g.wr),
        aw_(clog2(g.depth)),
        ctx_(std::make_unique<VerilatedContext>()),
        m_(std::make_unique<M>(ctx_.get())),
        mem_(g.depth, 0),
        written_(g.depth, false) {
    ctx_->fatalOnError(true);
    m_->clk_i = 0;
    m_->rst_ni = 0;
    present(nullptr, nullptr);
    m_->drd_req_i = 0;  // nor on the direct lanes
    m_->dwr_en_i = 0;
    for (int i = 0; i < 3; ++i) tick();
    m_->rst_ni = 1;
  }

  unsigned depth() const { return depth_; }
  unsigned banks() const { return banks_; }
  unsigned rdPorts() const { return rd_; }
  unsigned wrPorts() const { return wr_; }
  const std::vector<bool>& written() const { return written_; }
  uint64_t mask() const { return width_ >= 64 ? ~0ULL : ((1ULL << width_) - 1); }
  M& model() { return *m_; }

  /// Streams the read and write rows back to back (both queues advance independently, one
  /// row of each presented per cycle) and checks every grant time, word and counter. Read and
  /// write rows of one call must not share an address (the reference applies a write row at
  /// its grant).
  void run(std::deque<Row> reads, std::deque<Row> writes) {
    int rd_wait = 0, wr_wait = 0;  // cycles the presented rows have been waiting
    bool have_prev = false;
    Row prev;  // the read row granted in the previous cycle
    for (int guard = 0; !reads.empty() || !writes.empty() || have_prev; ++guard) {
      ASSERT_LT(guard, 1000000) << "no progress";
      present(reads.empty() ? nullptr : &reads.front(), writes.empty() ? nullptr : &writes.front());
      m_->eval();
      // The previous cycle's granted read row is on rd_data_o now.
      ASSERT_EQ(m_->rd_valid_o, have_prev ? 1 : 0);
      if (have_prev) {
        for (unsigned l = 0; l < rd_; ++l) {
          const uint64_t got = getField(m_->rd_data_o, l * width_, width_);
          const uint64_t want = prev.en[l] ? mem_[prev.addr[l]] : 0;
          ASSERT_EQ(got, want) << "lane " << l << " address " << prev.addr[l];
        }
        have_prev = false;
      }
      if (!reads.empty()) {
        ++rd_wait;
        const int want = expectedCycles(reads.front(), banks_, split_);
        ASSERT_EQ(m_->rd_gnt_o != 0, rd_wait == want) << "read row, cycle " << rd_wait;
        if (rd_wait == want) {
          stall_rd_ += static_cast<uint64_t>(want - 1);
          prev = reads.front();
          have_prev = true;
          reads.pop_front();
          rd_wait = 0;
        }
      }
      if (!writes.empty()) {
        ++wr_wait;
        const int want = expectedCycles(writes.front(), banks_, split_);
        ASSERT_EQ(m_->wr_gnt_o != 0, wr_wait == want) << "write row, cycle " << wr_wait;
        if (wr_wait == want) {
          stall_wr_ += static_cast<uint64_t>(want - 1);
          const Row& w = writes.front();
          for (unsigned l = 0; l < wr_; ++l)  // lane order: the higher lane's word remains
            if (w.en[l]) {
              mem_[w.addr[l]] = w.data[l] & mask();
              written_[w.addr[l]] = true;
            }
          writes.pop_front();
          wr_wait = 0;
        }
      }
      tick();
    }
    m_->rd_req_i = 0;
    m_->wr_req_i = 0;
    m_->eval();
    EXPECT_EQ(m_->rd_stall_cnt_o, stall_rd_);
    EXPECT_EQ(m_->wr_stall_cnt_o, stall_wr_);
  }

  void tick() {
    m_->clk_i = 1;
    m_->eval();
    m_->clk_i = 0;
    m_->eval();
  }

  /// Presents `read` on the read port and `write` on the write port (nullptr: no request).
  void present(const Row* read, const Row* write) {
    m_->rd_req_i = read ? 1 : 0;
    if (read) presentLanes(*read, m_->rd_en_i, m_->rd_addr_i, &m_->rd_addr_i, rd_, false);
    m_->wr_req_i = write ? 1 : 0;
    if (write) presentLanes(*write, m_->wr_en_i, m_->wr_addr_i, &m_->wr_data_i, wr_, true);
  }

  /// One unchecked cycle with `read` and `write` presented (see present).
  void cycle(const Row* read, const Row* write) {
    present(read, write);
    m_->eval();
    tick();
  }

 private:
  template <typename E, typename A, typename D>
  void presentLanes(const Row& r, E& en, A& addr, D* data, unsigned lanes, bool with_data) {
    for (unsigned l = 0; l < lanes; ++l) {
      setField(en, l, 1, r.en[l] ? 1 : 0);
      setField(addr, l * aw_, aw_, r.addr[l]);
      if (with_data) setField(*data, l * width_, width_, r.data[l]);
    }
  }

  unsigned depth_, width_, banks_;
  uint32_t split_;
  unsigned rd_, wr_, aw_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<M> m_;
  std::vector<uint64_t> mem_;
  std::vector<bool> written_;
  uint64_t stall_rd_ = 0, stall_wr_ = 0;
};

/// A random row over `lanes` lanes with addresses drawn from [lo, hi) (or, with `from`, from
/// those addresses only); about one lane in six disabled.
Row randomRow(std::mt19937_64& rng, unsigned lanes, uint32_t lo, uint32_t hi,
              const std::vector<uint32_t>* from = nullptr) {
  Row r;
  for (unsigned l = 0; l < lanes; ++l) {
    r.en.push_back(rng() % 6 != 0);
    if (from) {
      r.addr.push_back((*from)[rng() % from->size()]);
    } else {
      r.addr.push_back(lo + static_cast<uint32_t>(rng() % (hi - lo)));
    }
    r.data.push_back(rng());
  }
  return r;
}

/// Writes random rows over the whole buffer, then reads random rows of the lower half while
/// writing the upper half, then reads back everything written.
template <class M>
void randomRows(Harness<M>& h, uint64_t seed, int rows) {
  std::mt19937_64 rng(seed);
  const uint32_t half = h.depth() / 2;
  std::deque<Row> writes, reads;
  for (int i = 0; i < rows; ++i) writes.push_back(randomRow(rng, h.wrPorts(), 0, h.depth()));
  h.run({}, writes);
  std::vector<uint32_t> low;
  for (uint32_t a = 0; a < half; ++a)
    if (h.written()[a]) low.push_back(a);
  ASSERT_FALSE(low.empty());
  writes.clear();
  for (int i = 0; i < rows; ++i) {
    reads.push_back(randomRow(rng, h.rdPorts(), 0, 0, &low));
    writes.push_back(randomRow(rng, h.wrPorts(), half, h.depth()));
  }
  h.run(reads, writes);
  std::vector<uint32_t> all;
  for (uint32_t a = 0; a < h.depth(); ++a)
    if (h.written()[a]) all.push_back(a);
  reads.clear();
  for (int i = 0; i < rows; ++i) reads.push_back(randomRow(rng, h.rdPorts(), 0, 0, &all));
  h.run(reads, {});
}

/// Rows of every lane at base + i * stride: with a prime number of banks P at least the lane
/// count, a row is conflict-free unless the stride is a multiple of P, and then serial.
template <class M>
void stridedRows(Harness<M>& h, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::deque<Row> writes, reads;
  // Fill the buffer first so that every read is of a written word.
  for (uint32_t a = 0; a < h.depth(); a += h.wrPorts()) {
    Row w;
    for (unsigned l = 0; l < h.wrPorts(); ++l) {
      w.en.push_back(a + l < h.depth());
      w.addr.push_back(std::min<uint32_t>(a + l, h.depth() - 1));
      w.data.push_back(rng());
    }
    writes.push_back(w);
  }
  h.run({}, writes);
  const unsigned n = h.rdPorts();
  for (uint32_t stride = 1; stride <= 3 * h.banks() && (n - 1) * stride < h.depth(); ++stride) {
    Row r;
    const uint32_t base = static_cast<uint32_t>(rng() % (h.depth() - (n - 1) * stride));
    for (unsigned l = 0; l < n; ++l) {
      r.en.push_back(true);
      r.addr.push_back(base + l * stride);
      r.data.push_back(0);
    }
    const int cycles = expectedCycles(r, h.banks());
    EXPECT_EQ(cycles, stride % h.banks() == 0 ? static_cast<int>(n) : 1) << "stride " << stride;
    reads.push_back(r);
  }
  h.run(reads, {});
}

/// A linear write row: `count` consecutive words from `base` in the first lanes, the rest off.
Row linearRow(std::mt19937_64& rng, unsigned lanes, uint32_t base, unsigned count) {
  Row r;
  for (unsigned l = 0; l < lanes; ++l) {
    r.en.push_back(l < count);
    r.addr.push_back(l < count ? base + l : 0);
    r.data.push_back(rng());
  }
  return r;
}

/// With linear write rows: fills the buffer, then writes random linear rows (random base, so
/// rows wrap from the last bank to bank 0 at every offset, and a random prefix of lanes) into
/// the upper half while reading random rows of the lower half, then reads back everything. A
/// linear row never waits (expectedCycles is 1 for it: at most Banks consecutive words).
template <class M>
void linearRows(Harness<M>& h, uint64_t seed, int rows) {
  std::mt19937_64 rng(seed);
  const unsigned wr = h.wrPorts();
  const uint32_t half = h.depth() / 2;
  std::deque<Row> writes, reads;
  for (uint32_t a = 0; a < h.depth(); a += wr)
    writes.push_back(linearRow(rng, wr, a, std::min<unsigned>(wr, h.depth() - a)));
  h.run({}, writes);
  std::vector<uint32_t> low, all;
  for (uint32_t a = 0; a < h.depth(); ++a) (a < half ? low : all).push_back(a);
  all.insert(all.end(), low.begin(), low.end());
  writes.clear();
  for (int i = 0; i < rows; ++i) {
    reads.push_back(randomRow(rng, h.rdPorts(), 0, 0, &low));
    const unsigned count = 1 + static_cast<unsigned>(rng() % wr);
    const uint32_t base = half + static_cast<uint32_t>(rng() % (h.depth() - half - count + 1));
    writes.push_back(linearRow(rng, wr, base, count));
  }
  h.run(reads, writes);
  reads.clear();
  for (int i = 0; i < rows; ++i) reads.push_back(randomRow(rng, h.rdPorts(), 0, 0, &all));
  h.run(reads, {});
  EXPECT_EQ(h.model().wr_stall_cnt_o, 0U);
}

/// randomRows on a fresh model M.
template <class M>
void randomRows(uint64_t seed, int rows) {
  Harness<M> h;
  randomRows(h, seed, rows);
}

/// linearRows on a fresh model M.
template <class M>
void linearRows(uint64_t seed, int rows) {
  Harness<M> h;
  linearRows(h, seed, rows);
}

TEST(MwBankBuf, LinearWriteRowsSeventeenBanksSixteenLanes) {
  linearRows<Vmw_bank_buf_b17x16lin>(6, 400);
}

TEST(MwBankBuf, LinearWriteRowsAsManyLanesAsBanks) {
  linearRows<Vmw_bank_buf_b5x4w5lin>(7, 400);
}

TEST(MwBankBuf, FiveBanksFourLanesRandomRows) {
  randomRows<Vmw_bank_buf_b5x4>(1, 400);
}

TEST(MwBankBuf, SeventeenBanksSixteenByteLanesRandomRows) {
  randomRows<Vmw_bank_buf_b17x16>(2, 400);
}

TEST(MwBankBuf, SeventeenBanksEightWordLanesRandomRows) {
  randomRows<Vmw_bank_buf_b17x8w32>(3, 400);
}

// Two sets of 5 banks split at word 33 of 67 (the banked accumulator's geometry: Depth / 2):
// random rows, with reads of the lower half while the upper half is written, every word and
// grant cycle checked under the set-aware bank map; words 4 and 39 (one bank under a single
// mod-5 map) are in different sets and read in one cycle.
TEST(MwBankBuf, TwoSetsSplitAtTheMiddleRandomRows) {
  Harness<Vmw_bank_buf_b5x6s2> h;
  randomRows(h, 71, 300);
  Row r;
  for (unsigned l = 0; l < 6; ++l) {
    r.en.push_back(l < 2);
    r.addr.push_back(l == 0 ? 4 : l == 1 ? 39 : 0);
    r.data.push_back(0);
  }
  EXPECT_EQ(expectedCycles(r, 5, 33), 1);
  EXPECT_EQ(expectedCycles(r, 5), 2);  // a single set would serialize them
  h.run({r}, {});
}

// Direct rows (the DMA's side of the banked accumulator): a direct write lands in its cycle
// next to an arbitrated write row in other banks; a direct read takes its bank first, so an
// arbitrated row that wants the same bank is granted a cycle later (one stall counted), and
// both read the right words.
TEST(MwBankBuf, DirectRowsGoFirstAndArbitratedRowsWaitForTheirBanks) {
  Harness<Vmw_bank_buf_b5x6s2> h;
  auto& m = h.model();
  const uint32_t aw = clog2(67);
  // Direct write of words 40, 41 (set 1) and an arbitrated write of word 3 (set 0).
  m.dwr_en_i = 3;
  setField(m.dwr_addr_i, 0, aw, 40);
  setField(m.dwr_addr_i, aw, aw, 41);
  setField(m.dwr_data_i, 0, 32, 0xaaaa0040u);
  setField(m.dwr_data_i, 32, 32, 0xaaaa0041u);
  m.wr_req_i = 1;
  m.wr_en_i = 1;
  setField(m.wr_addr_i, 0, aw, 3);
  setField(m.wr_data_i, 0, 32, 0xbbbb0003u);
  m.eval();
  EXPECT_EQ(m.wr_gnt_o, 1);
  h.tick();
  m.dwr_en_i = 0;
  m.wr_req_i = 0;
  // Direct read of word 40 (bank 5 + 7 mod 5 = 7) and an arbitrated read of word 45 (same
  // bank) and word 3: the arbitrated row waits one cycle.
  m.drd_req_i = 1;
  m.drd_en_i = 1;
  setField(m.drd_addr_i, 0, aw, 40);
  m.rd_req_i = 1;
  m.rd_en_i = 3;
  setField(m.rd_addr_i, 0, aw, 3);
  setField(m.rd_addr_i, aw, aw, 45);
  m.eval();
  EXPECT_EQ(m.rd_gnt_o, 0);
  h.tick();
  m.drd_req_i = 0;
  m.eval();
  EXPECT_EQ(getField(m.drd_data_o, 0, 32), 0xaaaa0040u);
  EXPECT_EQ(m.rd_gnt_o, 1);
  h.tick();
  m.rd_req_i = 0;
  m.eval();
  EXPECT_EQ(m.rd_valid_o, 1);
  EXPECT_EQ(getField(m.rd_data_o, 0, 32), 0xbbbb0003u);
  EXPECT_EQ(getField(m.drd_data_o, 0, 32), 0u);  // no direct read in the previous cycle
  EXPECT_EQ(m.rd_stall_cnt_o, 1u);
  EXPECT_EQ(m.wr_stall_cnt_o, 0u);
}

// An unarbitrated write row (WrDirect, the banked accumulator's result rows): rows of lanes a
// stride apart that falls into distinct banks (at most 5 lanes, stride not a multiple of 5,
// within one set) are granted in their cycle next to direct writes and arbitrated reads of the
// other set, and every word reads back; the write stall counter stays zero.
TEST(MwBankBuf, UnarbitratedWriteRowsLandInTheirCycle) {
  Harness<Vmw_bank_buf_b5x6s2d> h;
  std::mt19937_64 rng(72);
  auto stridedWrite = [&](uint32_t lo, uint32_t hi) {
    Row r;
    const unsigned lanes = 1 + static_cast<unsigned>(rng() % 5);
    const uint32_t most = lanes > 1 ? (hi - lo - 1) / (lanes - 1) : 12;  // the row fits its set
    uint32_t stride = 0;
    while (stride % 5 == 0)
      stride = 1 + static_cast<uint32_t>(rng() % std::min<uint32_t>(most, 12));
    const uint32_t span = (lanes - 1) * stride;
    const uint32_t base = lo + static_cast<uint32_t>(rng() % (hi - lo - span));
    for (unsigned l = 0; l < 6; ++l) {
      r.en.push_back(l < lanes);
      r.addr.push_back(l < lanes ? base + l * stride : 0);
      r.data.push_back(rng());
    }
    EXPECT_EQ(expectedCycles(r, 5, 33), 1);
    return r;
  };
  std::deque<Row> writes, reads;
  for (int i = 0; i < 200; ++i) writes.push_back(stridedWrite(0, 33));
  h.run({}, writes);
  std::vector<uint32_t> low;
  for (uint32_t a = 0; a < 33; ++a)
    if (h.written()[a]) low.push_back(a);
  ASSERT_FALSE(low.empty());
  writes.clear();
  for (int i = 0; i < 200; ++i) {
    reads.push_back(randomRow(rng, 6, 0, 0, &low));
    writes.push_back(stridedWrite(33, 67));
  }
  h.run(reads, writes);
  std::vector<uint32_t> all;
  for (uint32_t a = 0; a < 67; ++a)
    if (h.written()[a]) all.push_back(a);
  reads.clear();
  for (int i = 0; i < 200; ++i) reads.push_back(randomRow(rng, 6, 0, 0, &all));
  h.run(reads, {});
  EXPECT_EQ(h.model().wr_stall_cnt_o, 0U);
}

TEST(MwBankBuf, PrimeBanksSerializeOnlyStridesThatAreMultiples) {
  Harness<Vmw_bank_buf_b17x16> h;
  stridedRows(h, 4);
}

TEST(MwBankBuf, ConflictFreeRowsStreamOnePerCycle) {
  // Sixteen consecutive words per row: one cycle per row, no stall.
  Harness<Vmw_bank_buf_b17x16> h;
  std::deque<Row> writes, reads;
  for (uint32_t a = 0; a < 1024; a += 16) {
    Row w;
    for (uint32_t l = 0; l < 16; ++l) {
      w.en.push_back(true);
      w.addr.push_back(a + l);
      w.data.push_back(a + l);
    }
    writes.push_back(w);
  }
  h.run({}, writes);
  for (Row r : writes) reads.push_back(r);
  h.run(reads, {});
  EXPECT_EQ(h.model().rd_stall_cnt_o, 0U);
  EXPECT_EQ(h.model().wr_stall_cnt_o, 0U);
}

/// A row of `lanes` lanes whose first lanes access `addrs` (words 0), the others off.
Row firstLanes(unsigned lanes, const std::vector<uint32_t>& addrs) {
  Row r;
  for (unsigned l = 0; l < lanes; ++l) {
    r.en.push_back(l < addrs.size());
    r.addr.push_back(l < addrs.size() ? addrs[l] : 0);
    r.data.push_back(0);
  }
  return r;
}

/// Expects `drive(harness)` on a fresh model M, followed by one more clock edge, to trip the SVA
/// `assertion`: Verilator stops the process (reporting on stdout, sent to stderr here).
template <class M, class Drive>
void expectTrips(const char* assertion, Drive drive) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        dup2(2, 1);  // Verilator reports a failed assertion on stdout
        Harness<M> h;
        drive(h);
        h.tick();
      },
      assertion);
}

TEST(MwBankBufDeathTest, ARowChangedBeforeItsGrantTripsTheHandshakeAssertion) {
  expectTrips<Vmw_bank_buf_b5x4>("bank_rd_hold_a", [](auto& h) {
    const Row row = firstLanes(4, {0, 5});      // same bank as lane 0: two cycles
    const Row changed = firstLanes(4, {0, 6});  // changed while waiting
    h.cycle(&row, nullptr);
    h.cycle(&changed, nullptr);
  });
}

TEST(MwBankBufDeathTest, AWriteRowThatIsNotLinearTripsItsAssertion) {
  expectTrips<Vmw_bank_buf_b5x4w5lin>("bank_wr_linear_a", [](auto& h) {
    const Row row = firstLanes(5, {10, 12});  // not 11
    h.cycle(nullptr, &row);
  });
}

TEST(MwBankBufDeathTest, AnUnarbitratedWriteRowWithTwoLanesInOneBankTripsTheConflictAssertion) {
  expectTrips<Vmw_bank_buf_b5x6s2d>("bank_wr_conflict_a", [](auto& h) {
    const Row row = firstLanes(6, {2, 7});  // bank 2 as well
    h.cycle(nullptr, &row);
  });
}

}  // namespace
