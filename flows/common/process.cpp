#include "common/process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "common/files.hpp"
#include "mapwright/support/spawn.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

int run_program(const std::vector<std::string>& argv, const fs::path& cwd, double timeout_s) {
  if (argv.empty()) return -1;
  core::SpawnSpec spec;
  spec.argv = argv;  // every stream to /dev/null
  spec.cwd = cwd.string();
  int error = 0;
  const pid_t pid = core::spawn_process(spec, error);
  if (pid < 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string gnuplot_svg(const fs::path& script, const fs::path& svg) {
  std::error_code ec;
  fs::remove(svg, ec);
  // gnuplot runs in the script's folder, so scripts name their files relative to it and no
  // user-chosen path is ever written into a script.
  const fs::path dir = script.has_parent_path() ? script.parent_path() : fs::path(".");
  if (run_program({"gnuplot", script.filename().string()}, dir, 120.0) != 0 || !fs::exists(svg))
    return "";
  std::string text = read_text(svg);
  const size_t start = text.find("<svg");
  if (start == std::string::npos) return "";
  return text.substr(start);
}

}  // namespace mapwright::flows
