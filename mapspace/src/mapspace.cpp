// The map space: parameter list and domains, vector <-> mapping, size, and sampling.
#include "mapwright/mapspace/mapspace.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace mapwright::core {

namespace {
constexpr Dim kTileDims[] = {Dim::G, Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
constexpr Dim kCanonical[] = {Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
// The parameter slots, in the order the constructor lists them: one tile slot per dimension.
enum Idx : int {
  kDataflow,
  kTile0,
  kOrder = kTile0 + kNumDims,
  kFold,
  kPeRows,
  kPeCols,
  kDbIn,
  kDbWt,
  kDbAcc,
  kNumParams
};
static_assert(std::size(kTileDims) == kNumDims && kNumParams == 16,
              "a tile slot per dimension, 16 parameters (the raw encoding)");
}  // namespace

std::vector<Dim> permutation_from_index(long long index, std::vector<Dim> pool) {
  long long f = 1;  // (n - 1)!
  for (size_t i = 2; i < pool.size(); ++i) f *= static_cast<long long>(i);
  const long long n = f * static_cast<long long>(std::max<size_t>(pool.size(), 1));
  index = ((index % n) + n) % n;
  std::vector<Dim> out;
  while (!pool.empty()) {
    const long long pick = index / f;
    index %= f;
    out.push_back(pool[pick]);
    pool.erase(pool.begin() + pick);
    if (!pool.empty()) f /= static_cast<long long>(pool.size());
  }
  return out;
}

std::array<Dim, kNumOrderedDims> order_from_index(long long index) {
  const std::vector<Dim> p =
      permutation_from_index(index, std::vector<Dim>(std::begin(kCanonical), std::end(kCanonical)));
  std::array<Dim, kNumOrderedDims> out{};
  std::copy(p.begin(), p.end(), out.begin());
  return out;
}

long long order_to_index(const std::array<Dim, kNumOrderedDims>& order) {
  std::vector<Dim> pool(std::begin(kCanonical), std::end(kCanonical));
  long long index = 0, f = 720;
  for (int i = 0; i < kNumOrderedDims; ++i) {
    const auto it = std::find(pool.begin(), pool.end(), order[i]);
    index += (it - pool.begin()) * f;
    pool.erase(it);
    if (i < kNumOrderedDims - 1) f /= (kNumOrderedDims - 1 - i);
  }
  return index;
}

MapSpace::MapSpace(Layer layer, Arch arch)
    : layer_(std::move(layer)), arch_(std::move(arch)), shape_key_(layer_.shape_key()) {
  params_.push_back({"dataflow", static_cast<long long>(arch_.dataflows.size()), false});
  for (Dim d : kTileDims)
    params_.push_back({std::string("tile_") + dim_name(d), layer_.dim(d), true});
  params_.push_back({"order", 5040, false});
  params_.push_back({"fold_order", 2, false});
  params_.push_back({"pe_rows", arch_.rows, true});
  params_.push_back({"pe_cols", arch_.cols, true});
  params_.push_back({"db_input", 2, false});
  params_.push_back({"db_weight", 2, false});
  params_.push_back({"db_accum", 2, false});
}

Mapping MapSpace::decode(const ParamVector& v) const {
  auto at = [&](int i) {
    return std::clamp<long long>(i < static_cast<int>(v.size()) ? v[i] : 0, 0,
                                 params_[i].cardinality - 1);
  };
  Mapping m;
  m.dataflow = arch_.dataflows[at(kDataflow)];
  for (int i = 0; i < kNumDims; ++i) m.tile[static_cast<int>(kTileDims[i])] = at(kTile0 + i) + 1;
  m.order = order_from_index(at(kOrder));
  m.fold_order = at(kFold) ? FoldOrder::ColsOuter : FoldOrder::RowsOuter;
  m.pe_rows = static_cast<int>(at(kPeRows) + 1);
  m.pe_cols = static_cast<int>(at(kPeCols) + 1);
  m.db_input = at(kDbIn) != 0;
  m.db_weight = at(kDbWt) != 0;
  m.db_accum = at(kDbAcc) != 0;
  m.layer_shape = shape_key_;
  return m;
}

ParamVector MapSpace::encode(const Mapping& m) const {
  ParamVector v(kNumParams, 0);
  v[kDataflow] = std::find(arch_.dataflows.begin(), arch_.dataflows.end(), m.dataflow) -
                 arch_.dataflows.begin();
  for (int i = 0; i < kNumDims; ++i) v[kTile0 + i] = m.tile[static_cast<int>(kTileDims[i])] - 1;
  v[kOrder] = order_to_index(m.order);
  v[kFold] = m.fold_order == FoldOrder::ColsOuter;
  v[kPeRows] = m.pe_rows - 1;
  v[kPeCols] = m.pe_cols - 1;
  v[kDbIn] = m.db_input;
  v[kDbWt] = m.db_weight;
  v[kDbAcc] = m.db_accum;
  return v;
}

double MapSpace::log10_size() const {
  double s = 0;
  for (const auto& p : params_) s += std::log10(static_cast<double>(p.cardinality));
  return s;
}

ParamVector MapSpace::sample_naive(std::mt19937_64& rng) const {
  ParamVector v(params_.size());
  for (size_t i = 0; i < params_.size(); ++i)
    v[i] = std::uniform_int_distribution<long long>(0, params_[i].cardinality - 1)(rng);
  return v;
}

bool MapSpace::sample_valid(std::mt19937_64& rng, ParamVector& out, long long max_tries,
                            long long* tries) const {
  for (long long t = 1; t <= max_tries; ++t) {
    ParamVector v = sample_naive(rng);
    if (check(decode(v)).ok()) {
      out = std::move(v);
      if (tries) *tries = t;
      return true;
    }
  }
  if (tries) *tries = max_tries;
  return false;
}

double MapSpace::naive_invalid_rate(std::mt19937_64& rng, long long n) const {
  long long bad = 0;
  for (long long i = 0; i < n; ++i) bad += !check(decode(sample_naive(rng))).ok();
  return n ? static_cast<double>(bad) / n : 0.0;
}

}  // namespace mapwright::core
