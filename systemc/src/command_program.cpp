// The driver side of the RTL accelerator in plain C++: walks the tile program and emits the
// command words (with the reference schedule's fences), the DRAM segment list of every DMA
// command, the DRAM layout of the tensors, random operands and the C++ reference of the layer.
#include "mapwright/systemc/command_program.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

namespace mapwright::systemc {

using core::Dim;
using core::input_rows;
using core::OpKind;
using core::RowMap;

namespace {

constexpr uint64_t kMaxExtent = 0xffff;
constexpr uint64_t kMaxBase = (1u << 20) - 1;
constexpr uint64_t kMaxFence = (1u << 28) - 1;
constexpr uint64_t kMaxRun = (1u << 24) - 1;            // run bytes of a burst descriptor
constexpr uint64_t kMaxAddr = (uint64_t{1} << 40) - 1;  // DRAM addresses and strides (mod 2^40)

uint64_t header(Opcode op, unsigned flags, uint64_t wait_dma, uint64_t wait_cmp) {
  return static_cast<uint64_t>(op) | (static_cast<uint64_t>(flags & 0xf) << 4) | (wait_dma << 8) |
         (wait_cmp << 36);
}

}  // namespace

int default_shift(const core::Layer& l) {
  const double red = static_cast<double>(l.c * l.r * l.s);
  return std::min(31, 6 + static_cast<int>(std::ceil(0.5 * std::log2(std::max(1.0, red)))));
}

namespace {

/// Builds one command program: a single walk of the tile program (op() is its visitor) that
/// emits each operation's command words and keeps the fence bookkeeping between them.
///
/// The fences (how many commands of the other queue a command waits for) are an independent
/// re-derivation of the dependencies of the reference schedule (model/src/schedule.cpp) from the
/// command semantics (rtl/README.md), not code shared with it: a load waits for the computes
/// that last read its buffer half, a spill or store for the computes that last wrote its
/// accumulator half, and a compute for the loads of its input and weight tiles and for the
/// reload (or the spill or store) that left its accumulator half. Nothing compares the fence
/// counts with the schedule's dependencies directly; the RTL running on them must take exactly
/// the schedule's cycles, which the random sweeps without DRAM stalls of
/// tests/systemc/rtl_evaluator_test.cpp check on every run
/// (RtlSmall4.RandomLayersAndMappingsAreExact and the Decoupled and banked twins: rtl cycles ==
/// model::simulate_schedule).
class ProgramBuilder {
 public:
  ProgramBuilder(const core::Layer& l, const core::Arch& arch, const core::Mapping& m, int shift,
                 CommandProgram& p, std::string& error)
      : l_(l),
        m_(m),
        p_(p),
        error_(error),
        at_(core::dram_layout(l)),
        in_half_(static_cast<uint64_t>(arch.input_buf_bytes) / 2),
        wt_half_(static_cast<uint64_t>(arch.weight_buf_bytes) / 2),
        acc_half_(static_cast<uint64_t>(arch.accum_buf_bytes) / 4 / 2) {
    p = CommandProgram{};
    p.shift = shift;
    p.dram = at_;
    p.bursts = arch.dram_port == core::DramPort::Bursts;
    // CONFIG: dataflow, fold order, PE use, stride, shift.
    const unsigned cfg_flags = (m.dataflow == core::Dataflow::OS ? 1u : 0u) |
                               (m.fold_order == core::FoldOrder::ColsOuter ? 2u : 0u) |
                               (m.dataflow == core::Dataflow::IS ? 4u : 0u) | (p.bursts ? 8u : 0u);
    emit({header(Opcode::Config, cfg_flags, 0, 0),
          static_cast<uint64_t>(m.pe_rows) | (static_cast<uint64_t>(m.pe_cols) << 16) |
              (static_cast<uint64_t>(l.stride) << 32) | (static_cast<uint64_t>(shift) << 48)});
  }

