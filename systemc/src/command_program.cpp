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

// One function on purpose (about 130 lines): a single walk of the tile program whose visitor
// keeps the fence bookkeeping (which command waits for which load or store) in local state
// shared by every kind of command; split, that state would travel through every piece.
bool build_program(const core::Layer& l, const core::Arch& arch, const core::Mapping& m, int shift,
                   CommandProgram& p, std::string& error) {
  p = CommandProgram{};
  p.shift = shift;
  const core::DramLayout at = core::dram_layout(l);
  p.input_addr = at.input;
  p.weight_addr = at.weight;
  p.output_addr = at.output;
  p.psum_addr = at.psum;
  p.dram_bytes = at.bytes;
  p.bursts = arch.dram_port == core::DramPort::Bursts;

  auto emit = [&](std::initializer_list<uint64_t> ws) {
    size_t i = 0;
    for (uint64_t w : ws) {
      p.words.push_back(w);
      p.last.push_back(++i == ws.size() ? 1 : 0);
    }
  };
  // CONFIG: dataflow, fold order, PE use, stride, shift.
  const unsigned cfg_flags = (m.dataflow == core::Dataflow::OS ? 1u : 0u) |
                             (m.fold_order == core::FoldOrder::ColsOuter ? 2u : 0u) |
                             (m.dataflow == core::Dataflow::IS ? 4u : 0u) | (p.bursts ? 8u : 0u);
  emit({header(Opcode::Config, cfg_flags, 0, 0),
        static_cast<uint64_t>(m.pe_rows) | (static_cast<uint64_t>(m.pe_cols) << 16) |
            (static_cast<uint64_t>(l.stride) << 32) | (static_cast<uint64_t>(shift) << 48)});

  const uint64_t in_half = static_cast<uint64_t>(arch.input_buf_bytes) / 2;
  const uint64_t wt_half = static_cast<uint64_t>(arch.weight_buf_bytes) / 2;
  const uint64_t acc_half = static_cast<uint64_t>(arch.accum_buf_bytes) / 4 / 2;

  // Fence bookkeeping, mirroring model/src/schedule.cpp: counts of completed commands needed.
  uint64_t n_dma = 0, n_cmp = 0;
  uint64_t in_last_cmp[2] = {0, 0}, wt_last_cmp[2] = {0, 0}, acc_last_cmp[2] = {0, 0};
  uint64_t acc_free_dma[2] = {0, 0};
  uint64_t in_need = 0, wt_need = 0, reload_need = 0;
  int in_half_now = 0, wt_half_now = 0;
  bool ok = true;
  auto fail = [&](const std::string& what) {
    if (ok) error = what;
    ok = false;
  };

  core::walk_tile_program(l, arch, m, [&](const core::TileOp& op) {
    if (!ok) return;
    const core::TileBox& b = op.box;
    auto ext = [&](Dim d) { return static_cast<uint64_t>(b.ext_of(d)); };
    DmaJob job;
    job.kind = op.kind;
    uint64_t wait_cmp = 0, base = 0;
    Opcode opc = Opcode::LoadInput;
    switch (op.kind) {
      case OpKind::LoadInput:
        opc = Opcode::LoadInput;
        wait_cmp = in_last_cmp[op.half];
        base = m.db_input ? op.half * in_half : 0;
        break;
      case OpKind::LoadWeight:
        opc = Opcode::LoadWeight;
        wait_cmp = wt_last_cmp[op.half];
        base = m.db_weight ? op.half * wt_half : 0;
        break;
      case OpKind::LoadPsum:
      case OpKind::SpillPsum:
      case OpKind::StoreOutput:
        opc = op.kind == OpKind::LoadPsum    ? Opcode::LoadPsum
              : op.kind == OpKind::SpillPsum ? Opcode::SpillPsum
                                             : Opcode::StoreOutput;
        job.write = op.kind != OpKind::LoadPsum;
        wait_cmp = job.write ? acc_last_cmp[op.half] : 0;
        base = m.db_accum ? op.half * acc_half : 0;
        break;
      case OpKind::Compute: {
        const uint64_t wait_dma =
            std::max({in_need, wt_need, op.accumulate ? reload_need : acc_free_dma[op.half]});
        const RowMap rm = input_rows(b.lo_of(Dim::P), b.ext_of(Dim::P), b.lo_of(Dim::R),
                                     b.ext_of(Dim::R), l.stride, l.pad, l.h);
        const RowMap cm = input_rows(b.lo_of(Dim::Q), b.ext_of(Dim::Q), b.lo_of(Dim::S),
                                     b.ext_of(Dim::S), l.stride, l.pad, l.w);
        const uint64_t in_base = m.db_input ? in_half_now * in_half : 0;
        const uint64_t wt_base = m.db_weight ? wt_half_now * wt_half : 0;
        const uint64_t acc_base = m.db_accum ? op.half * acc_half : 0;
        const Dim dims[] = {Dim::G, Dim::N, Dim::P, Dim::Q, Dim::C, Dim::R, Dim::S, Dim::K};
        for (Dim d : dims)
          if (ext(d) > kMaxExtent)
            fail(std::string("command format: tile extent ") + core::dim_name(d) + " = " +
                 std::to_string(ext(d)) + " exceeds 65535");
        if (in_base > kMaxBase || wt_base > kMaxBase || acc_base > kMaxBase)
          fail("command format: a buffer base exceeds 2^20");
        if (rm.rows.size() > kMaxExtent || cm.rows.size() > kMaxExtent ||
            static_cast<uint64_t>(rm.clip) > kMaxExtent ||
            static_cast<uint64_t>(cm.clip) > kMaxExtent)
          fail("command format: input tile geometry exceeds 65535");
        if (wait_dma > kMaxFence) fail("command format: fence count exceeds 2^28");
        emit({header(Opcode::Compute, op.accumulate ? 1u : 0u, wait_dma, 0),
              ext(Dim::G) | (ext(Dim::N) << 16) | (ext(Dim::P) << 32) | (ext(Dim::Q) << 48),
              ext(Dim::C) | (ext(Dim::R) << 16) | (ext(Dim::S) << 32) | (ext(Dim::K) << 48),
              in_base | (wt_base << 20) | (acc_base << 40),
              static_cast<uint64_t>(rm.rows.size()) |
                  (static_cast<uint64_t>(cm.rows.size()) << 16) |
                  (static_cast<uint64_t>(rm.clip) << 32) | (static_cast<uint64_t>(cm.clip) << 48)});
        ++n_cmp;
        in_last_cmp[in_half_now] = n_cmp;
        wt_last_cmp[wt_half_now] = n_cmp;
        acc_last_cmp[op.half] = n_cmp;
        return;
      }
    }
    // A DMA command.
    core::dram_segments(l, at, op, job.segments);
    for (const auto& s : job.segments) job.bytes += s.len;
    if (job.bytes != static_cast<uint64_t>(op.bytes))
      fail("internal: DMA segments of " + std::string(core::op_kind_name(op.kind)) + " hold " +
           std::to_string(job.bytes) + " bytes, the tile program says " + std::to_string(op.bytes));
    if (base > kMaxBase || wait_cmp > kMaxFence || job.bytes > 0xffffffffull)
      fail("command format: DMA base, size or fence out of range");
    if (!p.bursts) {
      emit({header(opc, 0, 0, wait_cmp), job.bytes | (base << 32)});
    } else {
      // Bursts port: the descriptor of the transfer's runs (one per command; see rtl/README.md).
      std::string why;
      const std::optional<core::BurstDescriptor> d =
          core::transfer_descriptor(op, job.segments, why);
      if (!d) {
        fail("dram.port bursts: the RTL DMA takes one burst descriptor per transfer; " + why);
        return;
      }
      if (d->run > kMaxRun || d->addr > kMaxAddr ||
          std::any_of(d->count.begin(), d->count.end(), [](uint64_t c) { return c > kMaxExtent; }))
        fail("command format: a burst descriptor field is out of range");
      auto loop = [&](size_t k) {
        return d->count[k] | ((static_cast<uint64_t>(d->stride[k]) & kMaxAddr) << 16);
      };
      emit({header(opc, 0, 0, wait_cmp), job.bytes | (base << 32), d->addr | (d->run << 40),
            loop(0), loop(1), loop(2), loop(3)});
    }
    ++n_dma;
    switch (op.kind) {
      case OpKind::LoadInput:
        in_need = n_dma;
        in_half_now = op.half;
        break;
      case OpKind::LoadWeight:
        wt_need = n_dma;
        wt_half_now = op.half;
        break;
      case OpKind::LoadPsum:
        reload_need = n_dma;
        break;
      default:
        acc_free_dma[op.half] = n_dma;
        break;
    }
    p.dma.push_back(std::move(job));
  });
  p.dma_commands = static_cast<long long>(n_dma);
  p.compute_commands = static_cast<long long>(n_cmp);
  return ok;
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
