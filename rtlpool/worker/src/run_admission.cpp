// Admission of RTL runs against their SimLimits: the closed-form memory estimate first (the
// simulator's estimate over the model's closed-form counts), then the predicted cycles (a walk
// of the reference schedule), each against its bound, with the refusal's text naming the
// estimate, the bound and the flag that raises it.
#include "mapwright/rtlpool/run_admission.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"

namespace mapwright::rtlpool {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// A count as text: exact below 10^7, else 4 significant digits ("3.1e9").
std::string count_text(double v) {
  char buf[32];
  if (v < 1e7 && v == static_cast<double>(static_cast<long long>(v)))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string t = buf;
  for (const char* junk : {"e+0", "e+"})
    if (const size_t at = t.find(junk); at != std::string::npos)
      t.replace(at, std::strlen(junk), "e");
  return t;
}

}  // namespace

rtl::RunAdmission admit_run(const core::Layer& layer, const core::Arch& arch,
                            const core::Mapping& m, const rtl::SimLimits& lim) {
  rtl::RunAdmission a;
  rtl::RtlRunResult refused;
  if (!systemc::RtlEvaluator::precheck(layer, arch, m, refused)) return a;
  a.estimated_memory_mb =
      systemc::estimate_run_memory(layer, arch, m, model::closed_form_counts(layer, arch, m))
          .total() /
      kMiB;
  if (lim.max_memory_mb > 0 && a.estimated_memory_mb > static_cast<double>(lim.max_memory_mb)) {
    a.refusal = "limit: estimated " + count_text(std::ceil(a.estimated_memory_mb)) +
                " MB of memory > max_memory_mb " + count_text(lim.max_memory_mb) +
                " (raise it with --sim-max-memory-mb)";
    return a;
  }
  a.predicted_cycles = model::simulate_schedule(layer, arch, m).cycles;
  if (lim.max_cycles > 0 && a.predicted_cycles > lim.max_cycles)
    a.refusal = "limit: predicted " + count_text(static_cast<double>(a.predicted_cycles)) +
                " cycles > max_cycles " + count_text(static_cast<double>(lim.max_cycles)) +
                " (raise it with --sim-max-cycles)";
  return a;
}

rtl::RtlRunResult run_admitted(systemc::RtlEvaluator& evaluator, const core::Layer& layer,
                               const core::Arch& arch, const core::Mapping& mapping,
                               const systemc::RtlRunOptions& options) {
  return evaluator.run(layer, arch, mapping, admit_run(layer, arch, mapping, options.limits),
                       options);
}

}  // namespace mapwright::rtlpool
