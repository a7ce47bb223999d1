#include "mapwright/support/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

extern char** environ;

namespace mapwright::core {

namespace {

/// Connects the child's descriptor `target` as `fd` says (see kInheritFd, kDevNullFd).
void connect_stream(posix_spawn_file_actions_t& fa, int fd, int target) {
  if (fd == kInheritFd) return;
  if (fd == kDevNullFd)
    posix_spawn_file_actions_addopen(&fa, target, "/dev/null",
                                     target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0);
  else
    posix_spawn_file_actions_adddup2(&fa, fd, target);
}

}  // namespace

pid_t spawn_process(const SpawnSpec& spec, int& error) {
  error = 0;
  std::vector<char*> args;
  for (const auto& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  if (spec.env) {
    for (const auto& e : *spec.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  connect_stream(fa, spec.stdin_fd, STDIN_FILENO);
  connect_stream(fa, spec.stdout_fd, STDOUT_FILENO);
  connect_stream(fa, spec.stderr_fd, STDERR_FILENO);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  sigaddset(&def, SIGINT);
  posix_spawnattr_setsigdefault(&at, &def);
  short flags = POSIX_SPAWN_SETSIGDEF;
  if (spec.own_process_group) {
    posix_spawnattr_setpgroup(&at, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&at, flags);
  char* const* env = spec.env ? envp.data() : environ;
  pid_t pid = -1;
  const int rc = spec.search_path ? posix_spawnp(&pid, args[0], &fa, &at, args.data(), env)
                                  : posix_spawn(&pid, args[0], &fa, &at, args.data(), env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) {
    error = rc;
    return -1;
  }
  return pid;
}

}  // namespace mapwright::core
