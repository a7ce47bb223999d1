// spawn_process: the one posix_spawn set-up of gnuplot, the model build and the RTL workers.
#include "mapwright/support/spawn.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace {

using mapwright::core::spawn_process;
using mapwright::core::SpawnSpec;

/// The exit status of `pid` (-1 when it did not exit normally).
int exit_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Everything readable from `fd` until end of file.
std::string read_all(int fd) {
  std::string out;
  char buf[256];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(Spawn, ArgumentsReachTheProgramAsTheyAreWithoutAShell) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  SpawnSpec s;
  // A shell would expand the $HOME and split at the space; the program sees them as written.
  s.argv = {"printf", "%s|%s", "$HOME x", "; echo no"};
  s.stdout_fd = fds[1];
  int error = 0;
  const pid_t pid = spawn_process(s, error);
  close(fds[1]);
  ASSERT_GT(pid, 0) << error;
  EXPECT_EQ(read_all(fds[0]), "$HOME x|; echo no");
  close(fds[0]);
  EXPECT_EQ(exit_status(pid), 0);
}

/// The standard output of `s` run to its end, with its exit status in `status`.
std::string output_of(SpawnSpec s, int& status) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  s.stdout_fd = fds[1];
  int error = 0;
  const pid_t pid = spawn_process(s, error);
  close(fds[1]);
  const std::string out = pid > 0 ? read_all(fds[0]) : "spawn failed: " + std::to_string(error);
  close(fds[0]);
  status = pid > 0 ? exit_status(pid) : -1;
  return out;
}

TEST(Spawn, RunsInTheGivenFolderWithTheGivenEnvironment) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  SpawnSpec s;
  s.argv = {"pwd", "-P"};
  s.cwd = dir;
  int status = -1;
  EXPECT_EQ(output_of(s, status), std::filesystem::canonical(dir).string() + "\n");
  EXPECT_EQ(status, 0);

  const std::vector<std::string> env = {"MW_SPAWN_TEST=seen"};
  SpawnSpec e;
  e.argv = {"/usr/bin/env"};
  e.search_path = false;
  e.env = &env;
  EXPECT_EQ(output_of(e, status), "MW_SPAWN_TEST=seen\n");  // this environment and no other
  EXPECT_EQ(status, 0);
}

TEST(Spawn, AMissingProgramIsAnErrorNumber) {
  SpawnSpec s;
  s.argv = {"mapwright-no-such-program"};
  int error = 0;
  EXPECT_EQ(spawn_process(s, error), -1);
  EXPECT_EQ(error, ENOENT);
  s.argv = {"/nonexistent/program"};
  s.search_path = false;
  EXPECT_EQ(spawn_process(s, error), -1);
  EXPECT_EQ(error, ENOENT);
}

TEST(Spawn, TheExitStatusComesBack) {
  SpawnSpec s;
  s.argv = {"false"};
  int error = 0;
  const pid_t pid = spawn_process(s, error);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(exit_status(pid), 1);
}

}  // namespace
