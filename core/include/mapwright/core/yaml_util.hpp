#pragma once
/// \file yaml_util.hpp
/// Strict YAML reading: every helper names the file, the dotted key and the value in its
/// `SpecError`, and `check_keys` refuses keys the schema does not know.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>

namespace mapwright::core {

/// Loads a YAML file; a missing file or a syntax error becomes a SpecError naming the file.
YAML::Node load_yaml_file(const std::string& path);
/// Parses YAML text (for inline specs); `where` names its origin.
YAML::Node load_yaml_text(const std::string& text, const std::string& where);
/// Refuses any key of map `node` (at dotted path `path`) not in `allowed`.
void check_keys(const YAML::Node& node, const std::string& where, const std::string& path,
                std::initializer_list<const char*> allowed);
/// Requires `node` to be a map.
void require_map(const YAML::Node& node, const std::string& where, const std::string& path);
/// Reads an integer (no fraction, no text); `required` keys must be present.
int64_t get_int(const YAML::Node& map, const std::string& key, const std::string& where,
                const std::string& path, int64_t fallback, bool required = false);
double get_double(const YAML::Node& map, const std::string& key, const std::string& where,
                  const std::string& path, double fallback, bool required = false);
bool get_bool(const YAML::Node& map, const std::string& key, const std::string& where,
              const std::string& path, bool fallback);
std::string get_string(const YAML::Node& map, const std::string& key, const std::string& where,
                       const std::string& path, const std::string& fallback,
                       bool required = false);
/// Joins a dotted path: join("a", "b") == "a.b", join("", "b") == "b".
std::string join_key(const std::string& path, const std::string& key);
/// Text of a scalar (or a short flow dump of a non-scalar) for error messages.
std::string node_text(const YAML::Node& node);

}  // namespace mapwright::core
