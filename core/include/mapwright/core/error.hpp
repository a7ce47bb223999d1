#pragma once
/// \file error.hpp
/// The one exception type for bad user input: it always names where (file or flag), the key
/// and the offending value, so the CLI can print it and exit non-zero.

#include <stdexcept>
#include <string>

namespace mapwright::core {

class SpecError : public std::runtime_error {
 public:
  SpecError(const std::string& where, const std::string& key, const std::string& value,
            const std::string& why)
      : std::runtime_error(where + ": key '" + key + "' = '" + value + "': " + why),
        where_(where), key_(key), value_(value), why_(why) {}
  const std::string& where() const { return where_; }  ///< File or flag.
  const std::string& key() const { return key_; }      ///< Offending key (dotted path).
  const std::string& value() const { return value_; }  ///< Offending value as text.
  const std::string& why() const { return why_; }      ///< What is wrong with it.

 private:
  std::string where_;  ///< File or flag.
  std::string key_;    ///< Key.
  std::string value_;  ///< Value.
  std::string why_;    ///< Reason.
};

}  // namespace mapwright::core
