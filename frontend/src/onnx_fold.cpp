// Folding of the integer shape programs exporters write for dynamic axes (see onnx_fold.hpp):
// a small evaluator over known integer tensors for the ops such programs use, and the rewrite
// of each evaluated integer node into a Constant node.
#include "onnx_fold.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace mapwright::core::onnx_detail {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = find_attr(n, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name) {
  const onnx::AttributeProto* a = find_attr(n, name);
  if (!a || a->type() != onnx::AttributeProto::INTS) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

namespace {

/// A known integer (or boolean) tensor.
struct IntTensor {
  std::vector<int64_t> dims;                ///< Shape (empty: a scalar).
  std::vector<int64_t> data;                ///< Values, row-major.
  int32_t elem = onnx::TensorProto::INT64;  ///< ONNX element type: INT64, INT32 or BOOL.
};

using Values = std::unordered_map<std::string, IntTensor>;

int64_t elems_of(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool is_int_type(int32_t t) {
  return t == onnx::TensorProto::INT64 || t == onnx::TensorProto::INT32 ||
         t == onnx::TensorProto::BOOL;
}

/// The integer contents of a tensor proto, if it is a small integer tensor stored inline.
std::optional<IntTensor> from_proto(const onnx::TensorProto& t) {
  if (!is_int_type(t.data_type()) || t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  IntTensor v;
  v.elem = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  for (int64_t d : v.dims)
    if (d < 0 || d > kMaxFoldElems) return std::nullopt;
  const int64_t n = elems_of(v.dims);
  if (n > kMaxFoldElems) return std::nullopt;
  if (!t.raw_data().empty()) {
    const std::string& raw = t.raw_data();
    const size_t width = t.data_type() == onnx::TensorProto::INT64   ? 8
                         : t.data_type() == onnx::TensorProto::INT32 ? 4
                                                                     : 1;
    if (raw.size() != static_cast<size_t>(n) * width) return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {  // ONNX raw data is little-endian, as this machine.
      if (width == 8) {
        int64_t x;
        std::memcpy(&x, raw.data() + i * 8, 8);
        v.data.push_back(x);
      } else if (width == 4) {
        int32_t x;
        std::memcpy(&x, raw.data() + i * 4, 4);
        v.data.push_back(x);
      } else {
        v.data.push_back(raw[static_cast<size_t>(i)] != 0);
      }
    }
  } else if (t.data_type() == onnx::TensorProto::INT64) {
    v.data.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    v.data.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (static_cast<int64_t>(v.data.size()) != n) return std::nullopt;
  return v;
}

/// The value of a Constant node, if it is a small integer tensor.
std::optional<IntTensor> constant_value(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "value" && a.has_t()) return from_proto(a.t());
    if (a.name() == "value_int") return IntTensor{{}, {a.i()}, onnx::TensorProto::INT64};
    if (a.name() == "value_ints") {
      IntTensor v{{a.ints_size()}, {a.ints().begin(), a.ints().end()}, onnx::TensorProto::INT64};
      return v;
    }
  }
  return std::nullopt;
}

/// Evaluates one node on known inputs; nullopt if it cannot (unknown input, unsupported op or
/// form, a result too large).
class Evaluator {
 public:
  Evaluator(const Values& values, const StaticShapes& shapes, int64_t opset)
      : values_(values), shapes_(shapes), opset_(opset) {}

  std::optional<IntTensor> eval(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") return constant_value(n);
    if (op == "Shape" || op == "Size") return shape_of(n);
    std::vector<const IntTensor*> in;
    for (const auto& name : n.input()) {
      if (name.empty()) {
        in.push_back(nullptr);  // an omitted optional input
        continue;
      }
      const auto it = values_.find(name);
      if (it == values_.end()) return std::nullopt;
      in.push_back(&it->second);
    }
    if (in.empty() || !in[0]) return std::nullopt;
    if (op == "Identity") return *in[0];
    if (op == "Cast") return cast(n, *in[0]);
    if (op == "Gather") return gather(n, in);
    if (op == "Unsqueeze" || op == "Squeeze") return reshape_axes(n, in);
    if (op == "Concat") return concat(n, in);
    if (op == "Slice") return slice(n, in);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal")
      return binary(op, in);
    if (op == "Where") return where(in);
    if (op == "ConstantOfShape") return constant_of_shape(n, *in[0]);
    if (op == "Range") return range(in);
    return std::nullopt;
  }

 private:
  std::optional<IntTensor> shape_of(const onnx::NodeProto& n) const {
    if (n.input_size() < 1) return std::nullopt;
    const auto it = shapes_.find(n.input(0));
    if (it == shapes_.end()) return std::nullopt;
    const std::vector<int64_t>& s = it->second;
    if (n.op_type() == "Size") return IntTensor{{}, {elems_of(s)}, onnx::TensorProto::INT64};
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    IntTensor v{{end - start}, {s.begin() + start, s.begin() + end}, onnx::TensorProto::INT64};
    return v;
  }

  static std::optional<IntTensor> cast(const onnx::NodeProto& n, const IntTensor& x) {
    const int64_t to = attr_int(n, "to", 0);
    if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32) return std::nullopt;
    IntTensor v = x;
    v.elem = static_cast<int32_t>(to);
    return v;
  }

  static std::optional<IntTensor> gather(const onnx::NodeProto& n,
                                         const std::vector<const IntTensor*>& in) {
    if (in.size() != 2 || !in[1] || in[0]->dims.size() != 1) return std::nullopt;
    const int64_t axis = attr_int(n, "axis", 0);
    if (axis != 0 && axis != -1) return std::nullopt;
    const int64_t len = in[0]->dims[0];
    IntTensor v{in[1]->dims, {}, in[0]->elem};
    for (int64_t i : in[1]->data) {
      if (i < 0) i += len;
      if (i < 0 || i >= len) return std::nullopt;
      v.data.push_back(in[0]->data[static_cast<size_t>(i)]);
    }
    return v;
  }

  std::optional<IntTensor> reshape_axes(const onnx::NodeProto& n,
                                        const std::vector<const IntTensor*>& in) const {
    std::optional<std::vector<int64_t>> axes;
    if (opset_ >= 13) {
      if (in.size() >= 2 && in[1]) axes = in[1]->data;
    } else {
      axes = attr_ints(n, "axes");
    }
    IntTensor v = *in[0];
    if (n.op_type() == "Unsqueeze") {
      if (!axes) return std::nullopt;
      const int64_t rank = static_cast<int64_t>(v.dims.size() + axes->size());
      std::vector<int64_t> sorted;
      for (int64_t a : *axes) sorted.push_back(a < 0 ? a + rank : a);
      std::sort(sorted.begin(), sorted.end());
      for (int64_t a : sorted) {
        if (a < 0 || a > static_cast<int64_t>(v.dims.size())) return std::nullopt;
        v.dims.insert(v.dims.begin() + a, 1);
      }
      return v;
    }
    std::vector<int64_t> dims;  // Squeeze: the listed axes, or every axis of size 1.
    const int64_t rank = static_cast<int64_t>(v.dims.size());
    for (int64_t i = 0; i < rank; ++i) {
      bool drop = !axes && v.dims[static_cast<size_t>(i)] == 1;
      if (axes)
        for (int64_t a : *axes) drop = drop || a == i || a + rank == i;
      if (!drop) dims.push_back(v.dims[static_cast<size_t>(i)]);
    }
    v.dims = dims;
    return v;
  }

  static std::optional<IntTensor> concat(const onnx::NodeProto& n,
                                         const std::vector<const IntTensor*>& in) {
    const int64_t axis = attr_int(n, "axis", 0);
    if (axis != 0 && axis != -1) return std::nullopt;
    IntTensor v{{0}, {}, in[0]->elem};
    for (const IntTensor* t : in) {
      if (!t || t->dims.size() != 1) return std::nullopt;
      v.data.insert(v.data.end(), t->data.begin(), t->data.end());
    }
    v.dims[0] = static_cast<int64_t>(v.data.size());
    return v;
  }

  std::optional<IntTensor> slice(const onnx::NodeProto& n,
                                 const std::vector<const IntTensor*>& in) const {
    if (in[0]->dims.size() != 1) return std::nullopt;
    int64_t start = 0, end = 0, step = 1;
    if (opset_ >= 10) {
      if (in.size() < 3 || !in[1] || !in[2] || in[1]->data.size() != 1 || in[2]->data.size() != 1)
        return std::nullopt;
      if (in.size() >= 4 && in[3] &&
          (in[3]->data.size() != 1 || (in[3]->data[0] != 0 && in[3]->data[0] != -1)))
        return std::nullopt;
      if (in.size() >= 5 && in[4]) {
        if (in[4]->data.size() != 1) return std::nullopt;
        step = in[4]->data[0];
      }
      start = in[1]->data[0];
      end = in[2]->data[0];
    } else {
      const auto starts = attr_ints(n, "starts"), ends = attr_ints(n, "ends");
      if (!starts || !ends || starts->size() != 1 || ends->size() != 1) return std::nullopt;
      start = (*starts)[0];
      end = (*ends)[0];
    }
    if (step == 0) return std::nullopt;
    const int64_t len = in[0]->dims[0];
    auto clampi = [len](int64_t i, int64_t lo, int64_t hi) {
      if (i < 0) i += len;
      return std::clamp(i, lo, hi);
    };
    IntTensor v{{0}, {}, in[0]->elem};
    if (step > 0) {
      for (int64_t i = clampi(start, 0, len); i < clampi(end, 0, len); i += step)
        v.data.push_back(in[0]->data[static_cast<size_t>(i)]);
    } else {
      for (int64_t i = clampi(start, -1, len - 1); i > clampi(end, -1, len - 1); i += step)
        v.data.push_back(in[0]->data[static_cast<size_t>(i)]);
    }
    v.dims[0] = static_cast<int64_t>(v.data.size());
    return v;
  }

  static std::optional<IntTensor> binary(const std::string& op,
                                         const std::vector<const IntTensor*>& in) {
    if (in.size() != 2 || !in[1]) return std::nullopt;
    const IntTensor &a = *in[0], &b = *in[1];
    const size_t na = a.data.size(), nb = b.data.size();
    // Scalars and equal shapes only (what shape programs use).
    if (na != nb && na != 1 && nb != 1) return std::nullopt;
    if (na == nb && na != 1 && a.dims != b.dims) return std::nullopt;
    IntTensor v = na >= nb ? a : b;
    if (na == nb && a.dims.size() < b.dims.size()) v = b;
    v.elem = op == "Equal" ? onnx::TensorProto::BOOL : a.elem;
    for (size_t i = 0; i < v.data.size(); ++i) {
      const int64_t x = a.data[na == 1 ? 0 : i], y = b.data[nb == 1 ? 0 : i];
      if (op == "Add")
        v.data[i] = x + y;
      else if (op == "Sub")
        v.data[i] = x - y;
      else if (op == "Mul")
        v.data[i] = x * y;
      else if (op == "Equal")
        v.data[i] = x == y;
      else if (y == 0)
        return std::nullopt;
      else
        v.data[i] = x / y;  // ONNX integer Div truncates, as C++ does.
    }
    return v;
  }

  static std::optional<IntTensor> where(const std::vector<const IntTensor*>& in) {
    if (in.size() != 3 || !in[1] || !in[2]) return std::nullopt;
    const IntTensor &c = *in[0], &x = *in[1], &y = *in[2];
    const size_t n = std::max({c.data.size(), x.data.size(), y.data.size()});
    for (const IntTensor* t : in)
      if (t->data.size() != n && t->data.size() != 1) return std::nullopt;
    IntTensor v = x.data.size() == n ? x : (y.data.size() == n ? y : c);
    v.elem = x.elem;
    for (size_t i = 0; i < n; ++i) {
      auto at = [i](const IntTensor& t) { return t.data[t.data.size() == 1 ? 0 : i]; };
      v.data[i] = at(c) ? at(x) : at(y);
    }
    return v;
  }

  static std::optional<IntTensor> constant_of_shape(const onnx::NodeProto& n,
                                                    const IntTensor& shape) {
    IntTensor fill{{}, {0}, onnx::TensorProto::FLOAT};  // the default value is float 0
    if (const onnx::AttributeProto* a = find_attr(n, "value"); a && a->has_t()) {
      const auto t = from_proto(a->t());
      if (!t || t->data.size() != 1) return std::nullopt;
      fill = *t;
    }
    if (!is_int_type(fill.elem) || shape.dims.size() != 1) return std::nullopt;
    for (int64_t d : shape.data)
      if (d < 0 || d > kMaxFoldElems) return std::nullopt;
    if (elems_of(shape.data) > kMaxFoldElems) return std::nullopt;
    IntTensor v{shape.data, std::vector<int64_t>(elems_of(shape.data), fill.data[0]), fill.elem};
    return v;
  }

  static std::optional<IntTensor> range(const std::vector<const IntTensor*>& in) {
    if (in.size() != 3 || !in[1] || !in[2]) return std::nullopt;
    for (const IntTensor* t : in)
      if (t->data.size() != 1) return std::nullopt;
    const int64_t start = in[0]->data[0], limit = in[1]->data[0], delta = in[2]->data[0];
    if (delta == 0) return std::nullopt;
    IntTensor v{{0}, {}, in[0]->elem};
    for (int64_t x = start; delta > 0 ? x < limit : x > limit; x += delta) {
      if (static_cast<int64_t>(v.data.size()) >= kMaxFoldElems) return std::nullopt;
      v.data.push_back(x);
    }
    v.dims[0] = static_cast<int64_t>(v.data.size());
    return v;
  }

  const Values& values_;        ///< Known integer tensors by name.
  const StaticShapes& shapes_;  ///< Static shapes by name (for Shape and Size).
  int64_t opset_;               ///< Default-domain opset.
};

/// Rewrites `n` into a Constant node producing `v` under its first output's name.
void make_constant(onnx::NodeProto& n, const IntTensor& v) {
  const std::string out = n.output(0), name = n.name();
  n.Clear();
  n.set_op_type("Constant");
  n.set_name(name);
  n.add_output(out);
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(v.elem);
  for (int64_t d : v.dims) t->add_dims(d);
  for (int64_t x : v.data) {
    if (v.elem == onnx::TensorProto::INT64)
      t->add_int64_data(x);
    else
      t->add_int32_data(static_cast<int32_t>(x));
  }
}

}  // namespace

int fold_shape_computations(onnx::GraphProto& g, const StaticShapes& shapes, int64_t opset) {
  Values values;
  for (const auto& init : g.initializer())
    if (auto v = from_proto(init)) values[init.name()] = *v;
  const Evaluator ev(values, shapes, opset);
  int folded = 0;
  for (auto& n : *g.mutable_node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
    if (n.output_size() != 1 || n.output(0).empty()) continue;
    const std::optional<IntTensor> v = ev.eval(n);
    if (!v || static_cast<int64_t>(v->data.size()) > kMaxFoldElems) continue;
    values[n.output(0)] = *v;
    // Booleans stay as their node (only integer values feed shapes); Constants are already so.
    if (n.op_type() == "Constant" || v->elem == onnx::TensorProto::BOOL) continue;
    make_constant(n, *v);
    ++folded;
  }
  return folded;
}

}  // namespace mapwright::core::onnx_detail
