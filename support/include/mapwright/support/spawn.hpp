#pragma once
/// \file spawn.hpp
/// Starting a child process without a shell: the one posix_spawn set-up that gnuplot, the RTL
/// model build (cmake) and the RTL worker pool share.

#include <sys/types.h>

#include <string>
#include <vector>

namespace mapwright::core {

/// What a child's standard stream is: inherited from this process, /dev/null, or a descriptor
/// of ours (any value >= 0) dup2'd onto it.
enum : int { kInheritFd = -2, kDevNullFd = -1 };

/// A child process to start.
struct SpawnSpec {
  std::vector<std::string> argv;   ///< The program and its arguments (argv[0] not empty).
  bool search_path = true;         ///< argv[0] is looked up in PATH (posix_spawnp).
  int stdin_fd = kDevNullFd;       ///< The child's standard input.
  int stdout_fd = kDevNullFd;      ///< Its standard output.
  int stderr_fd = kDevNullFd;      ///< Its standard error.
  std::string cwd;                 ///< Its working folder ("" = ours).
  bool own_process_group = false;  ///< In a process group of its own (a terminal's Ctrl-C
                                   ///< then reaches only us).
  /// Its environment as "NAME=value" entries; null = ours.
  const std::vector<std::string>* env = nullptr;
};

/// Starts `spec` with posix_spawn(p): no shell ever sees an argument. SIGPIPE and SIGINT are
/// at their default actions in the child whatever we do with them. Returns the child's pid, or
/// -1 with `error` set to posix_spawn's error number.
pid_t spawn_process(const SpawnSpec& spec, int& error);

}  // namespace mapwright::core