  /// The visitor of walk_tile_program: one operation's command (nothing after a failure).
  void op(const core::TileOp& op) {
    if (!ok_) return;
    if (op.kind == OpKind::Compute) {
      compute(op);
      return;
    }
    DmaJob job;
    job.kind = op.kind;
    uint64_t wait_cmp = 0, base = 0;
    Opcode opc = Opcode::LoadInput;
    switch (op.kind) {
      case OpKind::LoadInput:
        opc = Opcode::LoadInput;
        wait_cmp = in_last_cmp_[op.half];
        base = m_.db_input ? op.half * in_half_ : 0;
        break;
      case OpKind::LoadWeight:
        opc = Opcode::LoadWeight;
        wait_cmp = wt_last_cmp_[op.half];
        base = m_.db_weight ? op.half * wt_half_ : 0;
        break;
      case OpKind::LoadPsum:
      case OpKind::SpillPsum:
      case OpKind::StoreOutput:
        opc = op.kind == OpKind::LoadPsum    ? Opcode::LoadPsum
              : op.kind == OpKind::SpillPsum ? Opcode::SpillPsum
                                             : Opcode::StoreOutput;
        job.write = op.kind != OpKind::LoadPsum;
        wait_cmp = job.write ? acc_last_cmp_[op.half] : 0;
        base = m_.db_accum ? op.half * acc_half_ : 0;
        break;
      case OpKind::Compute:
        break;
    }
    dma(op, opc, wait_cmp, base, std::move(job));
  }

  /// Finishes the program; false when a field did not fit (the error is set).
  bool finish() {
    p_.dma_commands = static_cast<long long>(n_dma_);
    p_.compute_commands = static_cast<long long>(n_cmp_);
    return ok_;
  }

 private:
  /// Appends one command's words (the last one flagged).
  void emit(std::initializer_list<uint64_t> ws) {
    size_t i = 0;
    for (uint64_t w : ws) {
      p_.words.push_back(w);
      p_.last.push_back(++i == ws.size() ? 1 : 0);
    }
  }
  /// Records the first failure; the walk emits nothing after it.
  void fail(const std::string& what) {
    if (ok_) error_ = what;
    ok_ = false;
  }

  /// A COMPUTE command: waits for the loads of its tiles and for its accumulator half.
  void compute(const core::TileOp& op) {
    const core::TileBox& b = op.box;
    auto ext = [&](Dim d) { return static_cast<uint64_t>(b.ext_of(d)); };
    const uint64_t wait_dma =
        std::max({in_need_, wt_need_, op.accumulate ? reload_need_ : acc_free_dma_[op.half]});
    const RowMap rm = input_rows(b.lo_of(Dim::P), b.ext_of(Dim::P), b.lo_of(Dim::R),
                                 b.ext_of(Dim::R), l_.stride, l_.pad, l_.h);
    const RowMap cm = input_rows(b.lo_of(Dim::Q), b.ext_of(Dim::Q), b.lo_of(Dim::S),
                                 b.ext_of(Dim::S), l_.stride, l_.pad, l_.w);
    const uint64_t in_base = m_.db_input ? in_half_now_ * in_half_ : 0;
    const uint64_t wt_base = m_.db_weight ? wt_half_now_ * wt_half_ : 0;
    const uint64_t acc_base = m_.db_accum ? op.half * acc_half_ : 0;
    const Dim dims[] = {Dim::G, Dim::N, Dim::P, Dim::Q, Dim::C, Dim::R, Dim::S, Dim::K};
    for (Dim d : dims)
      if (ext(d) > kMaxExtent)
        fail(std::string("command format: tile extent ") + core::dim_name(d) + " = " +
             std::to_string(ext(d)) + " exceeds 65535");
    if (in_base > kMaxBase || wt_base > kMaxBase || acc_base > kMaxBase)
      fail("command format: a buffer base exceeds 2^20");
    if (rm.rows.size() > kMaxExtent || cm.rows.size() > kMaxExtent ||
        static_cast<uint64_t>(rm.clip) > kMaxExtent || static_cast<uint64_t>(cm.clip) > kMaxExtent)
      fail("command format: input tile geometry exceeds 65535");
    if (wait_dma > kMaxFence) fail("command format: fence count exceeds 2^28");
    emit({header(Opcode::Compute, op.accumulate ? 1u : 0u, wait_dma, 0),
          ext(Dim::G) | (ext(Dim::N) << 16) | (ext(Dim::P) << 32) | (ext(Dim::Q) << 48),
          ext(Dim::C) | (ext(Dim::R) << 16) | (ext(Dim::S) << 32) | (ext(Dim::K) << 48),
          in_base | (wt_base << 20) | (acc_base << 40),
          static_cast<uint64_t>(rm.rows.size()) | (static_cast<uint64_t>(cm.rows.size()) << 16) |
              (static_cast<uint64_t>(rm.clip) << 32) | (static_cast<uint64_t>(cm.clip) << 48)});
    ++n_cmp_;
    in_last_cmp_[in_half_now_] = n_cmp_;
    wt_last_cmp_[wt_half_now_] = n_cmp_;
    acc_last_cmp_[op.half] = n_cmp_;
  }

