// Loads the torch module (torch_module.hpp) on first use, and the two things that forward to
// it: the Learner of the ppo and marl searchers, and the ppo-box factory. The module is looked
// for next to the program or shared object that links the search library, then in its
// ../lib/mapwright/, then at the path the build wrote it to (MAPWRIGHT_TORCH_MODULE_BUILD_PATH).
#include "torch_module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "internal.hpp"

namespace mapwright::search::detail {
namespace {

/// Where the module may be, in the order tried.
std::vector<std::string> module_candidates() {
  std::vector<std::string> paths;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&torch_module), &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] != '\0') {
    std::error_code ec;
    const auto self = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) {
      paths.push_back((self.parent_path() / kTorchModuleFile).string());
      paths.push_back(
          (self.parent_path() / ".." / "lib" / "mapwright" / kTorchModuleFile).string());
    }
  }
  paths.push_back(MAPWRIGHT_TORCH_MODULE_BUILD_PATH);
  return paths;
}

/// Loads the first candidate that opens and exports a table of this build's ABI.
const TorchModuleApi* load_module() {
  std::string tried;
  for (const auto& path : module_candidates()) {
    if (!std::filesystem::exists(path)) {
      tried += "\n  " + path + ": no such file";
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why != nullptr ? why : "dlopen failed");
      continue;
    }
    using Entry = const TorchModuleApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kTorchModuleEntry));
    const TorchModuleApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->abi != kTorchModuleAbi) {
      tried += "\n  " + path + ": not a torch module of this build (ABI " +
               std::to_string(api != nullptr ? api->abi : -1) + ", expected " +
               std::to_string(kTorchModuleAbi) + ")";
      dlclose(handle);
      continue;
    }
    return api;  // The module stays loaded for the life of the process.
  }
  throw std::runtime_error(
      std::string("the learning searchers (ppo, ppo-box, marl) need the LibTorch module ") +
      kTorchModuleFile + ", which did not load; tried:" + tried);
}

}  // namespace

const TorchModuleApi& torch_module() {
  static std::mutex mutex;
  static const TorchModuleApi* api = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (api == nullptr) api = load_module();
  return *api;
}

Learner::Learner(const std::vector<HeadSpec>& heads, const LearnerOptions& options,
                 uint64_t torch_seed)
    : impl_(torch_module().make_learner(heads, options, torch_seed)) {}

Learner::~Learner() = default;

std::vector<std::vector<int64_t>> Learner::sample(int64_t n, std::mt19937_64& rng) {
  return impl_->sample(n, rng);
}

void Learner::update(const std::vector<std::vector<int64_t>>& actions,
                     const std::vector<double>& rewards, const AgentBaselines* baselines) {
  impl_->update(actions, rewards, baselines);
}

void Learner::warm_start(const std::vector<std::vector<int64_t>>& actions,
                         const std::vector<double>& rewards, int64_t recent, int64_t steps) {
  impl_->warm_start(actions, rewards, recent, steps);
}

int64_t Learner::parameter_count() const {
  return impl_->parameter_count();
}

nlohmann::json Learner::stats() const {
  return impl_->stats();
}

std::unique_ptr<Searcher> make_ppo_box(const Problem& problem, const PpoBoxOptions& options,
                                       uint64_t seed) {
  return torch_module().make_ppo_box(problem, options, seed);
}

}  // namespace mapwright::search::detail
