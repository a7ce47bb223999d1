// The ONNX import: read and check the file, fix the graph inputs' shapes, infer every tensor's
// shape (the file's value_info, the ONNX library's inference with data propagation, and our
// folding of integer shape programs, until nothing changes), then turn each compute node into a
// layer and count the rest. import_onnx runs all of it in a forked child (onnx_sandbox.cpp).
#include "mapwright/frontend/onnx_import.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "mapwright/core/layer_shapes.hpp"
#include "mapwright/support/error.hpp"
#include "onnx_fold.hpp"
#include "onnx_in_process.hpp"

namespace fs = std::filesystem;

namespace mapwright::core {

namespace {

using onnx_detail::StaticShapes;

/// Ops that are compute layers mapwright could map, and those it cannot express.
const std::set<std::string>& unsupported_compute_ops() {
  static const std::set<std::string> ops = {
      "ConvTranspose", "ConvInteger", "QLinearConv", "MatMulInteger", "QLinearMatMul",
      "Einsum",        "LSTM",        "GRU",         "RNN",           "Attention",
      "DeformConv",    "FusedConv",   "FusedGemm",   "FusedMatMul",   "QGemm"};
  return ops;
}

std::string dims_text(const std::vector<std::string>& dims) {
  std::string s;
  for (const auto& d : dims) s += (s.empty() ? "" : "x") + d;
  return s.empty() ? "(scalar)" : s;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::vector<std::string> t;
  for (int64_t d : dims) t.push_back(std::to_string(d));
  return dims_text(t);
}

/// A tensor's dimensions as text ("?" for an unknown one, the symbol for a symbolic one); empty
/// optional if it has no shape at all.
std::optional<std::vector<std::string>> dims_of(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& d : t.tensor_type().shape().dim())
    out.push_back(d.has_dim_value()   ? std::to_string(d.dim_value())
                  : d.has_dim_param() ? d.dim_param()
                                      : "?");
  return out;
}

/// Every tensor's shape after inference: static ones, and the text of the others.
struct Shapes {
  StaticShapes known;                                       ///< Fully static shapes.
  std::map<std::string, std::vector<std::string>> partial;  ///< Shapes with unknown dims.

  void add(const std::string& name, const onnx::TypeProto& t) {
    const auto dims = dims_of(t);
    if (!dims) return;
    std::vector<int64_t> v;
    for (const auto& d : t.tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) {
        partial[name] = *dims;
        return;
      }
      v.push_back(d.dim_value());
    }
    known[name] = v;
    partial.erase(name);
  }
};

Shapes collect_shapes(const onnx::GraphProto& g) {
  Shapes s;
  for (const auto& t : g.initializer())
    s.known[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
  for (const auto& v : g.input()) s.add(v.name(), v.type());
  for (const auto& v : g.value_info()) s.add(v.name(), v.type());
  for (const auto& v : g.output()) s.add(v.name(), v.type());
  return s;
}

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "file", path, std::string("cannot open: ") + std::strerror(errno));
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw SpecError(path, "file", path, "is a directory");
  onnx::ModelProto m;
  if (!m.ParseFromIstream(&in))
    throw SpecError(path, "file", path,
                    "not an ONNX model: the protobuf cannot be parsed (truncated, corrupt or "
                    "another format)");
  // An empty or foreign protobuf can parse as a ModelProto with nothing in it.
  if (m.ir_version() <= 0 || !m.has_graph() || m.graph().node_size() == 0)
    throw SpecError(path, "file", path,
                    "not an ONNX model: no IR version or no graph nodes (truncated, corrupt or "
                    "another format)");
  return m;
}

int64_t default_opset(const onnx::ModelProto& m, const std::string& path) {
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  throw SpecError(path, "opset_import", "", "the model imports no default-domain (ai.onnx) opset");
}

void check_opset(int64_t opset, const std::string& path) {
  if (opset < kOnnxMinOpset || opset > onnx_max_opset())
    throw SpecError(path, "opset", std::to_string(opset),
                    "unsupported default-domain opset; this build reads opsets " +
                        std::to_string(kOnnxMinOpset) + ".." + std::to_string(onnx_max_opset()) +
                        " (re-export with e.g. torch.onnx.export(..., opset_version=14))");
}

/// Names of graph inputs that are not initializers.
std::vector<const onnx::ValueInfoProto*> real_inputs(const onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& v : g.input())
    if (!inits.count(v.name())) out.push_back(&v);
  return out;
}

