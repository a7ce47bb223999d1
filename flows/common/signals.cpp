#include "common/signals.hpp"

#include <csignal>

namespace mapwright::flows {

namespace {
volatile std::sig_atomic_t g_signals = 0;
void on_signal(int) {
  g_signals = g_signals + 1;
}
}  // namespace

InterruptSignals::InterruptSignals(bool also_term) : term_(also_term) {
  g_signals = 0;
  old_int_ = std::signal(SIGINT, on_signal);
  if (term_) old_term_ = std::signal(SIGTERM, on_signal);
}

InterruptSignals::~InterruptSignals() {
  std::signal(SIGINT, old_int_);
  if (term_) std::signal(SIGTERM, old_term_);
}

int InterruptSignals::count() {
  return g_signals;
}

void InterruptSignals::note() {
  g_signals = g_signals + 1;
}

}  // namespace mapwright::flows
