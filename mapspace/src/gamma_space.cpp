// The GAMMA / ArchGym encoding: parameter list and domains, and vector -> mapping with the
// reason a vector names no mapping of the array (gamma_space.hpp).
#include "mapwright/mapspace/gamma_space.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mapwright::core {

const std::array<Dim, 6> GammaSpace::kLevelDims = {Dim::S, Dim::R, Dim::K, Dim::C, Dim::Q, Dim::P};
const std::array<Dim, 6> GammaSpace::kOrderDims = {Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
const std::array<Dim, 4> GammaSpace::kParDims = {Dim::K, Dim::C, Dim::Q, Dim::P};

namespace {

/// GAMMA's name of a layer dim (X and Y are the output columns Q and rows P).
const char* gamma_dim_name(Dim d) {
  switch (d) {
    case Dim::K:
      return "K";
    case Dim::C:
      return "C";
    case Dim::Q:
      return "X";
    case Dim::P:
      return "Y";
    case Dim::R:
      return "R";
    case Dim::S:
      return "S";
    default:
      return "?";
  }
}

bool is_pixel(Dim d) {
  return d == Dim::P || d == Dim::Q;
}

/// The dataflow whose array axes carry the unordered pair {a, b}, with the dim on its rows
/// and on its columns; false when no dataflow of the array unrolls that pair.
bool dataflow_of(Dim a, Dim b, Dataflow* df, Dim* row_dim, Dim* col_dim) {
  auto pick = [&](Dim x, Dim y) {
    if (x == Dim::C && y == Dim::K) {
      *df = Dataflow::WS, *row_dim = Dim::C, *col_dim = Dim::K;
      return true;
    }
    if (is_pixel(x) && y == Dim::K) {
      *df = Dataflow::OS, *row_dim = x, *col_dim = Dim::K;
      return true;
    }
    if (x == Dim::C && is_pixel(y)) {
      *df = Dataflow::IS, *row_dim = Dim::C, *col_dim = y;
      return true;
    }
    return false;
  };
  return pick(a, b) || pick(b, a);
}

}  // namespace

std::array<Dim, 6> gamma_order_from_index(long long index) {
  const std::vector<Dim> p = permutation_from_index(
      index, std::vector<Dim>(GammaSpace::kOrderDims.begin(), GammaSpace::kOrderDims.end()));
  std::array<Dim, 6> out{};
  std::copy(p.begin(), p.end(), out.begin());
  return out;
}

GammaSpace::GammaSpace(Layer layer, Arch arch)
    : layer_(std::move(layer)), arch_(std::move(arch)), shape_key_(layer_.shape_key()) {
  auto level = [&](const char* lv) {
    for (Dim d : kLevelDims) {
      std::string name = gamma_dim_name(d);
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      params_.push_back({name + "_" + lv, layer_.dim(d), true});
    }
  };
  params_.push_back({"seed_l2", 720, false});
  params_.push_back({"par_l2", 4, false});
  level("l2");
  params_.push_back({"par_l1", 4, false});
  level("l1");
  params_.push_back({"seed_l1", 720, false});
  params_.push_back({"num_pe", static_cast<long long>(arch_.rows) * arch_.cols, true});
}

GammaDecoded GammaSpace::decode(const ParamVector& v) const {
  auto at = [&](int i) {
    return std::clamp<long long>(i < static_cast<int>(v.size()) ? v[i] : 0, 0,
                                 params_[i].cardinality - 1);
  };
  GammaDecoded out;
  Mapping& m = out.mapping;
  m.layer_shape = shape_key_;
  m.db_input = m.db_weight = m.db_accum = true;
  // Level 2: buffer tiles and loop order (N outermost, then the permutation).
  std::array<long long, kNumDims> l1{};
  for (int i = 0; i < 6; ++i) {
    const Dim d = kLevelDims[i];
    m.tile[static_cast<int>(d)] = at(kL2First + i) + 1;
    l1[static_cast<int>(d)] = at(kL1First + i) + 1;
  }
  m.tile[static_cast<int>(Dim::N)] = 1;
  m.tile[static_cast<int>(Dim::G)] = 1;
  const std::array<Dim, 6> outer = gamma_order_from_index(at(kSeedL2));
  m.order[0] = Dim::N;
  std::copy(outer.begin(), outer.end(), m.order.begin() + 1);
  // Level 1: the two unrolled dims pick the dataflow and the PE use.
  const Dim a = kParDims[at(kParL2)], b = kParDims[at(kParL1)];
  Dim row_dim = Dim::N, col_dim = Dim::N;
  if (!dataflow_of(a, b, &m.dataflow, &row_dim, &col_dim)) {
    out.invalid = a == b ? std::string("both levels unroll ") + gamma_dim_name(a) +
                               ": the array's two axes need two dims"
                         : std::string("no dataflow of the array unrolls ") + gamma_dim_name(a) +
                               " with " + gamma_dim_name(b);
    return out;
  }
  if (std::find(arch_.dataflows.begin(), arch_.dataflows.end(), m.dataflow) ==
      arch_.dataflows.end()) {
    out.invalid = std::string("the pair ") + gamma_dim_name(a) + ", " + gamma_dim_name(b) +
                  " needs dataflow " + dataflow_name(m.dataflow) +
                  ", which this architecture does not have";
    return out;
  }
  for (Dim d : kLevelDims) {
    const long long inner = l1[static_cast<int>(d)], outer_tile = m.tile_of(d);
    if (inner > outer_tile) {
      out.invalid = std::string("l1 tile of ") + gamma_dim_name(d) + " (" + std::to_string(inner) +
                    ") exceeds its l2 tile (" + std::to_string(outer_tile) + ")";
      return out;
    }
  }
  // A spatial map wider than the array is folded over it (as MAESTRO folds one over its PEs).
  const long long pe_rows = std::min<long long>(l1[static_cast<int>(row_dim)], arch_.rows);
  const long long pe_cols = std::min<long long>(l1[static_cast<int>(col_dim)], arch_.cols);
  m.pe_rows = static_cast<int>(pe_rows);
  m.pe_cols = static_cast<int>(pe_cols);
  const std::array<Dim, 6> inner = gamma_order_from_index(at(kSeedL1));
  const auto pos = [&](Dim d) { return std::find(inner.begin(), inner.end(), d) - inner.begin(); };
  m.fold_order = pos(row_dim) < pos(col_dim) ? FoldOrder::RowsOuter : FoldOrder::ColsOuter;
  return out;
}

double GammaSpace::log10_size() const {
  double s = 0;
  for (const auto& p : params_) s += std::log10(static_cast<double>(p.cardinality));
  return s;
}

}  // namespace mapwright::core