  /// A DMA command `opc` (buffer base `base`, waiting for `wait_cmp` computes) with its DRAM
  /// segments; then the fences that wait for it.
  void dma(const core::TileOp& op, Opcode opc, uint64_t wait_cmp, uint64_t base, DmaJob job) {
    core::dram_segments(l_, at_, op, job.segments);
    for (const auto& s : job.segments) job.bytes += s.len;
    if (job.bytes != static_cast<uint64_t>(op.bytes))
      fail("internal: DMA segments of " + std::string(core::op_kind_name(op.kind)) + " hold " +
           std::to_string(job.bytes) + " bytes, the tile program says " + std::to_string(op.bytes));
    if (base > kMaxBase || wait_cmp > kMaxFence || job.bytes > 0xffffffffull)
      fail("command format: DMA base, size or fence out of range");
    if (!p_.bursts) {
      emit({header(opc, 0, 0, wait_cmp), job.bytes | (base << 32)});
    } else if (!emit_bursts(op, opc, wait_cmp, base, job)) {
      return;
    }
    ++n_dma_;
    switch (op.kind) {
      case OpKind::LoadInput:
        in_need_ = n_dma_;
        in_half_now_ = op.half;
        break;
      case OpKind::LoadWeight:
        wt_need_ = n_dma_;
        wt_half_now_ = op.half;
        break;
      case OpKind::LoadPsum:
        reload_need_ = n_dma_;
        break;
      default:
        acc_free_dma_[op.half] = n_dma_;
        break;
    }
    p_.dma.push_back(std::move(job));
  }

  /// Bursts port: the DMA command with the descriptor of the transfer's runs (one per command;
  /// see rtl/README.md). False (and failed) when the transfer has no descriptor.
  bool emit_bursts(const core::TileOp& op, Opcode opc, uint64_t wait_cmp, uint64_t base,
                   const DmaJob& job) {
    std::string why;
    const std::optional<core::BurstDescriptor> d = core::transfer_descriptor(op, job.segments, why);
    if (!d) {
      fail("dram.port bursts: the RTL DMA takes one burst descriptor per transfer; " + why);
      return false;
    }
    if (d->run > kMaxRun || d->addr > kMaxAddr ||
        std::any_of(d->count.begin(), d->count.end(), [](uint64_t c) { return c > kMaxExtent; }))
      fail("command format: a burst descriptor field is out of range");
    auto loop = [&](size_t k) {
      return d->count[k] | ((static_cast<uint64_t>(d->stride[k]) & kMaxAddr) << 16);
    };
    emit({header(opc, 0, 0, wait_cmp), job.bytes | (base << 32), d->addr | (d->run << 40), loop(0),
          loop(1), loop(2), loop(3)});
    return true;
  }

