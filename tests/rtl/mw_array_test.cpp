// Tests for the mw_array fold engine (rtl/mw_array.sv), Verilated for a 4x4 and an 8x8 mesh.
//
// A cycle-level harness drives the command, activation, weight and accumulate-in streams with
// valid/ready, collects result rows, and acts as a scoreboard: every result row is compared
// bit-exactly with a plain C++ reference GEMM, and every fold's busy cycles are compared with the
// closed-form formulas of rtl/README.md (WS: M + 2*ru + cu, OS: L + ru + cu, plus stall cycles).
// Random input gaps and output back-pressure exercise the stall path. Seeds are explicit.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "Vmw_array_4x4.h"
#include "Vmw_array_8x8.h"
#include "verilated.h"

namespace {

// ---------------------------------------------------------------------------------------------
// Port packing: Verilator maps a port to an integer up to 64 bits and to VlWide above.
// ---------------------------------------------------------------------------------------------

/// A bus value as little-endian 32-bit words.
using Words = std::vector<uint32_t>;

template <typename T>
void putWords(T& port, const Words& w) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t v = w.empty() ? 0 : w[0];
    if (sizeof(T) > 4 && w.size() > 1) v |= static_cast<uint64_t>(w[1]) << 32;
    port = static_cast<T>(v);
  } else {
    for (size_t i = 0; i < w.size(); ++i) port[i] = w[i];
  }
}

template <typename T>
uint32_t getWord(const T& port, size_t i) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * i));
  } else {
    return port[i];
  }
}

