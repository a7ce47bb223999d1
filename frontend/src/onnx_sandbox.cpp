// The ONNX import's sandbox: import_onnx runs the import (onnx_import.cpp) in a forked child
// and reads its answer, the network or the SpecError, back as JSON from a pipe, so that a file
// that kills the ONNX library is an error, never a crash of the caller.
#include "mapwright/frontend/onnx_import.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/support/error.hpp"
#include "mapwright/support/posix_io.hpp"
#include "onnx_in_process.hpp"

namespace mapwright::core {

namespace {

using onnx_detail::import_in_process;

nlohmann::json network_to_json(const Network& n) {
  nlohmann::json j{{"name", n.name},
                   {"description", n.description},
                   {"layers", nlohmann::json::array()},
                   {"skipped", nlohmann::json::array()},
                   {"warnings", n.warnings}};
  for (const auto& l : n.layers) j["layers"].push_back(layer_to_json(l));
  for (const auto& [op, count] : n.skipped) j["skipped"].push_back({op, count});
  return j;
}

Network network_from_json(const nlohmann::json& j, const std::string& path) {
  Network n;
  n.name = j.at("name").get<std::string>();
  n.description = j.at("description").get<std::string>();
  for (const auto& l : j.at("layers")) n.layers.push_back(layer_from_json(l, path));
  for (const auto& s : j.at("skipped"))
    n.skipped.emplace_back(s.at(0).get<std::string>(), s.at(1).get<int>());
  n.warnings = j.at("warnings").get<std::vector<std::string>>();
  return n;
}

/// Runs import_in_process in a forked child and reads its answer (the network, or the
/// SpecError) as JSON from a pipe.
Network import_in_child(const std::string& path, const OnnxOptions& o) {
  int fds[2];
  if (pipe(fds) != 0)
    throw SpecError(path, "file", path, std::string("cannot start the import: ") + strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw SpecError(path, "file", path, std::string("cannot start the import: ") + strerror(errno));
  }
  if (pid == 0) {  // the child: import, answer, exit without running the parent's exit handlers
    close(fds[0]);
    nlohmann::json answer;
    try {
      answer = {{"network", network_to_json(import_in_process(path, o))}};
    } catch (const SpecError& e) {
      answer = {{"error", {e.where(), e.key(), e.value(), e.why()}}};
    } catch (const std::exception& e) {
      answer = {{"error", {path, "file", path, std::string("import failed: ") + e.what()}}};
    }
    const std::string text = answer.dump();
    _exit(write_all(fds[1], text.data(), text.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw SpecError(path, "file", path,
                    std::string("the ONNX library failed on this file (") +
                        (WIFSIGNALED(status) ? std::string("signal ") + strsignal(WTERMSIG(status))
                                             : "exit " + std::to_string(WEXITSTATUS(status))) +
                        " while checking it or inferring its shapes): a malformed model");
  const nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    throw SpecError(path, "file", path, "the import gave no answer");
  if (answer.contains("error")) {
    const auto& e = answer["error"];
    throw SpecError(e.at(0).get<std::string>(), e.at(1).get<std::string>(),
                    e.at(2).get<std::string>(), e.at(3).get<std::string>());
  }
  return network_from_json(answer.at("network"), path);
}

}  // namespace

Network import_onnx(const std::string& path, const OnnxOptions& o) {
  // The ONNX library's checker and shape inference are third-party code run on a user's file,
  // and fuzzing found inputs that kill them (SIGFPE, SIGSEGV in the Conv and ConvTranspose
  // inference). They run in a forked child, so a malformed file is an error, never a crash;
  // the cost is one fork per import (milliseconds).
  return import_in_child(path, o);
}

}  // namespace mapwright::core
