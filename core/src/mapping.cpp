// Mappings: exact YAML round trip and structural checks against a layer and an architecture.
#include "mapwright/core/mapping.hpp"

#include <sstream>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace mapwright::core {

const char* fold_order_name(FoldOrder f) {
  return f == FoldOrder::RowsOuter ? "rows_outer" : "cols_outer";
}

bool Mapping::operator==(const Mapping& o) const {
  return dataflow == o.dataflow && tile == o.tile && order == o.order &&
         fold_order == o.fold_order && pe_rows == o.pe_rows && pe_cols == o.pe_cols &&
         db_input == o.db_input && db_weight == o.db_weight && db_accum == o.db_accum &&
         layer_shape == o.layer_shape;
}

std::string mapping_to_yaml(const Mapping& m) {
  std::ostringstream os;
  if (!m.layer_shape.empty()) {
    // Quoted and escaped by yaml-cpp, so any text read from a mapping file round-trips.
    YAML::Emitter layer;
    layer << YAML::DoubleQuoted << m.layer_shape;
    os << "layer: " << layer.c_str() << "\n";
  }
  os << "dataflow: " << dataflow_name(m.dataflow) << "\n";
  os << "tiles: {";
  const Dim tile_dims[] = {Dim::G, Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
  for (int i = 0; i < kNumDims; ++i)
    os << (i ? ", " : "") << dim_name(tile_dims[i]) << ": " << m.tile_of(tile_dims[i]);
  os << "}\n";
  os << "order: [";
  for (int i = 0; i < kNumOrderedDims; ++i) os << (i ? ", " : "") << dim_name(m.order[i]);
  os << "]  # level-2 loops, outermost first (G is always outermost)\n";
  os << "fold_order: " << fold_order_name(m.fold_order) << "\n";
  os << "pe: {rows: " << m.pe_rows << ", cols: " << m.pe_cols << "}\n";
  os << "double_buffer: {input: " << (m.db_input ? "true" : "false")
     << ", weight: " << (m.db_weight ? "true" : "false")
     << ", accum: " << (m.db_accum ? "true" : "false") << "}\n";
  return os.str();
}

namespace {
Dim parse_dim(const std::string& t, const std::string& where, const std::string& key) {
  for (int d = 0; d < kNumDims; ++d)
    if (t == dim_name(static_cast<Dim>(d))) return static_cast<Dim>(d);
  throw SpecError(where, key, t, "unknown loop dimension (known: N K C P Q R S G)");
}

Mapping from_node(const YAML::Node& root, const std::string& where) {
  check_keys(root, where, "",
             {"layer", "dataflow", "tiles", "order", "fold_order", "pe", "double_buffer"});
  Mapping m;
  m.layer_shape = get_string(root, "layer", where, "", "");
  if (!m.layer_shape.empty()) {
    // Layer::shape_key(): ten non-negative integers N,G,K,C,H,W,R,S,stride,pad.
    int fields = 1;
    bool ok =
        m.layer_shape.front() != ',' && m.layer_shape.back() != ',' && m.layer_shape.size() <= 200;
    for (size_t i = 0; ok && i < m.layer_shape.size(); ++i) {
      const char c = m.layer_shape[i];
      if (c == ',') {
        ++fields;
        ok = m.layer_shape[i - 1] != ',';
      } else {
        ok = c >= '0' && c <= '9';
      }
    }
    if (!ok || fields != 10)
      throw SpecError(where, "layer", m.layer_shape,
                      "expected the layer's shape key N,G,K,C,H,W,R,S,stride,pad (ten integers)");
  }
  const std::string df = get_string(root, "dataflow", where, "", "", true);
  if (!parse_dataflow(df, m.dataflow))
    throw SpecError(where, "dataflow", df,
                    std::string("unknown dataflow (known: ") + known_dataflows() + ")");

  const YAML::Node tiles = root["tiles"];
  if (!tiles) throw SpecError(where, "tiles", "", "required key is missing");
  check_keys(tiles, where, "tiles", {"G", "N", "K", "C", "P", "Q", "R", "S"});
  for (int d = 0; d < kNumDims; ++d) {
    const char* n = dim_name(static_cast<Dim>(d));
    // A tile is at most its loop bound, and loop bounds are at most 2^24 (make_layer).
    m.tile[d] =
        get_int_in(tiles, n, where, "tiles", 1, 1, int64_t{1} << 24, d != static_cast<int>(Dim::G));
  }

  const YAML::Node order = root["order"];
  if (!order) throw SpecError(where, "order", "", "required key is missing");
  if (!order.IsSequence() || order.size() != kNumOrderedDims)
    throw SpecError(where, "order", node_text(order),
                    "expected a list of the 7 loops N K C P Q R S in some order");
  std::array<bool, kNumDims> used{};
  for (int i = 0; i < kNumOrderedDims; ++i) {
    const Dim d =
        parse_dim(scalar_of(order[i], where, "order[" + std::to_string(i) + "]"), where, "order");
    if (d == Dim::G) throw SpecError(where, "order", "G", "G is always outermost; leave it out");
    if (used[static_cast<int>(d)])
      throw SpecError(where, "order", node_text(order), "loop listed twice");
    used[static_cast<int>(d)] = true;
    m.order[i] = d;
  }

  const std::string fo = get_string(root, "fold_order", where, "", "rows_outer");
  if (fo == "rows_outer")
    m.fold_order = FoldOrder::RowsOuter;
  else if (fo == "cols_outer")
    m.fold_order = FoldOrder::ColsOuter;
  else
    throw SpecError(where, "fold_order", fo, "expected rows_outer or cols_outer");

  const YAML::Node pe = root["pe"];
  if (!pe) throw SpecError(where, "pe", "", "required key is missing");
  check_keys(pe, where, "pe", {"rows", "cols"});
  // The largest array is 64 x 64 (see load_arch_file); check_mapping tightens to the arch.
  const long long pr = get_int_in(pe, "rows", where, "pe", 0, 1, 64, true);
  const long long pc = get_int_in(pe, "cols", where, "pe", 0, 1, 64, true);
  m.pe_rows = static_cast<int>(pr);
  m.pe_cols = static_cast<int>(pc);

  if (const YAML::Node db = root["double_buffer"]) {
    check_keys(db, where, "double_buffer", {"input", "weight", "accum"});
    m.db_input = get_bool(db, "input", where, "double_buffer", false);
    m.db_weight = get_bool(db, "weight", where, "double_buffer", false);
    m.db_accum = get_bool(db, "accum", where, "double_buffer", false);
  }
  return m;
}
}  // namespace

Mapping mapping_from_yaml(const std::string& text, const std::string& where) {
  const YAML::Node root = load_yaml_text(text, where);
  require_map(root, where, "");
  return from_node(root, where);
}

Mapping load_mapping_file(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  require_map(root, path, "");
  return from_node(root, path);
}

void check_mapping(const Mapping& m, const Layer& l, const Arch& a, const std::string& where) {
  if (!m.layer_shape.empty() && m.layer_shape != l.shape_key())
    throw SpecError(where, "layer", m.layer_shape,
                    "mapping was made for another layer (this layer is " + l.shape_key() + ")");
  for (int d = 0; d < kNumDims; ++d) {
    const long long bound = l.dim(static_cast<Dim>(d));
    if (m.tile[d] <= 0)
      throw SpecError(where, std::string("tiles.") + dim_name(static_cast<Dim>(d)),
                      std::to_string(m.tile[d]), "tile size must be a positive integer");
    if (m.tile[d] > bound)
      throw SpecError(where, std::string("tiles.") + dim_name(static_cast<Dim>(d)),
                      std::to_string(m.tile[d]),
                      "tile is larger than its loop bound " + std::to_string(bound));
  }
  if (m.pe_rows < 1 || m.pe_rows > a.rows)
    throw SpecError(where, "pe.rows", std::to_string(m.pe_rows),
                    "must be between 1 and the array's " + std::to_string(a.rows) + " rows");
  if (m.pe_cols < 1 || m.pe_cols > a.cols)
    throw SpecError(where, "pe.cols", std::to_string(m.pe_cols),
                    "must be between 1 and the array's " + std::to_string(a.cols) + " columns");
  if (!a.supports(m.dataflow))
    throw SpecError(where, "dataflow", dataflow_name(m.dataflow),
                    "not supported by architecture " + a.name);
}

}  // namespace mapwright::core
