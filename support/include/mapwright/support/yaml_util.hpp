#pragma once
/// \file yaml_util.hpp
/// The one strict YAML layer: every YAML file or text the project reads goes through
/// `load_yaml_file` / `load_yaml_text`, which refuse duplicate keys, non-text keys, tags,
/// and documents nested too deeply; the typed getters refuse null, maps, lists and wrong types
/// where a scalar belongs, integers and numbers outside a stated range (no wrapping, no inf/nan),
/// and `check_keys` refuses keys the schema does not know. Every refusal is a SpecError naming
/// the file, the dotted key and the value (control characters escaped).

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "mapwright/support/error.hpp"

namespace mapwright::core {

/// Loads a YAML file; a missing file, a syntax error or a structural defect (see the file
/// comment) becomes a SpecError naming the file.
YAML::Node load_yaml_file(const std::string& path);
/// Parses YAML text (for inline specs); `where` names its origin. Same checks as the file form.
YAML::Node load_yaml_text(const std::string& text, const std::string& where);
/// Refuses any key of map `node` (at dotted path `path`) not in `allowed`.
void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                std::initializer_list<const char*> allowed);
/// Same, with the allowed keys in a vector.
void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                const std::vector<std::string>& allowed);
/// Requires `node` to be a map.
void require_map(const YAML::Node& node, const std::string& where, const std::string& path);
/// Reads an integer (no fraction, no text) in the full int64 range; prefer `get_int_in`.
int64_t get_int(const YAML::Node& map, const std::string& key, const std::string& where,
                const std::string& path, int64_t fallback, bool required = false);
/// Reads an integer in [lo, hi]: "must be between lo and hi" otherwise (never wraps).
int64_t get_int_in(const YAML::Node& map, const std::string& key, const std::string& where,
                   const std::string& path, int64_t fallback, int64_t lo, int64_t hi,
                   bool required = false);
/// Reads a finite number (inf and nan are refused); prefer `get_double_in`.
double get_double(const YAML::Node& map, const std::string& key, const std::string& where,
                  const std::string& path, double fallback, bool required = false);
/// Reads a finite number in [lo, hi]: "must be between lo and hi" otherwise.
double get_double_in(const YAML::Node& map, const std::string& key, const std::string& where,
                     const std::string& path, double fallback, double lo, double hi,
                     bool required = false);
bool get_bool(const YAML::Node& map, const std::string& key, const std::string& where,
              const std::string& path, bool fallback);
std::string get_string(const YAML::Node& map, const std::string& key, const std::string& where,
                       const std::string& path, const std::string& fallback, bool required = false);
/// The text of scalar `node` found at dotted `key`; null, a map or a list is refused.
std::string scalar_of(const YAML::Node& node, const std::string& where, const std::string& key);
/// Integer in [lo, hi] from scalar `node` at dotted `key` (for list items).
int64_t int_of(const YAML::Node& node, const std::string& where, const std::string& key, int64_t lo,
               int64_t hi);
/// Finite number in [lo, hi] from scalar `node` at dotted `key` (for list items).
double double_of(const YAML::Node& node, const std::string& where, const std::string& key,
                 double lo, double hi);
/// Joins a dotted path: join("a", "b") == "a.b", join("", "b") == "b".
std::string join_key(const std::string& path, const std::string& key);
/// Text of a scalar (or a short flow rendering of a map or list, bounded in depth and length)
/// for error messages; "" for null.
std::string node_text(const YAML::Node& node);

/// The non-empty list at `key` of `root`: strings, integers in [lo, hi] or finite numbers in
/// [lo, hi] (by T); an empty list, a scalar where the list belongs, or an item out of range is a
/// SpecError naming `where` and the item ("key[i]"). Missing: empty, or a SpecError if `required`.
template <typename T>
std::vector<T> get_list(const YAML::Node& root, const std::string& key, const std::string& where,
                        bool required, double lo = 0, double hi = 9.2e18) {
  std::vector<T> out;
  const YAML::Node n = root[key];
  if (!n) {
    if (required) throw SpecError(where, key, "", "required key is missing");
    return out;
  }
  if (!n.IsSequence() || n.size() == 0)
    throw SpecError(where, key, n.IsNull() ? "null" : node_text(n), "expected a non-empty list");
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    if constexpr (std::is_same_v<T, std::string>)
      out.push_back(scalar_of(n[i], where, item));
    else if constexpr (std::is_floating_point_v<T>)
      out.push_back(double_of(n[i], where, item, lo, hi));
    else
      out.push_back(static_cast<T>(
          int_of(n[i], where, item, static_cast<int64_t>(lo), static_cast<int64_t>(hi))));
  }
  return out;
}

}  // namespace mapwright::core
