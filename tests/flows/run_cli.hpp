#pragma once
// Runs the `mapwright` executable of this build (MAPWRIGHT_CLI_EXE) with arguments, without a
// shell, for the flows tests of the command line.
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "mapwright/support/spawn.hpp"

namespace mapwright::test_files {

/// Runs `mapwright ARGS` of this build, with our environment and the "NAME=value" entries of
/// `extra_env`; its exit code (128 + signal when killed, -1 when it could not start).
inline int run_mapwright(const std::vector<std::string>& args,
                         const std::vector<std::string>& extra_env = {}) {
  core::SpawnSpec spec;
  spec.argv = {MAPWRIGHT_CLI_EXE};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.search_path = false;
  std::vector<std::string> env;
  if (!extra_env.empty()) {
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    spec.env = &env;
  }
  int error = 0;
  const pid_t pid = core::spawn_process(spec, error);
  if (pid < 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace mapwright::test_files