/// The graph inputs as "name DIMS", those with dynamic dimensions only if `dynamic_only` and
/// any has one.
std::string input_names(const onnx::GraphProto& g, bool dynamic_only = false) {
  auto is_dynamic = [](const onnx::ValueInfoProto* v) {
    const auto dims = dims_of(v->type());
    return !dims || std::any_of(dims->begin(), dims->end(), [](const std::string& d) {
      return d.empty() || !std::isdigit(static_cast<unsigned char>(d[0]));
    });
  };
  const auto inputs = real_inputs(g);
  const bool any_dynamic = std::any_of(inputs.begin(), inputs.end(), is_dynamic);
  std::string s;
  size_t listed = 0, total = 0;
  for (const auto* v : inputs) {
    if (dynamic_only && any_dynamic && !is_dynamic(v)) continue;
    if (++total > 6) continue;  // weights exported as inputs can number hundreds
    const auto dims = dims_of(v->type());
    s += (s.empty() ? "" : ", ") + v->name() + (dims ? " " + dims_text(*dims) : " (no shape)");
    ++listed;
  }
  if (total > listed) s += ", ... (" + std::to_string(total) + " inputs)";
  return s.empty() ? "(none)" : s;
}

/// Replaces the dimensions of the named graph inputs by the --input-shape values.
void apply_input_shapes(onnx::GraphProto& g, const OnnxOptions& o, const std::string& path) {
  for (const auto& [name, dims] : o.input_shapes) {
    std::set<std::string> inits;
    for (const auto& t : g.initializer()) inits.insert(t.name());
    onnx::ValueInfoProto* target = nullptr;
    for (auto& v : *g.mutable_input())
      if (v.name() == name && !inits.count(name)) target = &v;
    if (!target)
      throw SpecError(
          "--input-shape", name, dims_text(dims),
          "no graph input of " + path + " has this name; its inputs: " + input_names(g));
    auto* shape = target->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() > 0 && shape->dim_size() != static_cast<int>(dims.size()))
      throw SpecError("--input-shape", name, dims_text(dims),
                      "the file declares rank " + std::to_string(shape->dim_size()) + " (" +
                          dims_text(*dims_of(target->type())) + ")");
    for (int i = 0; i < shape->dim_size(); ++i) {
      const auto& d = shape->dim(i);
      if (d.has_dim_value() && d.dim_value() != dims[static_cast<size_t>(i)])
        throw SpecError("--input-shape", name, dims_text(dims),
                        "dimension " + std::to_string(i) + " is fixed to " +
                            std::to_string(d.dim_value()) + " in the file");
    }
    shape->clear_dim();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
}

/// Refuses attribute values that the ONNX library's shape inference divides by or sizes with
/// without checking (a stride of 0 in a Conv made it die of SIGFPE; the checker lets it
/// through): strides, dilations, kernel_shape, blocksize and group must be positive and pads not
/// negative, on every node.
void check_attributes(const onnx::GraphProto& g, const std::string& path) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    for (const auto& a : n.attribute()) {
      const std::string& name = a.name();
      const bool positive = name == "strides" || name == "dilations" || name == "kernel_shape" ||
                            name == "blocksize" || name == "group";
      if (!positive && name != "pads") continue;
      std::vector<int64_t> v(a.ints().begin(), a.ints().end());
      if (a.type() == onnx::AttributeProto::INT) v.push_back(a.i());
      for (int64_t x : v)
        if (positive ? x <= 0 : x < 0)
          throw SpecError(
              path,
              (n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name()) + "." + name,
              std::to_string(x),
              std::string("must be ") + (positive ? "positive" : "zero or more") +
                  " (node of type " + n.op_type() + ")");
    }
  }
}

/// Shape inference to a fixed point: the library's inference (data propagation on), then our
/// folding of integer shape programs, until a round folds nothing (or 16 rounds).
Shapes infer_shapes(onnx::ModelProto& m, int64_t opset, const std::string& path) {
  const auto file_value_info = m.graph().value_info();
  const onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*error_mode=*/0,
                                         /*data_propagation=*/true);
  Shapes shapes;
  for (int round = 0; round < 16; ++round) {
    *m.mutable_graph()->mutable_value_info() = file_value_info;
    try {
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), opts);
    } catch (const std::exception& e) {
      throw SpecError(path, "shape inference", "",
                      std::string("the graph is inconsistent: ") + e.what());
    }
    shapes = collect_shapes(m.graph());
    if (onnx_detail::fold_shape_computations(*m.mutable_graph(), shapes.known, opset) == 0) break;
  }
  return shapes;
}

using onnx_detail::attr_int;

