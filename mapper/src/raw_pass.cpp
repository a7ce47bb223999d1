// The raw pass's space (raw_pass.hpp): which loops and PE uses keep their compact rules on
// banked buffers and on the burst port, and the widened K sizes under IS.
#include "raw_pass.hpp"

#include <algorithm>

#include "mapwright/core/loopnest.hpp"

namespace mapwright::mapper {

using namespace mapwright::core;

namespace {

bool is_prime(long long n) {
  if (n < 2) return false;
  for (long long d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

}  // namespace

RawPass raw_pass_space(const Layer& l, const Arch& arch, bool unservable) {
  RawPass c;
  const unsigned all = (1u << kNumDims) - 1, k = 1u << I(Dim::K);
  const unsigned np = (1u << I(Dim::N)) | (1u << I(Dim::P));
  const long long banks = arch.buffer_banks;
  const bool narrow = arch.cols <= banks;  // consecutive lanes never conflict
  for (Dataflow df : {Dataflow::WS, Dataflow::OS, Dataflow::IS}) {
    const size_t i = static_cast<size_t>(df);
    unsigned dims = all;
    bool pe_cols = true, pe_rows = true;
    // Lists without a conflict on any tiling: then the bank cycles are one per fold, a
    // function of the fold sums, and the compact space is exact. Under WS with a 1x1 filter the
    // input lanes are consecutive words (R and S tiles of one); under OS with one output pixel
    // every input row has one lane.
    const bool conflict_free =
        narrow && ((df == Dataflow::WS && l.r == 1 && l.s == 1 && arch.rows <= banks) ||
                   (df == Dataflow::OS && l.n * l.p * l.q == 1));
    if (banks > 0 && !conflict_free) {
      // Under IS the columns carry the pixel lanes, one lane with one output pixel.
      pe_cols = narrow && (df != Dataflow::IS || l.n * l.p * l.q == 1);
      pe_rows = false;  // the rows carry the input (WS, OS) or weight (IS) lanes
      dims = df == Dataflow::IS ? 0 : (narrow ? k : 0) | (df == Dataflow::WS ? np : 0);
    }
    if (unservable) dims &= k;
    // IS with a prime bank count above the array's rows and columns: the weight rows' lanes
    // (red words at a stride of tk) and the result lanes (a stride of tg*tk, core::
    // accum_bank_problem) meet in one bank only when the stride is a multiple of B, so a K
    // size enters the bank terms and the accumulator check only through whether its full or
    // last tile is such a multiple (weighted by tk - 1 and tk, which sum over the K tiles to
    // the trip count's terms). Stalls only add cycles: a K size is dominated by its compact
    // size unless that one is a multiple, and then the trip count keeps every size.
    c.k_prone_banks[i] = 0;
    if (df == Dataflow::IS && banks > 0 && !(dims & k) && is_prime(banks) && arch.rows < banks &&
        arch.cols < banks)
      c.k_prone_banks[i] = banks;
    c.compact_dims[i] = dims;
    c.compact_pe_cols[i] = pe_cols;
    c.compact_pe_rows[i] = pe_rows;
  }
  c.compact_db = true;
  return c;
}

std::vector<long long> widen_k_sizes(std::vector<long long> compact, long long K, long long banks) {
  std::vector<long long> wide = compact;
  for (long long t : compact) {
    const long long T = cdiv(K, t), rem = K - (T - 1) * std::min(t, K);
    if (std::min(t, K) % banks != 0 && (T == 1 || rem % banks != 0)) continue;
    const long long hi = T == 1 ? K : (K - 1) / (T - 1);
    for (long long u = cdiv(K, T); u <= hi; ++u) wide.push_back(u);
  }
  std::sort(wide.begin(), wide.end());
  wide.erase(std::unique(wide.begin(), wide.end()), wide.end());
  return wide;
}

}  // namespace mapwright::mapper
