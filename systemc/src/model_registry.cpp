// The model registry: the Verilated models compiled into this build (the generated list,
// mw_models.h) and the process's harness hosts built from them. An architecture is served by
// the model whose RTL parameters it matches, whatever its name; the process keeps one SystemC
// host (one SystemC simulation per process, never destroyed) and one plain host (replaced for
// another architecture). Every harness host template (harness_hosts.hpp) is instantiated here,
// once per model.
#include "model_registry.hpp"

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness_hosts.hpp"
#include "mw_models.h"

namespace mapwright::systemc {

namespace detail {

namespace {

/// The process's plain host (any number of architectures in turn; no SystemC involved).
std::unique_ptr<SimHost>& plain_host() {
  static auto* h = new std::unique_ptr<SimHost>();
  return *h;
}

/// The process's host. Never destroyed: SystemC modules must outlive the simulation kernel and
/// Verilator's context, which are torn down at exit in an order we do not control.
std::unique_ptr<SimHost>& host() {
  static auto* h = new std::unique_ptr<SimHost>();
  return *h;
}

/// "4x4, input 8192 B, weight 8192 B, accumulator 2048 words, 8 B/cycle" (", 8 banks").
std::string describe(const RtlParams& p) {
  std::ostringstream os;
  os << p.rows << "x" << p.cols << ", input " << p.input_buf_bytes << " B, weight "
     << p.weight_buf_bytes << " B, accumulator " << p.accum_buf_words << " words, " << p.beat_bytes
     << " B/cycle";
  if (p.buf_banks) os << ", " << p.buf_banks << " banks";
  return os.str();
}

using rtl::params_of;

/// The same model parameters (max_bursts aside: every model has 256).
bool same(const RtlParams& a, const RtlParams& b) {
  return a.same_model(b);
}

/// Builds host type `Host` into `h` when no host is there yet and the model's parameters `p`
/// are the ones `want`ed (one call per compiled model, from the generated model list).
template <typename Host>
void try_model(std::unique_ptr<SimHost>& h, const std::string& arch, const RtlParams& want,
               const RtlParams& p, RtlHarness harness) {
  if (h || !same(p, want)) return;
  h = std::make_unique<Host>(static_cast<int>(p.beat_bytes));
  h->arch = arch;
  h->params = p;
  h->harness = harness;
}

/// Returns the process's SystemC host (`harness` SystemC or Decoupled) for `arch`, elaborating
/// it on first use.
SimHost* systemc_host_for(const core::Arch& arch, RtlHarness harness, std::string& failure) {
  const RtlParams want = params_of(arch);
  auto& h = host();
  if (h) {
    if (!same(h->params, want) || h->harness != harness) {
      failure = "arch: this process already elaborated the " +
                std::string(harness_label(h->harness)) + " harness for '" + h->arch + "' (" +
                describe(h->params) + "); the " + harness_label(harness) + " harness" + " for '" +
                arch.name + "' (" + describe(want) +
                ") needs its own process (one SystemC simulation per process)";
      return nullptr;
    }
    return h.get();
  }
  if (harness == RtlHarness::Decoupled) {
#define MW_TRY_LT(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  try_model<DecoupledHostT<TYPE>>(h, arch.name, want,                  \
                                  {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, harness);
    MW_FOR_EACH_PLAIN_MODEL(MW_TRY_LT)
#undef MW_TRY_LT
    if (!h)
      failure = "arch: no plain C++ Verilated model for '" + arch.name + "' (" + describe(want) +
                "), which the decoupled SystemC harness steps; see MAPWRIGHT_RTL_PLAIN_ARCHS in "
                "systemc/CMakeLists.txt";
    return h.get();
  }
#define MW_TRY_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS)                       \
  try_model<SimHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, \
                            harness);
  MW_FOR_EACH_MODEL(MW_TRY_MODEL)
#undef MW_TRY_MODEL
  if (!h) {
    failure =
        "arch: no Verilated model for '" + arch.name + "' (" + describe(want) + "); compiled: ";
    for (const auto& n : RtlEvaluator::compiled_archs()) failure += n + " ";
    return nullptr;
  }
  return h.get();
}

/// Returns a plain C++ harness for `arch`, replacing one built for another architecture.
SimHost* plain_host_for(const core::Arch& arch, std::string& failure) {
  const RtlParams want = params_of(arch);
  auto& h = plain_host();
  if (h && same(h->params, want)) return h.get();
  h.reset();
#define MW_TRY_PLAIN(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS)                         \
  try_model<PlainHostT<TYPE>>(h, arch.name, want, {ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}, \
                              RtlHarness::Plain);
  MW_FOR_EACH_PLAIN_MODEL(MW_TRY_PLAIN)
#undef MW_TRY_PLAIN
  if (!h) {
    failure = "arch: no plain C++ Verilated model for '" + arch.name + "' (" + describe(want) +
              "); see MAPWRIGHT_RTL_PLAIN_ARCHS in systemc/CMakeLists.txt";
    return nullptr;
  }
  return h.get();
}

}  // namespace

SimHost* host_for(const core::Arch& arch, RtlHarness harness, std::string& failure) {
  return harness == RtlHarness::Plain ? plain_host_for(arch, failure)
                                      : systemc_host_for(arch, harness, failure);
}

}  // namespace detail

