// Strict YAML helpers: typed getters that refuse wrong types and unknown keys with a SpecError
// naming the file, the dotted key and the value.
#include "mapwright/core/yaml_util.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "mapwright/core/error.hpp"

namespace mapwright::core {

std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string node_text(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "";
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SpecError(path, "(file)", path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_yaml_text(ss.str(), path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& where) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw SpecError(where, "(syntax)", "line " + std::to_string(e.mark.line + 1),
                    "malformed YAML: " + e.msg);
  }
}

void require_map(const YAML::Node& node, const std::string& where, const std::string& path) {
  if (!node.IsMap())
    throw SpecError(where, path.empty() ? "(top)" : path, node_text(node), "expected a mapping");
}

void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                std::initializer_list<const char*> allowed) {
  require_map(node, where, path);
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string known;
      for (const char* a : allowed) known += (known.empty() ? "" : ", ") + std::string(a);
      throw SpecError(where, join_key(path, key), node_text(kv.second),
                      "unknown key (known: " + known + ")");
    }
  }
}

namespace {
std::optional<YAML::Node> fetch(const YAML::Node& map, const std::string& key,
                                const std::string& where, const std::string& path,
                                bool required) {
  const YAML::Node v = map[key];
  if (!v.IsDefined() || v.IsNull()) {
    if (required) throw SpecError(where, join_key(path, key), "", "required key is missing");
    return std::nullopt;
  }
  if (!v.IsScalar())
    throw SpecError(where, join_key(path, key), node_text(v), "expected a scalar value");
  return v;
}
}  // namespace

int64_t get_int(const YAML::Node& map, const std::string& key, const std::string& where,
                const std::string& path, int64_t fallback, bool required) {
  const auto v = fetch(map, key, where, path, required);
  if (!v) return fallback;
  const std::string& t = v->Scalar();
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || errno != 0)
    throw SpecError(where, join_key(path, key), t, "expected an integer");
  return x;
}

double get_double(const YAML::Node& map, const std::string& key, const std::string& where,
                  const std::string& path, double fallback, bool required) {
  const auto v = fetch(map, key, where, path, required);
  if (!v) return fallback;
  const std::string& t = v->Scalar();
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || errno != 0)
    throw SpecError(where, join_key(path, key), t, "expected a number");
  return x;
}

bool get_bool(const YAML::Node& map, const std::string& key, const std::string& where,
              const std::string& path, bool fallback) {
  const auto v = fetch(map, key, where, path, false);
  if (!v) return fallback;
  const std::string& t = v->Scalar();
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  throw SpecError(where, join_key(path, key), t, "expected true or false");
}

std::string get_string(const YAML::Node& map, const std::string& key, const std::string& where,
                       const std::string& path, const std::string& fallback, bool required) {
  const auto v = fetch(map, key, where, path, required);
  if (!v) return fallback;
  return v->Scalar();
}

}  // namespace mapwright::core