/// An INTS attribute, or `fallback` if absent.
std::vector<int64_t> attr_ints_or(const onnx::NodeProto& n, const std::string& name,
                                  std::vector<int64_t> fallback) {
  return onnx_detail::attr_ints(n, name).value_or(std::move(fallback));
}

/// A compute node that mapwright cannot express: the reason (a warning, or an error if strict).
struct Unsupported {
  std::string why;  ///< What about it cannot be mapped.
};

/// Converts one node; the layer, or Unsupported with the reason. Throws SpecError when an
/// input's shape is unknown.
class NodeConverter {
 public:
  NodeConverter(const Shapes& shapes, const onnx::GraphProto& g, const std::string& path)
      : shapes_(shapes), graph_(g), path_(path) {}

  /// The static shape of input `i` of `n`, or a SpecError naming the tensor and the dynamic
  /// graph inputs.
  std::vector<int64_t> input_shape(const onnx::NodeProto& n, int i,
                                   const std::string& node_name) const {
    if (n.input_size() <= i || n.input(i).empty())
      throw SpecError(path_, node_name, n.op_type(),
                      "input " + std::to_string(i) + " of this node is missing");
    const std::string& t = n.input(i);
    if (auto it = shapes_.known.find(t); it != shapes_.known.end()) return it->second;
    std::string have = "no shape";
    if (auto it = shapes_.partial.find(t); it != shapes_.partial.end())
      have = "shape " + dims_text(it->second);
    throw SpecError(path_, t, have,
                    "this tensor, input of " + n.op_type() + " node '" + node_name +
                        "', has no static shape; give the dynamic graph inputs a size with "
                        "--input-shape NAME=D0xD1x... (dynamic inputs: " +
                        input_names(graph_, true) + ")");
  }

  std::variant<Layer, Unsupported> convert(const onnx::NodeProto& n, const std::string& name) {
    if (n.op_type() == "Conv") return conv(n, name);
    if (n.op_type() == "Gemm") return gemm(n, name);
    return matmul(n, name);
  }

 private:
  std::variant<Layer, Unsupported> finish(Layer raw, const std::string& name) const {
    raw.name = name;
    try {
      return make_layer(raw, path_ + ": node '" + name + "'");
    } catch (const SpecError& e) {
      return Unsupported{"its shape is not a mapwright layer: " + e.why() + " (" + e.key() + " = " +
                         e.value() + ")"};
    }
  }

