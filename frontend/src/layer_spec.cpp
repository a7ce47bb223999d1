// Layer and network arguments: the inline key=value form, zoo references and YAML files all
// reduce to one builder that checks every key and value.
#include "mapwright/frontend/layer_spec.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace fs = std::filesystem;

namespace mapwright::core {

namespace {

using Fields = std::map<std::string, std::string>;

Layer build(const std::string& type, const Fields& f, const std::string& where,
            const std::string& name) {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"conv", {"N", "K", "C", "H", "W", "R", "S", "stride", "pad"}},
      {"dwconv", {"N", "C", "H", "W", "R", "S", "stride", "pad"}},
      {"gconv", {"N", "G", "K", "C", "H", "W", "R", "S", "stride", "pad"}},
      {"gemm", {"B", "M", "N", "K"}},
      {"fc", {"N", "IN", "OUT"}}};
  const auto it = allowed.find(type);
  if (it == allowed.end())
    throw SpecError(where, "type", type,
                    "unknown layer type (known: conv, dwconv, gconv, gemm, fc)");
  std::map<std::string, long long> v;
  for (const auto& [k, text] : f) {
    if (!it->second.count(k)) {
      std::string known;
      for (const auto& a : it->second) known += (known.empty() ? "" : ", ") + a;
      throw SpecError(where, k, text, "unknown key for " + type + " (known: " + known + ")");
    }
    // Every size is 0 .. 2^24 here (make_layer then requires >= 1 where it must): the same
    // strict integer rule as YAML files, so " 5", "5x", "0x10" and wrapping values are refused.
    v[k] = int_of(YAML::Node(text), where, k, 0, int64_t{1} << 24);
    // Sizes must be >= 1, checked here under the key the user typed: make_layer would name
    // its internal field instead (fc's N is H there, gemm's N is K, dwconv's C is G).
    if (k != "pad" && v[k] < 1) throw SpecError(where, k, text, "must be a positive integer");
  }
  auto get = [&](const char* k, long long fallback, bool required) {
    const auto i = v.find(k);
    if (i == v.end()) {
      if (required) throw SpecError(where, k, "", "required for " + type);
      return fallback;
    }
    return i->second;
  };
  Layer l;
  l.name = name;
  if (type == "conv" || type == "gconv" || type == "dwconv") {
    l.n = get("N", 1, false);
    l.h = get("H", 0, true);
    l.w = get("W", 0, true);
    l.r = get("R", 1, false);
    l.s = get("S", l.r, false);
    l.stride = get("stride", 1, false);
    l.pad = get("pad", 0, false);
    if (type == "conv") {
      l.kind = LayerKind::Conv;
      l.k = get("K", 0, true);
      l.c = get("C", 0, true);
    } else if (type == "dwconv") {
      l.kind = LayerKind::Depthwise;
      l.g = get("C", 0, true);
      l.k = l.c = 1;
    } else {
      l.kind = LayerKind::Grouped;
      l.g = get("G", 0, true);
      const long long K = get("K", 0, true), C = get("C", 0, true);
      if (l.g <= 0) throw SpecError(where, "G", std::to_string(l.g), "must be a positive integer");
      if (K % l.g != 0) throw SpecError(where, "K", std::to_string(K), "must be a multiple of G");
      if (C % l.g != 0) throw SpecError(where, "C", std::to_string(C), "must be a multiple of G");
      l.k = K / l.g;
      l.c = C / l.g;
    }
  } else if (type == "gemm") {
    l.kind = LayerKind::Gemm;
    l.n = get("B", 1, false);
    l.h = get("M", 0, true);
    l.c = get("K", 0, true);
    l.k = get("N", 0, true);
  } else {  // fc
    l.kind = LayerKind::Gemm;
    l.h = get("N", 1, false);
    l.c = get("IN", 0, true);
    l.k = get("OUT", 0, true);
  }
  return make_layer(l, where);
}

Layer from_yaml_map(const YAML::Node& node, const std::string& where, const std::string& path,
                    const std::string& fallback_name) {
  require_map(node, where, path);
  Fields f;
  std::string type, name = fallback_name;
  for (const auto& kv : node) {
    const std::string k = kv.first.Scalar();  // load_yaml_* refused non-text and duplicate keys.
    const std::string v = scalar_of(kv.second, where, join_key(path, k));
    if (k == "type")
      type = v;
    else if (k == "name")
      name = v;
    else
      f[k] = v;
  }
  if (type.empty()) throw SpecError(where, join_key(path, "type"), "", "required key is missing");
  try {
    return build(type, f, where, name);
  } catch (const SpecError& e) {
    // Re-anchor the key under the YAML path.
    throw SpecError(where, join_key(path, e.key()), e.value(), e.why());
  }
}

