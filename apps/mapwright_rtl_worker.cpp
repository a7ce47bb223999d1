// mapwright-rtl-worker: the RTL worker process of `mapwright run` and `mapwright regress`
// (the same loop as the hidden `mapwright rtl-worker` subcommand), as a small executable that
// starts in milliseconds because it does not load LibTorch. One JSON request per line on stdin,
// one JSON result per line on stdout; one SystemC simulation per process.
#include <unistd.h>

#include <iostream>

#include "mapwright/rtlpool/worker_loop.hpp"

int main() try {
  // The protocol owns the original stdout; anything else printed goes to stderr.
  const int proto = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return mapwright::rtlpool::worker_loop(std::cin, proto);
} catch (const std::exception& err) {
  std::cerr << "mapwright-rtl-worker: internal error: " << err.what() << "\n";
  return 70;
} catch (...) {
  std::cerr << "mapwright-rtl-worker: internal error: unknown exception\n";
  return 70;
}