/// Packs signed bytes into a bus of `lanes` byte lanes.
Words packBytes(const std::vector<int8_t>& v, int lanes) {
  Words w(static_cast<size_t>((lanes * 8 + 31) / 32), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    w[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(v[i])) << (8 * (i % 4));
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// Folds and the reference
// ---------------------------------------------------------------------------------------------

/// One fold: the command, its operand streams, and the reference result rows.
struct Fold {
  bool os = false;                              ///< Output-stationary (else weight-stationary).
  int n = 1;                                    ///< M (WS) or L (OS).
  int ru = 1;                                   ///< Rows used.
  int cu = 1;                                   ///< Columns used.
  bool acc = false;                             ///< Accumulate-in stream present.
  std::vector<std::vector<int8_t>> w_rows;      ///< WS: ru rows of cu; OS: L rows of cu.
  std::vector<std::vector<int8_t>> a_rows;      ///< WS: M rows of ru; OS: L rows of ru.
  std::vector<std::vector<uint32_t>> c_rows;    ///< Accumulate-in rows (cu values each).
  std::vector<std::vector<uint32_t>> out_rows;  ///< Reference result rows (cu values each).
};

/// Closed-form busy cycles of a fold without stalls (rtl/README.md).
uint64_t foldCycles(const Fold& f) {
  return f.os ? static_cast<uint64_t>(f.n + f.ru + f.cu)
              : static_cast<uint64_t>(f.n + 2 * f.ru + f.cu);
}

/// Reference GEMM with int32 wrap-around: out[x][j] = cin[x][j] + sum A * B.
void computeReference(Fold& f) {
  const int out_n = f.os ? f.ru : f.n;
  f.out_rows.assign(out_n, std::vector<uint32_t>(f.cu, 0));
  for (int x = 0; x < out_n; ++x) {
    for (int j = 0; j < f.cu; ++j) {
      uint32_t s = f.acc ? f.c_rows[x][j] : 0;
      if (f.os) {
        for (int k = 0; k < f.n; ++k) {
          s += static_cast<uint32_t>(int32_t{f.a_rows[k][x]} * int32_t{f.w_rows[k][j]});
        }
      } else {
        for (int i = 0; i < f.ru; ++i) {
          s += static_cast<uint32_t>(int32_t{f.a_rows[x][i]} * int32_t{f.w_rows[i][j]});
        }
      }
      f.out_rows[x][j] = s;
    }
  }
}

/// Value patterns for operands.
enum class Values { kRandom, kExtreme };

Fold makeFold(std::mt19937_64& rng, bool os, int n, int ru, int cu, bool acc,
              Values vals = Values::kRandom) {
  Fold f{os, n, ru, cu, acc, {}, {}, {}, {}};
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int> ext(0, 1);
  auto val = [&]() -> int8_t {
    if (vals == Values::kExtreme) return static_cast<int8_t>(ext(rng) ? 127 : -128);
    return static_cast<int8_t>(byte(rng));
  };
  const int w_n = os ? n : ru;
  for (int r = 0; r < w_n; ++r) {
    std::vector<int8_t> row(cu);
    for (auto& v : row) v = val();
    f.w_rows.push_back(row);
  }
  for (int r = 0; r < n; ++r) {
    std::vector<int8_t> row(ru);
    for (auto& v : row) v = val();
    f.a_rows.push_back(row);
  }
  if (acc) {
    const int out_n = os ? ru : n;
    for (int r = 0; r < out_n; ++r) {
      std::vector<uint32_t> row(cu);
      for (auto& v : row) v = static_cast<uint32_t>(rng());
      f.c_rows.push_back(row);
    }
  }
  computeReference(f);
  return f;
}

std::string describe(const Fold& f) {
  return std::string(f.os ? "OS" : "WS") + " n=" + std::to_string(f.n) +
         " ru=" + std::to_string(f.ru) + " cu=" + std::to_string(f.cu) +
         " acc=" + std::to_string(f.acc);
}

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// Stream behaviour of the testbench.
struct Traffic {
  double valid_prob = 1.0;  ///< Chance a stream offers its next item in a cycle.
  double ready_prob = 1.0;  ///< Chance the result sink is ready in a cycle.
  int max_cmd_gap = 0;      ///< Up to this many idle cycles before each command.
};

/// Per-fold measurements taken by the harness.
struct FoldStats {
  uint64_t cycles = 0;                             ///< Busy cycles counted by the testbench.
  uint64_t busy = 0;                               ///< busy_cnt_o delta.
  uint64_t stall = 0;                              ///< stall_cnt_o delta.
  uint64_t macs = 0;                               ///< mac_cnt_o delta.
  std::vector<uint64_t> w_at, a_at, c_at, out_at;  ///< Busy-cycle index of each transfer.
};

template <typename Model, int kRows, int kCols>
class Harness {
 public:
  static constexpr int rows = kRows;
  static constexpr int cols = kCols;

  explicit Harness(uint64_t seed) : rng_(seed) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->fatalOnError(true);
    m_ = std::make_unique<Model>(ctx_.get());
    reset();
  }
  ~Harness() { m_->final(); }

  std::mt19937_64& rng() { return rng_; }
  Model& model() { return *m_; }
  uint64_t cycle() const { return cycle_; }

  void reset() {
    m_->rst_ni = 0;
    m_->clk_i = 0;
    clearInputs();
    m_->eval();
    m_->clk_i = 1;
    m_->eval();
    m_->clk_i = 0;
    m_->rst_ni = 1;
    m_->eval();
  }

  /// One clock cycle: inputs are already set; evaluate, then the rising edge.
  void tick() {
    m_->clk_i = 1;
    m_->eval();
    m_->clk_i = 0;
    m_->eval();
    ++cycle_;
  }

  /// Runs folds in order through the engine and checks every result row.
  /// Returns per-fold stats; the total cycle count is available from cycle().
  std::vector<FoldStats> run(const std::vector<Fold>& folds, const Traffic& tr) {
    std::deque<std::vector<int8_t>> wq, aq;
    std::deque<std::vector<uint32_t>> cq;
    for (const auto& f : folds) {
      for (const auto& r : f.w_rows) wq.push_back(r);
      for (const auto& r : f.a_rows) aq.push_back(r);
      for (const auto& r : f.c_rows) cq.push_back(r);
    }
    std::vector<FoldStats> stats(folds.size());
    std::bernoulli_distribution offer(tr.valid_prob), take(tr.ready_prob);
    std::uniform_int_distribution<int> gap(0, tr.max_cmd_gap);

    size_t next_cmd = 0;  // next fold to issue
    size_t cur = 0;       // fold whose results are being checked
    size_t out_row = 0;   // next result row of fold `cur`
    bool active = false;  // a fold has been issued and has not finished
    int cmd_wait = gap(rng_);
    bool w_v = false, a_v = false, c_v = false;  // sticky valids (held until accepted)
    uint64_t busy0 = m_->busy_cnt_o, stall0 = m_->stall_cnt_o, mac0 = m_->mac_cnt_o;
    const uint64_t limit = cycle_ + 100000 + 50 * totalCycles(folds);

    while (cur < folds.size()) {
      if (cycle_ > limit) {
        ADD_FAILURE() << "timeout in fold " << cur << " (" << describe(folds[cur]) << ")";
        return stats;
      }
      // Drive inputs for this cycle.
      const bool cmd_v = next_cmd < folds.size() && cmd_wait == 0;
      m_->cmd_valid_i = cmd_v;
      if (cmd_v) {
        const Fold& f = folds[next_cmd];
        m_->cmd_os_i = f.os;
        m_->cmd_n_i = static_cast<uint32_t>(f.n);
        m_->cmd_ru_i = static_cast<uint32_t>(f.ru);
        m_->cmd_cu_i = static_cast<uint32_t>(f.cu);
        m_->cmd_acc_i = f.acc;
      }
      w_v = !wq.empty() && (w_v || offer(rng_));
      a_v = !aq.empty() && (a_v || offer(rng_));
      c_v = !cq.empty() && (c_v || offer(rng_));
      m_->w_valid_i = w_v;
      m_->a_valid_i = a_v;
      m_->c_valid_i = c_v;
      putWords(m_->w_data_i, packBytes(w_v ? wq.front() : std::vector<int8_t>{}, kCols));
      putWords(m_->a_data_i, packBytes(a_v ? aq.front() : std::vector<int8_t>{}, kRows));
      Words cw(static_cast<size_t>(kCols), 0);
      if (c_v) {
        for (size_t j = 0; j < cq.front().size(); ++j) cw[j] = cq.front()[j];
      }
      putWords(m_->c_data_i, cw);
      m_->out_ready_i = take(rng_);
      m_->eval();

      // Sample handshakes before the edge.
      const bool cmd_fire = cmd_v && m_->cmd_ready_o;
      const bool w_fire = w_v && m_->w_ready_o;
      const bool a_fire = a_v && m_->a_ready_o;
      const bool c_fire = c_v && m_->c_ready_o;
      const bool out_fire = m_->out_valid_o && m_->out_ready_i;
      bool fold_done = false;
      if (active) {
        FoldStats& st = stats[cur];
        if (w_fire) st.w_at.push_back(st.cycles);
        if (a_fire) st.a_at.push_back(st.cycles);
        if (c_fire) st.c_at.push_back(st.cycles);
        if (out_fire) st.out_at.push_back(st.cycles);
        if (m_->busy_o) ++st.cycles;
      } else if (w_fire || a_fire || c_fire) {
        ADD_FAILURE() << "operand taken while no fold is active";
        return stats;
      }
      if (out_fire) {
        if (!active) {
          ADD_FAILURE() << "result row while no fold is active";
          return stats;
        }
        const Fold& f = folds[cur];
        const auto& exp = f.out_rows[out_row];
        for (int j = 0; j < kCols; ++j) {
          const uint32_t got = getWord(m_->out_data_o, static_cast<size_t>(j));
          const uint32_t want = j < f.cu ? exp[static_cast<size_t>(j)] : 0u;
          if (got != want) {
            ADD_FAILURE() << "fold " << cur << " (" << describe(f) << ") row " << out_row << " col "
                          << j << ": got " << static_cast<int32_t>(got) << " want "
                          << static_cast<int32_t>(want);
            return stats;
          }
        }
        const bool last = out_row + 1 == f.out_rows.size();
        EXPECT_EQ(static_cast<bool>(m_->out_last_o), last) << "fold " << cur << " row " << out_row;
        ++out_row;
        if (last) fold_done = true;
      }
      if (w_fire) wq.pop_front();
      if (a_fire) aq.pop_front();
      if (c_fire) cq.pop_front();
      if (w_fire) w_v = false;
      if (a_fire) a_v = false;
      if (c_fire) c_v = false;
      if (cmd_v && !cmd_fire && !m_->busy_o) {
        ADD_FAILURE() << "idle engine refused a command";
        return stats;
      }
      tick();

      if (fold_done) {
        stats[cur].busy = m_->busy_cnt_o - busy0;
        stats[cur].stall = m_->stall_cnt_o - stall0;
        stats[cur].macs = m_->mac_cnt_o - mac0;
        busy0 = m_->busy_cnt_o;
        stall0 = m_->stall_cnt_o;
        mac0 = m_->mac_cnt_o;
        EXPECT_TRUE(m_->done_o) << "done_o after fold " << cur;
        ++cur;
        out_row = 0;
        active = false;
      }
      if (cmd_fire) {
        active = true;
        ++next_cmd;
        cmd_wait = gap(rng_);
      } else if (cmd_wait > 0) {
        --cmd_wait;
      }
    }
    EXPECT_TRUE(wq.empty() && aq.empty() && cq.empty()) << "operand rows left unconsumed";
    return stats;
  }

 private:
  static uint64_t totalCycles(const std::vector<Fold>& folds) {
    uint64_t s = 0;
    for (const auto& f : folds) s += foldCycles(f);
    return s;
  }

  void clearInputs() {
    m_->cmd_valid_i = 0;
    m_->cmd_os_i = 0;
    m_->cmd_n_i = 0;
    m_->cmd_ru_i = 0;
    m_->cmd_cu_i = 0;
    m_->cmd_acc_i = 0;
    m_->a_valid_i = 0;
    m_->w_valid_i = 0;
    m_->c_valid_i = 0;
    m_->out_ready_i = 1;
    putWords(m_->a_data_i, Words((kRows * 8 + 31) / 32, 0));
    putWords(m_->w_data_i, Words((kCols * 8 + 31) / 32, 0));
    putWords(m_->c_data_i, Words(kCols, 0));
  }

  std::unique_ptr<VerilatedContext> ctx_;  // owns the model's simulation context
  std::unique_ptr<Model> m_;               // the Verilated mw_array
  std::mt19937_64 rng_;                    // drives stream timing and data
  uint64_t cycle_ = 0;                     // rising edges since construction
};

// ---------------------------------------------------------------------------------------------
// Tests, typed over the two mesh sizes
// ---------------------------------------------------------------------------------------------

using Harness4 = Harness<Vmw_array_4x4, 4, 4>;
using Harness8 = Harness<Vmw_array_8x8, 8, 8>;

template <typename H>
class MwArrayTest : public ::testing::Test {};
using Meshes = ::testing::Types<Harness4, Harness8>;
TYPED_TEST_SUITE(MwArrayTest, Meshes);

/// Draws a random fold; ru/cu hit 1 and full size often.
template <typename H>
Fold randomFold(std::mt19937_64& rng, int max_n) {
  auto pick = [&](int full) {
    const int k = static_cast<int>(rng() % 4);
    if (k == 0) return 1;
    if (k == 1) return full;
    return 1 + static_cast<int>(rng() % static_cast<uint64_t>(full));
  };
  const bool os = rng() & 1;
  const int n = 1 + static_cast<int>(rng() % static_cast<uint64_t>(max_n));
  const int ru = pick(H::rows);
  const int cu = pick(H::cols);
  const bool acc = rng() % 3 == 0;
  const Values v = rng() % 8 == 0 ? Values::kExtreme : Values::kRandom;
  return makeFold(rng, os, n, ru, cu, acc, v);
}

/// Busy-cycle index of the transfers of each stream without stalls (rtl/README.md, schedule).
void checkSchedule(const Fold& f, const FoldStats& s, size_t i) {
  std::vector<uint64_t> w, a, c, out;
  const uint64_t n = static_cast<uint64_t>(f.n), ru = static_cast<uint64_t>(f.ru),
                 cu = static_cast<uint64_t>(f.cu);
  if (f.os) {
    for (uint64_t k = 0; k < n; ++k) w.push_back(k);
    a = w;
    for (uint64_t r = 0; r < ru; ++r) out.push_back(n + cu + r);
  } else {
    for (uint64_t k = 0; k < ru; ++k) w.push_back(k);
    for (uint64_t m = 0; m < n; ++m) a.push_back(ru + m);
    for (uint64_t m = 0; m < n; ++m) out.push_back(2 * ru + cu + m);
  }
  if (f.acc) {
    for (uint64_t x : out) c.push_back(x - 1);
  }
  EXPECT_EQ(s.w_at, w) << "w schedule, fold " << i << " " << describe(f);
  EXPECT_EQ(s.a_at, a) << "a schedule, fold " << i << " " << describe(f);
  EXPECT_EQ(s.c_at, c) << "c schedule, fold " << i << " " << describe(f);
  EXPECT_EQ(s.out_at, out) << "out schedule, fold " << i << " " << describe(f);
}

/// Checks results (inside run) and the exact cycle formula of every fold.
template <typename H>
void checkFolds(H& h, const std::vector<Fold>& folds, const Traffic& tr, bool expect_no_stall) {
  const auto stats = h.run(folds, tr);
  ASSERT_EQ(stats.size(), folds.size());
  for (size_t i = 0; i < folds.size(); ++i) {
    const Fold& f = folds[i];
    const FoldStats& s = stats[i];
    EXPECT_EQ(s.cycles, s.busy) << "fold " << i << " " << describe(f);
    EXPECT_EQ(s.busy, foldCycles(f) + s.stall) << "fold " << i << " " << describe(f);
    if (expect_no_stall) {
      EXPECT_EQ(s.stall, 0u) << "fold " << i << " " << describe(f);
      checkSchedule(f, s, i);
    }
    EXPECT_EQ(s.macs, static_cast<uint64_t>(f.n) * f.ru * f.cu) << "fold " << i;
    if (::testing::Test::HasFailure()) return;
  }
}

constexpr int kRandomFolds = 3000;

TYPED_TEST(MwArrayTest, RandomFoldsBackToBack) {
  TypeParam h(0x5eed0001);
  std::vector<Fold> folds;
  for (int i = 0; i < kRandomFolds; ++i) folds.push_back(randomFold<TypeParam>(h.rng(), 40));
  const uint64_t c0 = h.cycle();
  checkFolds(h, folds, Traffic{}, /*expect_no_stall=*/true);
  // Back to back: the whole sequence takes the sum of the per-fold formulas, plus the single
  // cycle in which the first command is accepted.
  uint64_t total = 0;
  for (const auto& f : folds) total += foldCycles(f);
  EXPECT_EQ(h.cycle() - c0, total + 1);
  this->RecordProperty("folds", kRandomFolds);
}

TYPED_TEST(MwArrayTest, RandomFoldsWithGapsAndBackPressure) {
  TypeParam h(0x5eed0002);
  std::vector<Fold> folds;
  for (int i = 0; i < kRandomFolds; ++i) folds.push_back(randomFold<TypeParam>(h.rng(), 40));
  Traffic tr;
  tr.valid_prob = 0.7;
  tr.ready_prob = 0.8;
  tr.max_cmd_gap = 3;
  checkFolds(h, folds, tr, /*expect_no_stall=*/false);
}

TYPED_TEST(MwArrayTest, LongStreams) {
  TypeParam h(0x5eed0003);
  std::vector<Fold> folds;
  for (int i = 0; i < 40; ++i) {
    Fold f = randomFold<TypeParam>(h.rng(), 1000);
    folds.push_back(f);
  }
  folds.push_back(
      makeFold(h.rng(), true, 2000, TypeParam::rows, TypeParam::cols, true, Values::kExtreme));
  folds.push_back(
      makeFold(h.rng(), false, 2000, TypeParam::rows, TypeParam::cols, true, Values::kExtreme));
  checkFolds(h, folds, Traffic{}, /*expect_no_stall=*/true);
}

/// Every (dataflow, ru, cu) with a few lengths, one fold at a time with idle cycles between.
TYPED_TEST(MwArrayTest, CycleFormulaAllShapes) {
  TypeParam h(0x5eed0004);
  std::vector<Fold> folds;
  for (int os = 0; os < 2; ++os) {
    for (int ru = 1; ru <= TypeParam::rows; ++ru) {
      for (int cu = 1; cu <= TypeParam::cols; ++cu) {
        for (int n : {1, 2, 7}) {
          folds.push_back(makeFold(h.rng(), os != 0, n, ru, cu, (ru + cu + n) % 2 == 0));
        }
      }
    }
  }
  Traffic tr;
  tr.max_cmd_gap = 2;
  checkFolds(h, folds, tr, /*expect_no_stall=*/true);
}

TYPED_TEST(MwArrayTest, ResetMidFoldReturnsToIdle) {
  TypeParam h(0x5eed0005);
  auto& m = h.model();
  m.cmd_valid_i = 1;
  m.cmd_os_i = 1;
  m.cmd_n_i = 10;
  m.cmd_ru_i = TypeParam::rows;
  m.cmd_cu_i = TypeParam::cols;
  m.cmd_acc_i = 0;
  m.a_valid_i = 1;
  m.w_valid_i = 1;
  m.eval();
  ASSERT_TRUE(m.cmd_ready_o);
  h.tick();
  m.cmd_valid_i = 0;
  for (int i = 0; i < 5; ++i) h.tick();
  EXPECT_TRUE(m.busy_o);
  EXPECT_GT(m.mac_cnt_o, 0u);
  m.a_valid_i = 0;
  m.w_valid_i = 0;
  h.reset();
  EXPECT_FALSE(m.busy_o);
  EXPECT_FALSE(m.out_valid_o);
  EXPECT_EQ(m.mac_cnt_o, 0u);
  EXPECT_EQ(m.busy_cnt_o, 0u);
  // The engine works normally afterwards.
  std::vector<Fold> folds{makeFold(h.rng(), false, 5, 2, 3, false)};
  checkFolds(h, folds, Traffic{}, true);
}

TEST(MwArrayDeathTest, ZeroRowsUsedIsRejected) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        // Verilator prints assertion messages on stdout; death tests match stderr.
        std::fflush(stdout);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        Harness4 h(1);
        auto& m = h.model();
        m.cmd_valid_i = 1;
        m.cmd_n_i = 4;
        m.cmd_ru_i = 0;
        m.cmd_cu_i = 2;
        m.eval();
        h.tick();
      },
      "command ru must be at least 1");
}

}  // namespace
