// The input tile's buffer-row formula (core::input_rows, the RTL's input layout) against
// core::input_extent.
#include <gtest/gtest.h>

#include <algorithm>

#include "mapwright/core/tile_program.hpp"

using namespace mapwright::core;

// For every (output-row tile, filter-row tile) the distinct in-bounds rows equal
// core::input_extent, core::input_row_shape gives input_rows' count, step and clip without the
// list, and the buffer row pl*a + rl - clip of every position is in range exactly
// when the position is in bounds, and then holds that absolute row.
TEST(InputRows, BufferRowFormulaMatchesInputExtent) {
  long long cases = 0;
  for (long long stride = 1; stride <= 4; ++stride)
    for (long long r = 1; r <= 5; ++r)
      for (long long pad = 0; pad < r; ++pad)
        for (long long h = r; h <= 12; ++h) {
          const long long p = (h + 2 * pad - r) / stride + 1;
          for (long long tp = 1; tp <= p; ++tp)
            for (long long tr = 1; tr <= r; ++tr)
              for (long long p0 = 0; p0 < p; p0 += tp)
                for (long long r0 = 0; r0 < r; r0 += tr) {
                  const long long pt = std::min(tp, p - p0), rt = std::min(tr, r - r0);
                  const RowMap m = input_rows(p0, pt, r0, rt, stride, pad, h);
                  ASSERT_EQ(static_cast<long long>(m.rows.size()),
                            input_extent(p0, pt, r0, rt, stride, pad, h));
                  const RowShape sh = input_row_shape(p0, pt, r0, rt, stride, pad, h);
                  ASSERT_EQ(sh.held, static_cast<long long>(m.rows.size()));
                  ASSERT_EQ(sh.a, m.a);
                  ASSERT_EQ(sh.clip, m.clip);
                  for (long long pl = 0; pl < pt; ++pl)
                    for (long long rl = 0; rl < rt; ++rl) {
                      const long long abs = p0 * stride + r0 - pad + pl * stride + rl;
                      const long long row = pl * m.a + rl - m.clip;
                      const bool in = abs >= 0 && abs < h;
                      const bool held = row >= 0 && row < static_cast<long long>(m.rows.size());
                      ASSERT_EQ(in, held) << "stride " << stride << " pad " << pad << " h " << h
                                          << " p0 " << p0 << " pt " << pt << " r0 " << r0 << " rt "
                                          << rt << " pl " << pl << " rl " << rl;
                      if (in) {
                        ASSERT_EQ(m.rows[static_cast<size_t>(row)], abs);
                      }
                    }
                  ++cases;
                }
        }
  EXPECT_GT(cases, 10000);
}
