#pragma once
// The torch module: the searcher code that needs LibTorch (the policy network and its learner,
// the ppo-box searcher) is built as a shared module of its own, libmapwright_torch.so, which
// the search library loads (dlopen) when the first learner or ppo-box searcher is built. A
// process that runs no learning searcher never loads LibTorch: Debian's LibTorch brings about
// 280 shared libraries with it (OpenCV, FFmpeg, ...), and loading and initializing them costs
// about a second at every process start (0.05 s without them), which every CLI call and every
// test process paid. Internal to search/.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mapwright/search/options.hpp"
#include "mapwright/search/searcher.hpp"
#include "joint_critic.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {

/// Bumped whenever TorchModuleApi or a type it passes changes: a module of another version is
/// refused when it is loaded.
inline constexpr int kTorchModuleAbi = 2;

/// Name of the C function the module exports; it answers the module's TorchModuleApi.
inline constexpr const char* kTorchModuleEntry = "mapwright_torch_module";

/// File name of the module (next to the search library's build output, see torch_module()).
inline constexpr const char* kTorchModuleFile = "libmapwright_torch.so";

/// The factories the module exports.
struct TorchModuleApi {
  int abi = 0;  ///< kTorchModuleAbi of the build that made the module.
  /// Builds a learner (what Learner's constructor forwards to).
  std::unique_ptr<LearnerBackend> (*make_learner)(const std::vector<HeadSpec>& heads,
                                                  const LearnerOptions& options,
                                                  uint64_t torch_seed) = nullptr;
  /// Builds a ppo-box searcher (what make_ppo_box forwards to).
  std::unique_ptr<Searcher> (*make_ppo_box)(const Problem& problem, const PpoBoxOptions& options,
                                            uint64_t seed) = nullptr;
  /// Builds marl's joint-action critic (what JointCritic's constructor forwards to).
  std::unique_ptr<JointCriticBackend> (*make_joint_critic)(const Problem& problem, int64_t bins,
                                                           uint64_t torch_seed) = nullptr;
};

/// The loaded module's factories. Loads the module on the first call (thread-safe): from the
/// folder of the program or shared object this code is linked into, then its ../lib/mapwright/,
/// then the build tree's path. Throws std::runtime_error naming every path tried and why it
/// failed when none loads.
const TorchModuleApi& torch_module();

// Defined in the module (policy.cpp, ppo_box.cpp, joint_critic.cpp):

/// Serializes torch::manual_seed + network construction (the torch generator is global).
std::mutex& torch_seed_mutex();

/// The LibTorch learner.
std::unique_ptr<LearnerBackend> make_torch_learner(const std::vector<HeadSpec>& heads,
                                                   const LearnerOptions& options,
                                                   uint64_t torch_seed);
/// The LibTorch ppo-box searcher.
std::unique_ptr<Searcher> make_torch_ppo_box(const Problem& problem, const PpoBoxOptions& options,
                                             uint64_t seed);
/// The LibTorch joint-action critic.
std::unique_ptr<JointCriticBackend> make_torch_joint_critic(const Problem& problem, int64_t bins,
                                                            uint64_t torch_seed);

}  // namespace mapwright::search::detail
