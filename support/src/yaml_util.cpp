// The strict YAML layer. Loading walks the whole document once and refuses what yaml-cpp lets
// through silently: duplicate keys (yaml-cpp keeps both entries), keys that are not plain text
// (null, maps, lists), explicit tags (!!binary, !custom), and documents nested more than
// kMaxDepth levels or expanding (through aliases) to more than kMaxNodes nodes. The typed getters
// then refuse null, maps and lists where a scalar belongs, text where a number belongs, integers
// and numbers outside a stated range, and non-finite numbers. Every refusal is a SpecError naming
// the file, the dotted key and the value.
#include "mapwright/support/yaml_util.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "mapwright/support/error.hpp"

namespace mapwright::core {

namespace {

/// The text of scalar `v`; null, a map, a list or a tag is refused as "expected <what>, got ...".
std::string scalar_as(const YAML::Node& v, const std::string& where, const std::string& key,
                      const std::string& what);

constexpr int kMaxDepth = 32;         ///< Deepest nesting accepted (configs use at most 4).
constexpr size_t kMaxNodes = 100000;  ///< Most nodes visited (aliases count every use).
constexpr size_t kMaxFileBytes = size_t{16} << 20;  ///< Largest YAML file read (16 MiB).

/// Receives parser events and keeps none (used to count documents).
class NoEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

std::string num_text(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15)
    return std::to_string(static_cast<long long>(x));
  std::ostringstream os;
  os << x;
  return os.str();
}

/// Bounded flow rendering: at most `depth` levels and about 200 characters.
void render(const YAML::Node& n, int depth, std::string& out) {
  if (out.size() > 200) return;
  if (!n.IsDefined() || n.IsNull()) return;
  if (n.IsScalar()) {
    out += n.Scalar();
    return;
  }
  if (depth <= 0) {
    out += "...";
    return;
  }
  const bool seq = n.IsSequence();
  out += seq ? "[" : "{";
  bool first = true;
  for (const auto& it : n) {
    if (!first) out += ", ";
    first = false;
    if (out.size() > 200) {
      out += "...";
      break;
    }
    if (seq) {
      render(it, depth - 1, out);
    } else {
      render(it.first, depth - 1, out);
      out += ": ";
      render(it.second, depth - 1, out);
    }
  }
  out += seq ? "]" : "}";
}

bool plain_tag(const YAML::Node& n) {
  const std::string& t = n.Tag();
  return t.empty() || t == "?" || t == "!";
}

/// One pass over the document: structure checks that the typed getters cannot make.
void walk(const YAML::Node& n, const std::string& where, const std::string& path, int depth,
          size_t& visited) {
  const std::string at = path.empty() ? "(top)" : path;
  if (depth > kMaxDepth)
    throw SpecError(where, at, "", "nested more than " + std::to_string(kMaxDepth) + " levels");
  if (++visited > kMaxNodes)
    throw SpecError(where, at, "",
                    "document too large (more than " + std::to_string(kMaxNodes) +
                        " nodes, counting every use of an alias)");
  if (!plain_tag(n))
    throw SpecError(where, at, n.Tag() + " " + node_text(n),
                    "YAML tags are not supported (remove '" + n.Tag() + "')");
  if (n.IsSequence()) {
    size_t i = 0;
    for (const auto& item : n)
      walk(item, where, path + "[" + std::to_string(i++) + "]", depth + 1, visited);
  } else if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        throw SpecError(where, join_key(path, node_text(kv.first)), node_text(kv.second),
                        kv.first.IsNull() ? "a key must be plain text, not null"
                                          : "a key must be plain text, not a map or a list");
      if (!plain_tag(kv.first))
        throw SpecError(where, join_key(path, kv.first.Scalar()), kv.first.Tag(),
                        "YAML tags are not supported on keys");
      const std::string& key = kv.first.Scalar();
      if (!seen.insert(key).second)
        throw SpecError(where, join_key(path, key), node_text(kv.second),
                        "duplicate key (given more than once in the same map)");
      walk(kv.second, where, join_key(path, key), depth + 1, visited);
    }
  }
}

