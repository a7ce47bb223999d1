#pragma once
/// \file json_schema.hpp
/// A small schema language for the JSON files the flows read back (a run's results.json), so a
/// hand-edited or damaged file is refused with the file, the key path and the value instead of
/// failing deep inside with an untyped JSON error.
///
/// A schema is JSON: an object maps each key to the schema of its value (a key ending in '?'
/// may be missing; keys not listed are allowed); an array holds the schema of every element; a
/// string names a type: string, int, uint (>= 0), count (>= 1), number (finite), bool, object,
/// any, or enum:a|b|c; a leading '?' allows null; "@name" refers to a schema given to the
/// checker by name.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace mapwright::flows {

/// Checks JSON values against schemas; every failure is a core::SpecError naming the file, the
/// key path and the value, followed by `advice`.
class JsonChecker {
 public:
  /// `refs`: the schemas "@name" refers to, by name (without the '@').
  JsonChecker(std::string file, std::string advice, std::map<std::string, nlohmann::json> refs);
  /// Checks `v` against `schema`; `path` names `v` in errors ("" at the top).
  void check(const nlohmann::json& v, const nlohmann::json& schema, const std::string& path) const;
  /// Refuses `v` at `path` because of `why`.
  [[noreturn]] void fail(const std::string& path, const nlohmann::json& v,
                         const std::string& why) const;

 private:
  void check_scalar(const nlohmann::json& v, const std::string& type,
                    const std::string& path) const;

  std::string file_;                            ///< The file checked, for errors.
  std::string advice_;                          ///< What to do about a refusal, for errors.
  std::map<std::string, nlohmann::json> refs_;  ///< The schemas "@name" refers to.
};

}  // namespace mapwright::flows
