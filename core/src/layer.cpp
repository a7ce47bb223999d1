// Layer validation and derived quantities: checks every raw field of a layer, derives the
// output size P x Q from H, W, R, S, stride and padding, and describes the layer in one line.
#include "mapwright/core/layer.hpp"

#include <sstream>

#include "mapwright/support/error.hpp"

namespace mapwright::core {

const char* dim_name(Dim d) {
  static const char* names[] = {"N", "K", "C", "P", "Q", "R", "S", "G"};
  return names[static_cast<int>(d)];
}

const char* layer_kind_name(LayerKind k) {
  switch (k) {
    case LayerKind::Conv:
      return "conv";
    case LayerKind::Depthwise:
      return "dwconv";
    case LayerKind::Grouped:
      return "gconv";
    case LayerKind::Gemm:
      return "gemm";
  }
  return "?";
}

LayerKind layer_kind_from_name(const std::string& name, const std::string& where) {
  for (LayerKind k : {LayerKind::Conv, LayerKind::Depthwise, LayerKind::Grouped, LayerKind::Gemm})
    if (name == layer_kind_name(k)) return k;
  throw SpecError(where, "kind", name, "expected one of conv, dwconv, gconv, gemm");
}

nlohmann::json layer_to_json(const Layer& l) {
  return {{"name", l.name},     {"kind", layer_kind_name(l.kind)},
          {"n", l.n},           {"g", l.g},
          {"k", l.k},           {"c", l.c},
          {"h", l.h},           {"w", l.w},
          {"r", l.r},           {"s", l.s},
          {"stride", l.stride}, {"pad", l.pad},
          {"p", l.p},           {"q", l.q},
          {"macs", l.macs()}};
}

Layer layer_from_json(const nlohmann::json& j, const std::string& where) {
  Layer l;
  try {
    l.name = j.at("name").get<std::string>();
    const auto& kind = j.at("kind");
    if (kind.is_number_integer()) {
      const int k = kind.get<int>();
      if (k < 0 || k > static_cast<int>(LayerKind::Gemm))
        throw SpecError(where, "kind", kind.dump(), "expected one of conv, dwconv, gconv, gemm");
      l.kind = static_cast<LayerKind>(k);
    } else {
      l.kind = layer_kind_from_name(kind.get<std::string>(), where);
    }
    l.n = j.at("n");
    l.g = j.at("g");
    l.k = j.at("k");
    l.c = j.at("c");
    l.h = j.at("h");
    l.w = j.at("w");
    l.r = j.at("r");
    l.s = j.at("s");
    l.stride = j.at("stride");
    l.pad = j.at("pad");
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(where, "layer", j.dump(), std::string("malformed layer record: ") + e.what());
  }
  return make_layer(l, where);
}

int64_t Layer::dim(Dim d) const {
  switch (d) {
    case Dim::N:
      return n;
    case Dim::K:
      return k;
    case Dim::C:
      return c;
    case Dim::P:
      return p;
    case Dim::Q:
      return q;
    case Dim::R:
      return r;
    case Dim::S:
      return s;
    case Dim::G:
      return g;
  }
  return 0;
}

std::string Layer::describe() const {
  std::ostringstream os;
  os << layer_kind_name(kind) << " N" << n << " G" << g << " K" << k << " C" << c << " H" << h
     << " W" << w << " R" << r << " S" << s << " stride" << stride << " pad" << pad << " -> P" << p
     << " Q" << q;
  return os.str();
}

std::string Layer::shape_key() const {
  std::ostringstream os;
  os << n << ',' << g << ',' << k << ',' << c << ',' << h << ',' << w << ',' << r << ',' << s << ','
     << stride << ',' << pad;
  return os.str();
}

Layer make_layer(Layer raw, const std::string& where) {
  const std::pair<const char*, int64_t> positive[] = {
      {"N", raw.n}, {"G", raw.g}, {"K", raw.k}, {"C", raw.c},          {"H", raw.h},
      {"W", raw.w}, {"R", raw.r}, {"S", raw.s}, {"stride", raw.stride}};
  for (const auto& [key, v] : positive) {
    if (v <= 0) throw SpecError(where, key, std::to_string(v), "must be a positive integer");
    if (v > (int64_t{1} << 24)) throw SpecError(where, key, std::to_string(v), "is too large");
  }
  if (raw.pad < 0) throw SpecError(where, "pad", std::to_string(raw.pad), "must be >= 0");
  if (raw.pad >= raw.r || raw.pad >= raw.s) {
    if (raw.pad > 0)
      throw SpecError(where, "pad", std::to_string(raw.pad),
                      "must be smaller than the filter size R and S");
  }
  const int64_t hp = raw.h + 2 * raw.pad - raw.r;
  const int64_t wp = raw.w + 2 * raw.pad - raw.s;
  if (hp < 0)
    throw SpecError(where, "R", std::to_string(raw.r), "filter is taller than the padded input");
  if (wp < 0)
    throw SpecError(where, "S", std::to_string(raw.s), "filter is wider than the padded input");
  raw.p = hp / raw.stride + 1;
  raw.q = wp / raw.stride + 1;
  // Each factor is at most 2^24, so the int64 products in Layer could overflow: check them in
  // floating point first (MACs and every tensor size at most 2^50).
  const long double lim = static_cast<long double>(int64_t{1} << 50);
  const long double n = raw.n, g = raw.g, k = raw.k, c = raw.c, p = raw.p, q = raw.q, r = raw.r,
                    s = raw.s, h = raw.h, w = raw.w;
  if (n * g * k * c * p * q * r * s > lim || n * g * c * h * w > lim || n * g * k * p * q > lim ||
      g * k * c * r * s > lim)
    throw SpecError(where, "shape", raw.describe(), "MAC count or tensor size out of range");
  if (raw.macs() <= 0 || raw.macs() > (int64_t{1} << 50))
    throw SpecError(where, "shape", raw.describe(), "MAC count out of range");
  return raw;
}

}  // namespace mapwright::core