  std::variant<Layer, Unsupported> conv(const onnx::NodeProto& n, const std::string& name) const {
    const std::vector<int64_t> x = input_shape(n, 0, name), w = input_shape(n, 1, name);
    if (x.size() != 4 || w.size() != 4)
      return Unsupported{"a " + std::to_string(x.size() >= 2 ? x.size() - 2 : 0) +
                         "-D convolution (only 2-D convolutions are layers)"};
    const int64_t group = attr_int(n, "group", 1);
    const auto strides = attr_ints_or(n, "strides", {1, 1});
    const auto dil = attr_ints_or(n, "dilations", {1, 1});
    std::vector<int64_t> pads = attr_ints_or(n, "pads", {0, 0, 0, 0});
    const auto* ap = onnx_detail::find_attr(n, "auto_pad");
    const std::string auto_pad = ap ? ap->s() : "NOTSET";
    if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
      return Unsupported{"malformed strides, dilations or pads"};
    if (dil[0] != 1 || dil[1] != 1)
      return Unsupported{"dilation " + dims_text(dil) + " (dilated convolutions are not layers)"};
    if (strides[0] != strides[1])
      return Unsupported{"stride " + dims_text(strides) +
                         " (layers have one stride for both axes)"};
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      for (int a = 0; a < 2; ++a) {  // total padding so that out = ceil(in / stride)
        const int64_t in = x[static_cast<size_t>(2 + a)], k = w[static_cast<size_t>(2 + a)];
        const int64_t out = (in + strides[0] - 1) / strides[0];
        const int64_t total = std::max<int64_t>(0, (out - 1) * strides[0] + k - in);
        const int64_t small = total / 2, big = total - small;
        pads[static_cast<size_t>(a)] = auto_pad == "SAME_UPPER" ? small : big;
        pads[static_cast<size_t>(a + 2)] = auto_pad == "SAME_UPPER" ? big : small;
      }
    } else if (auto_pad == "VALID") {
      pads = {0, 0, 0, 0};
    }
    if (std::any_of(pads.begin(), pads.end(), [&](int64_t p) { return p != pads[0]; }))
      return Unsupported{"padding " + dims_text(pads) +
                         " (top, left, bottom, right; layers pad every side alike)"};
    if (group < 1 || x[1] % group != 0 || w[0] % group != 0 || x[1] / group != w[1])
      return Unsupported{"group " + std::to_string(group) + " does not divide the channels"};
    Layer raw;
    raw.n = x[0];
    raw.g = group;
    raw.k = w[0] / group;
    raw.c = w[1];
    raw.h = x[2];
    raw.w = x[3];
    raw.r = w[2];
    raw.s = w[3];
    raw.stride = strides[0];
    raw.pad = pads[0];
    raw.kind = group == 1                   ? LayerKind::Conv
               : (raw.k == 1 && raw.c == 1) ? LayerKind::Depthwise
                                            : LayerKind::Grouped;
    return finish(raw, name);
  }

  std::variant<Layer, Unsupported> gemm(const onnx::NodeProto& n, const std::string& name) const {
    const std::vector<int64_t> a = input_shape(n, 0, name), b = input_shape(n, 1, name);
    if (a.size() != 2 || b.size() != 2) return Unsupported{"Gemm operands are not 2-D"};
    const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
    const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
    const int64_t kb = tb ? b[1] : b[0], nc = tb ? b[0] : b[1];
    if (k != kb)
      return Unsupported{"inner dimensions differ (" + std::to_string(k) + " and " +
                         std::to_string(kb) + ")"};
    return finish(gemm_layer(name, m, k, nc), name);
  }

  /// MatMul with numpy semantics: 1-D operands are promoted; batch dimensions broadcast. A
  /// batch dimension where the second operand varies is a group (its own weights); one where it
  /// is shared is the batch N. Simplification: when only the second operand varies along a
  /// dimension, the groups read the same input (mapwright counts it per group).
  std::variant<Layer, Unsupported> matmul(const onnx::NodeProto& n, const std::string& name) const {
    std::vector<int64_t> a = input_shape(n, 0, name), b = input_shape(n, 1, name);
    if (a.empty() || b.empty()) return Unsupported{"a scalar operand"};
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    const int64_t m = a[a.size() - 2], k = a.back(), kb = b[b.size() - 2], nc = b.back();
    if (k != kb)
      return Unsupported{"inner dimensions differ (" + std::to_string(k) + " and " +
                         std::to_string(kb) + ")"};
    const size_t ba = a.size() - 2, bb = b.size() - 2, batch = std::max(ba, bb);
    int64_t nb = 1, groups = 1;
    for (size_t i = 0; i < batch; ++i) {  // right-aligned broadcast
      const int64_t da = i + ba >= batch ? a[i + ba - batch] : 1;
      const int64_t db = i + bb >= batch ? b[i + bb - batch] : 1;
      if (da != db && da != 1 && db != 1)
        return Unsupported{"batch dimensions do not broadcast (" + std::to_string(da) + " and " +
                           std::to_string(db) + ")"};
      if (db > 1)
        groups *= std::max(da, db);
      else
        nb *= da;
    }
    return finish(gemm_layer(name, m, k, nc, groups, nb), name);
  }

  const Shapes& shapes_;           ///< Every tensor's shape.
  const onnx::GraphProto& graph_;  ///< The graph (for the names of its inputs).
  const std::string& path_;        ///< The file, for messages.
};

/// A node's layer name: its ONNX name, or op type and index if it has none; made unique.
std::string node_name(const onnx::NodeProto& n, int index, std::set<std::string>& used) {
  std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  if (!used.insert(name).second) {
    int k = 2;
    while (!used.insert(name + "#" + std::to_string(k)).second) ++k;
    name += "#" + std::to_string(k);
  }
  return name;
}

/// The model after checks, with the options' input shapes and inferred shapes.
struct Loaded {
  onnx::ModelProto model;  ///< The (rewritten) model.
  int64_t opset = 0;       ///< Its default-domain opset.
  Shapes shapes;           ///< Every tensor's shape.
  /// Each node's op type as in the file (folding rewrites shape programs into Constants).
  std::vector<std::string> file_ops;
};

Loaded load(const std::string& path, const OnnxOptions& o) {
  Loaded l;
  l.model = read_model(path);
  l.opset = default_opset(l.model, path);
  check_opset(l.opset, path);
  try {
    // The path form: the checker resolves external data relative to the model's folder.
    onnx::checker::check_model(path);
  } catch (const std::exception& e) {
    throw SpecError(path, "model", "", std::string("the ONNX checker refuses it: ") + e.what());
  }
  check_attributes(l.model.graph(), path);
  for (const auto& n : l.model.graph().node()) l.file_ops.push_back(n.op_type());
  apply_input_shapes(*l.model.mutable_graph(), o, path);
  l.shapes = infer_shapes(l.model, l.opset, path);
  return l;
}

