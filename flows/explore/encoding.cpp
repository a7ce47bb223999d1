#include "mapwright/flows/encoding.hpp"

#include <stdexcept>

namespace mapwright::flows {

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::Raw:
      return "raw";
    case Encoding::Gamma:
      return "gamma";
    case Encoding::Compact:
      break;
  }
  return "compact";
}

Encoding encoding_from_name(const std::string& name) {
  for (Encoding e : {Encoding::Compact, Encoding::Raw, Encoding::Gamma})
    if (name == encoding_name(e)) return e;
  throw std::invalid_argument("unknown encoding '" + name + "' (known: compact, raw, gamma)");
}

}  // namespace mapwright::flows