  const core::Layer& l_;       ///< The layer.
  const core::Mapping& m_;     ///< Its mapping.
  CommandProgram& p_;          ///< The program being built.
  std::string& error_;         ///< The first failure.
  const core::DramLayout at_;  ///< The tensors' DRAM layout.
  const uint64_t in_half_;     ///< Input buffer half (the second half's base), bytes.
  const uint64_t wt_half_;     ///< Weight buffer half, bytes.
  const uint64_t acc_half_;    ///< Accumulator half, words.
  bool ok_ = true;             ///< No field has failed yet.
  // Fence bookkeeping: counts of completed commands of each queue.
  uint64_t n_dma_ = 0;                     ///< DMA commands emitted.
  uint64_t n_cmp_ = 0;                     ///< Compute commands emitted.
  uint64_t in_last_cmp_[2] = {0, 0};       ///< Per input half: the last compute reading it.
  uint64_t wt_last_cmp_[2] = {0, 0};       ///< Per weight half: the last compute reading it.
  uint64_t acc_last_cmp_[2] = {0, 0};      ///< Per accumulator half: the last compute writing it.
  uint64_t acc_free_dma_[2] = {0, 0};      ///< Per accumulator half: the spill or store leaving it.
  uint64_t in_need_ = 0;                   ///< The load of the resident input tile.
  uint64_t wt_need_ = 0;                   ///< The load of the resident weight tile.
  uint64_t reload_need_ = 0;               ///< The reload of the resident partial sums.
  int in_half_now_ = 0, wt_half_now_ = 0;  ///< Halves of the resident input and weight tiles.
};

}  // namespace

bool build_program(const core::Layer& l, const core::Arch& arch, const core::Mapping& m, int shift,
                   CommandProgram& p, std::string& error) {
  ProgramBuilder b(l, arch, m, shift, p, error);
  core::walk_tile_program(l, arch, m, [&b](const core::TileOp& op) { b.op(op); });
  return b.finish();
}

std::vector<int8_t> random_tensor(uint64_t seed, uint64_t elems) {
  std::mt19937_64 rng(seed);
  std::vector<int8_t> v(elems);
  for (auto& x : v) x = static_cast<int8_t>(rng() & 0xff);
  return v;
}

std::vector<int8_t> reference_output(const core::Layer& l, const std::vector<int8_t>& in,
                                     const std::vector<int8_t>& wt, int shift) {
  const long long G = l.g, N = l.n, K = l.k, C = l.c, H = l.h, W = l.w, R = l.r, S = l.s, P = l.p,
                  Q = l.q;
  std::vector<int8_t> out(static_cast<size_t>(N * P * Q * G * K));
  for (long long n = 0; n < N; ++n)
    for (long long p = 0; p < P; ++p)
      for (long long q = 0; q < Q; ++q)
        for (long long g = 0; g < G; ++g)
          for (long long k = 0; k < K; ++k) {
            uint32_t acc = 0;  // int32 with wrap-around, like the hardware
            for (long long r = 0; r < R; ++r) {
              const long long h = p * l.stride + r - l.pad;
              if (h < 0 || h >= H) continue;
              for (long long s = 0; s < S; ++s) {
                const long long w = q * l.stride + s - l.pad;
                if (w < 0 || w >= W) continue;
                for (long long c = 0; c < C; ++c) {
                  const int32_t a =
                      in[static_cast<size_t>(((n * H + h) * W + w) * G * C + g * C + c)];
                  const int32_t b =
                      wt[static_cast<size_t>((((g * R + r) * S + s) * C + c) * K + k)];
                  acc += static_cast<uint32_t>(a * b);
                }
              }
            }
            const int32_t v = static_cast<int32_t>(acc) >> shift;
            out[static_cast<size_t>(((n * P + p) * Q + q) * G * K + g * K + k)] =
                static_cast<int8_t>(std::clamp(v, -128, 127));
          }
  return out;
}

}  // namespace mapwright::systemc