std::string describe(const onnx::ModelProto& m, int64_t opset, const std::string& path,
                     size_t layers) {
  std::ostringstream d;
  d << "ONNX model " << fs::path(path).filename().string() << " (";
  if (!m.producer_name().empty())
    d << m.producer_name() << (m.producer_version().empty() ? "" : " " + m.producer_version())
      << ", ";
  d << "opset " << opset << ", " << m.graph().node_size() << " nodes, " << layers
    << " compute layers)";
  return d.str();
}

}  // namespace

void add_input_shape(OnnxOptions& o, const std::string& text, const std::string& where) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
    throw SpecError(where, "input-shape", text, "expected NAME=D0xD1x... (e.g. input=1x3x224x224)");
  const std::string name = text.substr(0, eq), dims = text.substr(eq + 1);
  std::vector<int64_t> v;
  size_t pos = 0;
  while (pos <= dims.size()) {
    const size_t x = dims.find('x', pos);
    const std::string item = dims.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    const bool digits =
        !item.empty() && item.size() <= 8 &&
        std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!digits || std::stoll(item) < 1)
      throw SpecError(where, name, dims,
                      "every dimension must be a positive integer (e.g. 1x3x224x224)");
    v.push_back(std::stoll(item));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (!o.input_shapes.emplace(name, v).second)
    throw SpecError(where, name, dims, "this input's shape is given twice");
}

OnnxOptions make_onnx_options(const std::vector<std::string>& input_shapes, bool strict) {
  OnnxOptions o;
  for (const auto& t : input_shapes) add_input_shape(o, t);
  o.strict = strict;
  return o;
}

std::string import_note(const Network& n) {
  std::ostringstream s;
  if (!n.skipped.empty()) {
    int total = 0;
    for (const auto& [op, count] : n.skipped) total += count;
    s << n.name << ": " << n.layers.size() << " compute layers read; " << total
      << " other nodes skipped (";
    for (size_t i = 0; i < n.skipped.size(); ++i)
      s << (i ? ", " : "") << n.skipped[i].first << " " << n.skipped[i].second;
    s << ")\n";
  }
  for (const auto& w : n.warnings) s << "warning: " << w << "\n";
  return s.str();
}

bool is_onnx_path(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".onnx";
}

int onnx_max_opset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const auto it = map.find(onnx::ONNX_DOMAIN);
  return it == map.end() ? kOnnxMinOpset : it->second.second;
}

namespace onnx_detail {

Network import_in_process(const std::string& path, const OnnxOptions& o) {
  Loaded l = load(path, o);
  const onnx::GraphProto& g = l.model.graph();
  NodeConverter conv(l.shapes, g, path);
  Network net;
  net.name = fs::path(path).stem().string();
  std::map<std::string, int> skipped;
  std::vector<std::string> skipped_order;
  std::set<std::string> used;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const std::string& op = l.file_ops[static_cast<size_t>(i)];
    const bool compute = default_domain && (op == "Conv" || op == "Gemm" || op == "MatMul");
    if (!compute && !unsupported_compute_ops().count(op)) {
      if (skipped[op]++ == 0) skipped_order.push_back(op);
      continue;
    }
    const std::string name = node_name(n, i, used);
    std::string why;
    if (compute) {
      auto r = conv.convert(n, name);
      if (std::holds_alternative<Layer>(r)) {
        net.layers.push_back(std::get<Layer>(std::move(r)));
        continue;
      }
      why = std::get<Unsupported>(r).why;
    } else {
      why = "the op is not supported (supported compute ops: Conv, Gemm, MatMul)";
    }
    if (o.strict) throw SpecError(path, name, op, "this node is not mapped (--strict): " + why);
    net.warnings.push_back("node '" + name + "' (" + op + ") is not mapped: " + why);
  }
  for (const auto& op : skipped_order) net.skipped.emplace_back(op, skipped[op]);
  if (net.layers.empty())
    throw SpecError(path, "graph", std::to_string(g.node_size()) + " nodes",
                    "no compute layer (Conv, Gemm, MatMul) could be read" +
                        (net.warnings.empty() ? std::string() : "; " + net.warnings.front()));
  net.description = describe(l.model, l.opset, path, net.layers.size());
  return net;
}

}  // namespace onnx_detail

}  // namespace mapwright::core
