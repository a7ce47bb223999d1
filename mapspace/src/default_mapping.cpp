// The default mapping: a greedy starting point that fits the buffers (the whole filter window
// when it fits, then K, C, Q, P, N and G tiles doubled in turn while everything fits), used by
// `eval` and `verify` without --mapping, by the regression suites and by tests.
#include "mapwright/mapspace/mapspace.hpp"

#include <algorithm>

namespace mapwright::core {

Mapping default_mapping(const Layer& l, const Arch& a) {
  Mapping m;
  m.dataflow = a.dataflows.front();
  m.pe_rows = a.rows;
  m.pe_cols = a.cols;
  m.order = {Dim::N, Dim::K, Dim::P, Dim::Q, Dim::C, Dim::R, Dim::S};
  m.layer_shape = l.shape_key();
  // Whole filter window; grow K, C, Q, P, N, G while everything fits.
  m.tile[static_cast<int>(Dim::R)] = l.r;
  m.tile[static_cast<int>(Dim::S)] = l.s;
  if (!check_capacity(l, a, m).ok()) {
    m.tile[static_cast<int>(Dim::R)] = 1;
    m.tile[static_cast<int>(Dim::S)] = 1;
  }
  const Dim grow[] = {Dim::K, Dim::C, Dim::Q, Dim::P, Dim::N, Dim::G};
  bool changed = true;
  while (changed) {
    changed = false;
    for (Dim d : grow) {
      long long& t = m.tile[static_cast<int>(d)];
      const long long bound = l.dim(d);
      if (t >= bound) continue;
      const long long old = t;
      t = std::min(bound, t * 2);
      if (check_capacity(l, a, m).ok())
        changed = true;
      else
        t = old;
    }
  }
  return m;
}

}  // namespace mapwright::core