using detail::same;
using detail::SimHost;
using rtl::params_of;

std::vector<std::string> RtlEvaluator::compiled_archs() {
  std::vector<std::string> v;
#define MW_NAME(NAME, ...) v.push_back(NAME);
  MW_FOR_EACH_MODEL(MW_NAME)
#undef MW_NAME
  return v;
}

std::vector<std::string> RtlEvaluator::plain_archs() {
  std::vector<std::string> v;
#define MW_NAME(NAME, ...) v.push_back(NAME);
  MW_FOR_EACH_PLAIN_MODEL(MW_NAME)
#undef MW_NAME
  return v;
}

bool RtlEvaluator::has_plain_model(const core::Arch& arch) {
  // Unused where no plain model is compiled in (the model cache's one-model build).
  [[maybe_unused]] const RtlParams want = params_of(arch);
  bool found = false;
#define MW_HAS_PLAIN(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  found = found || same(want, RtlParams{ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS});
  MW_FOR_EACH_PLAIN_MODEL(MW_HAS_PLAIN)
#undef MW_HAS_PLAIN
  return found;
}

RtlHarness RtlEvaluator::resolve(RtlHarness harness, const core::Arch& arch, bool traced) {
  if (harness != RtlHarness::Auto) return harness;
  // The process's SystemC harness stays (one SystemC simulation per process); a mismatch in
  // architecture is reported by host_for as for any other harness.
  if (const auto& h = detail::host()) return h->harness;
  return !traced && has_plain_model(arch) ? RtlHarness::Decoupled : RtlHarness::SystemC;
}

std::vector<std::pair<std::string, RtlParams>> RtlEvaluator::compiled_models() {
  std::vector<std::pair<std::string, RtlParams>> v;
#define MW_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  v.push_back({NAME, RtlParams{ROWS, COLS, INB, WTB, ACCW, BEAT, 256, BANKS}});
  MW_FOR_EACH_MODEL(MW_MODEL)
#undef MW_MODEL
  return v;
}

bool RtlEvaluator::read_params(const core::Arch& arch, RtlParams& p, std::string& failure,
                               RtlHarness requested) {
  SimHost* h = detail::host_for(arch, resolve(requested, arch), failure);
  if (!h) return false;
  p.rows = static_cast<long long>(h->read_csr(detail::kCsrRows));
  p.cols = static_cast<long long>(h->read_csr(detail::kCsrCols));
  p.input_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrInBytes));
  p.weight_buf_bytes = static_cast<long long>(h->read_csr(detail::kCsrWtBytes));
  p.accum_buf_words = static_cast<long long>(h->read_csr(detail::kCsrAccWords));
  p.beat_bytes = static_cast<long long>(h->read_csr(detail::kCsrBeatBytes));
  p.max_bursts = static_cast<long long>(h->read_csr(detail::kCsrMaxBursts));
  p.buf_banks = static_cast<long long>(h->read_csr(detail::kCsrBufBanks));
  return true;
}

}  // namespace mapwright::systemc

// libsystemc's own main() references sc_main() (declared extern "C" by systemc.h, which the
// harness hosts include); mapwright's executables have their own main and run the simulation
// through RtlEvaluator, so this sc_main only satisfies that reference.
int sc_main(int /*argc*/, char* /*argv*/[]) {
  return 0;
}