std::string range_text(const std::string& lo, const std::string& hi) {
  return "must be between " + lo + " and " + hi;
}

/// Parses [+-]?[0-9]+ into `out`; false when the text is not an integer; `overflow` when it
/// does not fit in int64.
bool parse_int(const std::string& t, long long& out, bool& overflow) {
  overflow = false;
  size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
  if (i >= t.size()) return false;
  for (size_t j = i; j < t.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(t[j]))) return false;
  errno = 0;
  out = std::strtoll(t.c_str(), nullptr, 10);
  overflow = errno == ERANGE;
  return true;
}

/// Parses a decimal number (strtod syntax, whole text); false when it is not one.
bool parse_double(const std::string& t, double& out) {
  if (t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return *end == '\0';
}

std::string scalar_as(const YAML::Node& v, const std::string& where, const std::string& key,
                      const std::string& what) {
  if (!v.IsDefined()) throw SpecError(where, key, "", "required key is missing");
  if (v.IsNull()) throw SpecError(where, key, "null", "expected " + what + ", got null");
  if (!v.IsScalar())
    throw SpecError(where, key, node_text(v),
                    "expected " + what + (v.IsMap() ? ", got a map" : ", got a list"));
  if (!plain_tag(v))
    throw SpecError(where, key, v.Tag() + " " + v.Scalar(),
                    "expected " + what + ", got a tagged value (YAML tags are not supported)");
  return v.Scalar();
}

}  // namespace

std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string node_text(const YAML::Node& node) {
  std::string out;
  render(node, 3, out);
  return out;
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "(file)", path, "cannot open file");
  // Read at most kMaxFileBytes (+1 to notice more): a spec is a few KiB, and a path such as
  // /dev/zero must not exhaust memory.
  std::string text;
  char buf[65536];
  while (in && text.size() <= kMaxFileBytes) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw SpecError(path, "(file)", path, "cannot read file");
  if (text.size() > kMaxFileBytes)
    throw SpecError(path, "(file)", path,
                    "file too large (more than " + std::to_string(kMaxFileBytes) + " bytes)");
  return load_yaml_text(text, path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& where) {
  YAML::Node root;
  bool second_document = false;
  try {
    root = YAML::Load(text);
    // YAML::Load ignores everything after the first document: look for a second one with a
    // parser that builds nothing, calling it at most twice (YAML::LoadAll can loop forever on
    // some garbage, found by fuzz/options_fuzz).
    std::istringstream in(text);
    YAML::Parser parser(in);
    NoEvents none;
    if (parser.HandleNextDocument(none)) second_document = parser.HandleNextDocument(none);
  } catch (const YAML::Exception& e) {
    throw SpecError(where, "(syntax)", "line " + std::to_string(e.mark.line + 1),
                    "malformed YAML: " + e.msg);
  }
  if (second_document)
    throw SpecError(where, "(document)", "---",
                    "expected a single YAML document (remove the '---' separators)");
  size_t visited = 0;
  walk(root, where, "", 0, visited);
  return root;
}

void require_map(const YAML::Node& node, const std::string& where, const std::string& path) {
  if (!node.IsMap())
    throw SpecError(where, path.empty() ? "(top)" : path, node.IsNull() ? "null" : node_text(node),
                    "expected a mapping");
}

void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                const std::vector<std::string>& allowed) {
  require_map(node, where, path);
  for (const auto& kv : node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : node_text(kv.first);
    bool ok = false;
    for (const auto& a : allowed) ok = ok || key == a;
    if (ok) continue;
    std::string known;
    for (const auto& a : allowed) known += (known.empty() ? "" : ", ") + a;
    // A key that differs from a known one only by surrounding spaces gets a hint.
    const size_t b = key.find_first_not_of(" \t"), e = key.find_last_not_of(" \t");
    const std::string trimmed = b == std::string::npos ? "" : key.substr(b, e - b + 1);
    std::string hint;
    for (const auto& a : allowed)
      if (trimmed != key && trimmed == a) hint = "; did you mean '" + a + "' without the spaces?";
    throw SpecError(where, join_key(path, key), node_text(kv.second),
                    "unknown key (known: " + known + ")" + hint);
  }
}

