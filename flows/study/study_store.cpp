// The resumable state of a study: the trial log (see study_store.hpp).
#include "study/study_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/files.hpp"
#include "mapwright/support/posix_io.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/test_hooks.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json();
}

double number_or_inf(const json& j, const std::string& where, const std::string& key) {
  if (j.is_null()) return std::numeric_limits<double>::infinity();
  if (!j.is_number()) throw core::SpecError(where, key, j.dump(), "must be a number or null");
  return j.get<double>();
}

}  // namespace

json trial_to_json(const Trial& t) {
  json c = json::array();
  for (double x : t.curve) c.push_back(finite_or_null(x));
  json j = {{"layer", t.layer},
            {"searcher", t.searcher},
            {"seed", t.seed},
            {"reference", t.reference},
            {"budget", t.budget},
            {"samples", t.samples},
            {"duplicates", t.duplicates},
            {"invalid", t.invalid},
            {"best", finite_or_null(t.best)},
            {"seconds", t.seconds},
            {"curve", c}};
  if (t.rtl_samples > 0) j["rtl_samples"] = t.rtl_samples;
  return j;
}

Trial trial_from_json(const json& j, const std::string& where) {
  Trial t;
  try {
    t.layer = j.at("layer").get<size_t>();
    t.searcher = j.at("searcher").get<std::string>();
    t.seed = j.at("seed").get<uint64_t>();
    t.reference = j.at("reference").get<bool>();
    t.budget = j.at("budget").get<int64_t>();
    t.duplicates = j.at("duplicates").get<int64_t>();
    t.invalid = j.at("invalid").get<int64_t>();
    t.seconds = j.at("seconds").get<double>();
    t.best = number_or_inf(j.at("best"), where, "best");
    const json& c = j.at("curve");
    if (!c.is_array())
      throw core::SpecError(where, "curve", c.dump().substr(0, 40), "must be a list");
    t.curve.reserve(c.size());
    for (const auto& x : c) t.curve.push_back(number_or_inf(x, where, "curve"));
    t.rtl_samples = j.value("rtl_samples", int64_t{0});
    t.samples = j.contains("samples") ? j.at("samples").get<int64_t>()
                                      : static_cast<int64_t>(t.curve.size());
  } catch (const json::exception& e) {
    throw core::SpecError(where, "(record)", j.dump().substr(0, 80), e.what());
  }
  if (t.budget < 1 || static_cast<int64_t>(t.curve.size()) > t.budget)
    throw core::SpecError(where, "curve", std::to_string(t.curve.size()) + " entries",
                          "longer than the budget " + std::to_string(t.budget));
  if (t.samples < 0 || t.samples > t.budget)
    throw core::SpecError(where, "samples", std::to_string(t.samples),
                          "must be between 0 and the budget " + std::to_string(t.budget));
  return t;
}

uint64_t fnv1a_64(const std::string& text, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string fingerprint(const std::string& text) {
  const uint64_t h = fnv1a_64(text, 1469598103934665603ULL);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

TrialLog::TrialLog(const fs::path& file) : file_(file) {
  std::string text;
  if (fs::exists(file)) text = read_text(file);
  size_t good = 0, line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      dropped_ = true;  // a record cut short by a crash: its run is simply done again
      break;
    }
    ++line_no;
    const std::string where = file.string() + ":" + std::to_string(line_no);
    json j;
    try {
      j = json::parse(text.substr(pos, nl - pos));
    } catch (const json::exception& e) {
      throw core::SpecError(where, "(line)", text.substr(pos, std::min<size_t>(nl - pos, 80)),
                            std::string("not a trial record: ") + e.what());
    }
    loaded_.push_back(trial_from_json(j, where));
    pos = good = nl + 1;
  }
  fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw core::SpecError(file.string(), "(file)", "",
                          std::string("cannot write: ") + std::strerror(errno));
  if (dropped_ && ::ftruncate(fd_, static_cast<off_t>(good)) != 0)
    throw core::SpecError(file.string(), "(file)", "",
                          std::string("cannot truncate: ") + std::strerror(errno));
}

TrialLog::~TrialLog() {
  if (fd_ >= 0) ::close(fd_);
}

void TrialLog::append(const Trial& t) {
  const std::string line = trial_to_json(t).dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  // Test hook (core/test_hooks.hpp): die with half of the record written.
  const off_t start = ::lseek(fd_, 0, SEEK_END);
  const bool die_here = core::kill_point_reached("trial");
  const size_t first = die_here ? line.size() / 2 : line.size();
  bool ok = core::write_all(fd_, line.data(), first);
  if (ok && die_here) core::kill_self();
  if (ok) ok = core::write_all(fd_, line.data() + first, line.size() - first);
  if (!ok) {
    const int e = errno;
    // Leave whole records only (a full disk must not leave half a line before the next).
    if (start >= 0 && ::ftruncate(fd_, start) != 0) {
      // A torn last line is dropped when the log is read again.
    }
    throw core::SpecError(file_.string(), "(file)", "",
                          std::string("cannot write: ") + std::strerror(e));
  }
  if (::fdatasync(fd_) != 0 && errno != EINVAL)
    throw core::SpecError(file_.string(), "(file)", "",
                          std::string("cannot write: ") + std::strerror(errno));
}

}  // namespace mapwright::flows
