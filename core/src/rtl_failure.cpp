#include "mapwright/core/rtl_failure.hpp"

namespace mapwright::core {

namespace {
constexpr RtlFailure kAll[] = {
    RtlFailure::None,          RtlFailure::Invalid,  RtlFailure::Mapping,  RtlFailure::Arch,
    RtlFailure::CommandFormat, RtlFailure::Watchdog, RtlFailure::RtlError, RtlFailure::Assertion,
    RtlFailure::Dram,          RtlFailure::Trace,    RtlFailure::Limit,    RtlFailure::Worker,
    RtlFailure::Internal};
}  // namespace

const char* rtl_failure_name(RtlFailure k) {
  switch (k) {
    case RtlFailure::None:
      return "none";
    case RtlFailure::Invalid:
      return "invalid";
    case RtlFailure::Mapping:
      return "mapping";
    case RtlFailure::Arch:
      return "arch";
    case RtlFailure::CommandFormat:
      return "command_format";
    case RtlFailure::Watchdog:
      return "watchdog";
    case RtlFailure::RtlError:
      return "rtl_error";
    case RtlFailure::Assertion:
      return "assertion";
    case RtlFailure::Dram:
      return "dram";
    case RtlFailure::Trace:
      return "trace";
    case RtlFailure::Limit:
      return "limit";
    case RtlFailure::Worker:
      return "worker";
    case RtlFailure::Internal:
      return "internal";
  }
  return "internal";
}

RtlFailure rtl_failure_from_name(const std::string& name) {
  for (RtlFailure k : kAll)
    if (name == rtl_failure_name(k)) return k;
  return RtlFailure::Internal;
}

}  // namespace mapwright::core
