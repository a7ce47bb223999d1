#include "mapwright/model/bank_conflicts.hpp"

#include <algorithm>
#include <map>

#include "mapwright/core/tile_program.hpp"

namespace mapwright::model {

using core::Dataflow;
using core::Dim;

long long row_bank_stall(const std::vector<long long>& offsets, long long banks) {
  if (offsets.size() < 2 || banks < 1) return 0;
  std::map<long long, int> load;
  int worst = 0;
  for (long long o : offsets) worst = std::max(worst, ++load[((o % banks) + banks) % banks]);
  return worst - 1;
}

BankStalls fold_bank_stalls(const core::Layer& l, const core::Arch& arch, const core::Mapping& m,
                            long long banks) {
  BankStalls st;
  std::vector<long long> off;
  // A fold's row costs depend on the tile's shape and the fold's lanes only: memoized.
  std::map<std::vector<long long>, BankStalls> memo;
  core::walk_tile_program(l, arch, m, [&](const core::TileOp& op) {
    if (op.kind != core::OpKind::Compute) return;
    const core::TileBox& b = op.box;
    const long long tn = b.ext_of(Dim::N), tp = b.ext_of(Dim::P), tq = b.ext_of(Dim::Q);
    const long long tc = b.ext_of(Dim::C), tr = b.ext_of(Dim::R), ts = b.ext_of(Dim::S);
    const long long tk = b.ext_of(Dim::K), tg = b.ext_of(Dim::G);
    const core::RowMap rm =
        core::input_rows(b.lo_of(Dim::P), tp, b.lo_of(Dim::R), tr, l.stride, l.pad, l.h);
    const core::RowMap cm =
        core::input_rows(b.lo_of(Dim::Q), tq, b.lo_of(Dim::S), ts, l.stride, l.pad, l.w);
    const long long hx = static_cast<long long>(rm.rows.size());
    const long long wx = static_cast<long long>(cm.rows.size());
    const long long col = tg * tc;  // input buffer: one column holds the tile's groups
    const long long pixels = tn * tp * tq, red = tc * tr * ts;
    // Input offsets of a reduction index (r, s, c) and of an output pixel (n, p, q): the input
    // address is their sum plus a base (buffer base, group, low-edge clip).
    auto red_off = [&](long long y) {
      return (y / (ts * tc)) * wx * col + ((y / tc) % ts) * col + y % tc;
    };
    auto pix_off = [&](long long x) {
      return (x / (tp * tq)) * hx * wx * col + ((x / tq) % tp) * rm.a * wx * col +
             (x % tq) * cm.a * col;
    };
    core::for_each_fold(
        m, b, [&](long long /*g*/, long long row0, long long ru, long long col0, long long cu) {
          const bool acc =
              m.dataflow == Dataflow::OS ? op.accumulate : (op.accumulate || row0 != 0);
          const std::vector<long long> key{tn,   tp, tq, tc,   tr,   ts, tk, tg, rm.a,
                                           cm.a, hx, wx, row0, col0, ru, cu, acc};
          auto hit = memo.find(key);
          if (hit == memo.end()) {
            BankStalls f;
            auto lanes = [&](long long n, auto&& offset_of) {
              off.clear();
              for (long long i = 0; i < n; ++i) off.push_back(offset_of(i));
              return row_bank_stall(off, banks);
            };
            auto consecutive = [&](long long n) { return lanes(n, [](long long i) { return i; }); };
            switch (m.dataflow) {
              case Dataflow::WS: {
                // `w` preload: ru weight rows, lanes k = col0 + j (consecutive); `a`: one row
                // per output pixel, lanes = reduction rows row0 + i; results one row per pixel.
                f.weight = ru * consecutive(cu);
                f.input = pixels * lanes(ru, [&](long long i) { return red_off(row0 + i); });
                f.accum = (acc ? 2 : 1) * pixels * consecutive(cu);
                break;
              }
              case Dataflow::OS: {
                // `a` and `w` together, one row per reduction index: input lanes = output
                // pixels row0 + i, weight lanes k = col0 + j; then ru result rows.
                f.input = red * lanes(ru, [&](long long i) { return pix_off(row0 + i); });
                f.weight = red * consecutive(cu);
                f.accum = (acc ? 2 : 1) * ru * consecutive(cu);
                break;
              }
              case Dataflow::IS: {
                // `w` preload: one row per reduction row, lanes = pixels col0 + i; `a`: one
                // row per output channel, weight lanes (row0 + i) * tk; results: one row per
                // channel, accumulator lanes (col0 + i) * tg * tk.
                f.input = ru * lanes(cu, [&](long long i) { return pix_off(col0 + i); });
                f.weight = tk * lanes(ru, [&](long long i) { return i * tk; });
                f.accum = (acc ? 2 : 1) * tk * lanes(cu, [&](long long i) { return i * tg * tk; });
                break;
              }
            }
            hit = memo.emplace(key, f).first;
          }
          st.input += hit->second.input;
          st.weight += hit->second.weight;
          st.accum += hit->second.accum;
        });
  });
  return st;
}

}  // namespace mapwright::model