void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                std::initializer_list<const char*> allowed) {
  check_keys(node, where, path, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string scalar_of(const YAML::Node& v, const std::string& where, const std::string& key) {
  return scalar_as(v, where, key, "a scalar value");
}

int64_t int_of(const YAML::Node& node, const std::string& where, const std::string& key, int64_t lo,
               int64_t hi) {
  const std::string t = scalar_as(node, where, key, "an integer");
  long long x = 0;
  bool overflow = false;
  if (!parse_int(t, x, overflow)) throw SpecError(where, key, t, "expected an integer");
  if (overflow || x < lo || x > hi)
    throw SpecError(where, key, t, range_text(std::to_string(lo), std::to_string(hi)));
  return x;
}

double double_of(const YAML::Node& node, const std::string& where, const std::string& key,
                 double lo, double hi) {
  const std::string t = scalar_as(node, where, key, "a number");
  double x = 0;
  if (!parse_double(t, x)) throw SpecError(where, key, t, "expected a number");
  if (!std::isfinite(x)) throw SpecError(where, key, t, "expected a finite number");
  if (x < lo || x > hi) throw SpecError(where, key, t, range_text(num_text(lo), num_text(hi)));
  return x;
}

namespace {
/// The value at `key`, or nothing when the key is absent (and not required).
std::optional<YAML::Node> fetch(const YAML::Node& map, const std::string& key,
                                const std::string& where, const std::string& path, bool required,
                                const std::string& what) {
  if (!map.IsMap()) require_map(map, where, path);
  const YAML::Node v = map[key];
  if (!v.IsDefined()) {
    if (required) throw SpecError(where, join_key(path, key), "", "required key is missing");
    return std::nullopt;
  }
  scalar_as(v, where, join_key(path, key), what);
  return v;
}
}  // namespace

int64_t get_int(const YAML::Node& map, const std::string& key, const std::string& where,
                const std::string& path, int64_t fallback, bool required) {
  const auto v = fetch(map, key, where, path, required, "an integer");
  if (!v) return fallback;
  return int_of(*v, where, join_key(path, key), std::numeric_limits<int64_t>::min(),
                std::numeric_limits<int64_t>::max());
}

int64_t get_int_in(const YAML::Node& map, const std::string& key, const std::string& where,
                   const std::string& path, int64_t fallback, int64_t lo, int64_t hi,
                   bool required) {
  const auto v = fetch(map, key, where, path, required, "an integer");
  if (!v) return fallback;
  return int_of(*v, where, join_key(path, key), lo, hi);
}

double get_double(const YAML::Node& map, const std::string& key, const std::string& where,
                  const std::string& path, double fallback, bool required) {
  const auto v = fetch(map, key, where, path, required, "a number");
  if (!v) return fallback;
  return double_of(*v, where, join_key(path, key), -std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::max());
}

double get_double_in(const YAML::Node& map, const std::string& key, const std::string& where,
                     const std::string& path, double fallback, double lo, double hi,
                     bool required) {
  const auto v = fetch(map, key, where, path, required, "a number");
  if (!v) return fallback;
  return double_of(*v, where, join_key(path, key), lo, hi);
}

bool get_bool(const YAML::Node& map, const std::string& key, const std::string& where,
              const std::string& path, bool fallback) {
  const auto v = fetch(map, key, where, path, false, "true or false");
  if (!v) return fallback;
  const std::string& t = v->Scalar();
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  throw SpecError(where, join_key(path, key), t, "expected true or false");
}

std::string get_string(const YAML::Node& map, const std::string& key, const std::string& where,
                       const std::string& path, const std::string& fallback, bool required) {
  const auto v = fetch(map, key, where, path, required, "a scalar value");
  if (!v) return fallback;
  return v->Scalar();
}

}  // namespace mapwright::core