/// The layer of an ONNX file's node, by its layer name.
Layer onnx_layer(const std::string& path, const std::string& node, const std::string& where,
                 const OnnxOptions& onnx) {
  const Network net = import_onnx(path, onnx);
  for (const auto& l : net.layers)
    if (l.name == node) return l;
  std::string known;
  for (size_t i = 0; i < net.layers.size() && i < 6; ++i)
    known += (i ? ", " : "") + net.layers[i].name;
  if (net.layers.size() > 6) known += ", ... (" + std::to_string(net.layers.size()) + " layers)";
  throw SpecError(where, "layer", path + ":" + node,
                  "no compute layer of this name in the ONNX file (`mapwright networks " + path +
                      "` lists them); known: " + known);
}

}  // namespace

Layer parse_layer_arg(const std::string& arg, const std::string& where, const OnnxOptions& onnx) {
  if (arg.empty()) throw SpecError(where, "layer", arg, "empty layer argument");
  // FILE.onnx:NODE (node names may hold ':' and '=', so the first ".onnx:" splits).
  if (const size_t at = arg.find(".onnx:"); at != std::string::npos && at > 0)
    return onnx_layer(arg.substr(0, at + 5), arg.substr(at + 6), where, onnx);
  if ((arg.size() > 5 && arg.substr(arg.size() - 5) == ".yaml") ||
      (arg.size() > 4 && arg.substr(arg.size() - 4) == ".yml")) {
    const YAML::Node root = load_yaml_file(arg);
    require_map(root, arg, "");
    const YAML::Node node = root["layer"] ? root["layer"] : root;
    if (root["layer"]) check_keys(root, arg, "", {"layer"});
    return from_yaml_map(node, arg, root["layer"] ? "layer" : "", fs::path(arg).stem().string());
  }
  const size_t colon = arg.find(':');
  if (colon == std::string::npos)
    throw SpecError(where, "layer", arg,
                    "expected TYPE:KEY=VALUE,... (e.g. conv:K=64,C=64,H=56,W=56,R=3), "
                    "NETWORK:LAYER (e.g. resnet50:layer1.0.conv2) or a .yaml file");
  const std::string head = arg.substr(0, colon), rest = arg.substr(colon + 1);
  if (rest.find('=') == std::string::npos) {
    Layer l = zoo_layer(head, rest, where);
    return l;
  }
  Fields f;
  size_t pos = 0;
  while (pos <= rest.size()) {
    const size_t comma = rest.find(',', pos);
    const std::string item =
        rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos || eq == 0)
      throw SpecError(where, "layer", item, "expected KEY=VALUE");
    const std::string key = item.substr(0, eq);
    if (f.count(key)) throw SpecError(where, key, item.substr(eq + 1), "key given twice");
    f[key] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return build(head, f, where, "inline");
}

Network parse_network_arg(const std::string& arg, const std::string& where,
                          const OnnxOptions& onnx) {
  if (is_onnx_path(arg)) return import_onnx(arg, onnx);
  if (!onnx.input_shapes.empty())
    throw SpecError("--input-shape", "input-shape", onnx.input_shapes.begin()->first,
                    "applies to an ONNX --network only ('" + arg + "' is not a .onnx file)");
  if (!(arg.size() > 5 && arg.substr(arg.size() - 5) == ".yaml") &&
      !(arg.size() > 4 && arg.substr(arg.size() - 4) == ".yml"))
    return zoo_network(arg, where);
  const YAML::Node root = load_yaml_file(arg);
  check_keys(root, arg, "", {"name", "description", "layers"});
  Network net;
  net.name = get_string(root, "name", arg, "", fs::path(arg).stem().string());
  net.description = get_string(root, "description", arg, "", "");
  const YAML::Node layers = root["layers"];
  if (!layers || !layers.IsSequence() || layers.size() == 0)
    throw SpecError(arg, "layers", node_text(layers), "expected a non-empty list of layers");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "]";
    net.layers.push_back(from_yaml_map(layers[i], arg, path, "layer" + std::to_string(i)));
  }
  return net;
}

}  // namespace mapwright::core
