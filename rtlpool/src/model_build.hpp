#pragma once
// The build of one RTL model for the cache (model_cache.cpp), and the child-process runner it
// shares with the cache key's tool versions. Private to rtlpool/src.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "mapwright/rtlpool/model_cache.hpp"

namespace mapwright::rtlpool {

/// Runs `argv` (PATH searched, no shell) with stdin from /dev/null and stdout+stderr into
/// `on_line`, one call per line, in environment `env` ("NAME=value" entries; null: ours).
/// Returns the exit status, or -1 when it could not start or was killed (`why` says which).
int run_captured(const std::vector<std::string>& argv,
                 const std::function<void(const std::string&)>& on_line, std::string& why,
                 const std::vector<std::string>* env = nullptr);

/// Builds the worker of `p` from the source tree `src` in <dir>/build and publishes it as `exe`
/// with model.json beside it (the objects are dropped; they stay in ccache); fills `r` (exe,
/// built, build_seconds) or its failure (with the log's path and last lines).
void build_model(const ModelParams& p, const std::string& src, const std::filesystem::path& dir,
                 const std::filesystem::path& exe, const ModelCacheOptions& o, ModelLookup& r);

}  // namespace mapwright::rtlpool
