#pragma once
/// \file model_cache.hpp
/// RTL models on demand. The models of the named architectures in MAPWRIGHT_RTL_ARCHS are
/// compiled into the build (`mapwright-rtl-worker`); any other architecture gets its own worker
/// executable, built the first time it is needed and kept in a cache folder:
///
/// - The source tree this mapwright was built from is configured in a folder of the cache with
///   MAPWRIGHT_RTL_WORKER_ONLY=ON and MAPWRIGHT_RTL_MODEL set to the architecture's RTL
///   parameters, and only `mapwright-rtl-worker` is built (cmake and ninja run as child
///   processes, without a shell; ccache makes the code other than the model's quick).
/// - The key of a model is a SHA-256 over its RTL parameters, every file of the parts the
///   worker is built from (rtl/, core/, rtl_api/, model/, systemc/, rtlpool/, the worker's
///   main, the top-level CMakeLists.txt), and the versions of Verilator and the C++ compiler. A
///   change to any of them is a new key, so a stale model is never used.
/// - Two processes that need the same model at once take an exclusive lock on
///   <cache>/<key>.lock: one builds, the other waits and then finds the executable.
/// - A finished model is <cache>/<key>/mapwright-rtl-worker with model.json (its parameters)
///   and build.log beside it; the build folder is removed (its objects stay in ccache).

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/arch.hpp"

namespace mapwright::rtlpool {

/// The RTL parameters of rtl/mw_accel.sv that a model is compiled for.
struct ModelParams {
  long long rows = 0, cols = 0;  ///< Array size.
  long long input_bytes = 0;     ///< Input buffer bytes.
  long long weight_bytes = 0;    ///< Weight buffer bytes.
  long long accum_words = 0;     ///< Accumulator int32 words.
  long long beat_bytes = 0;      ///< DRAM bytes per cycle.
  long long banks = 0;           ///< Banks of the input and weight buffers (0: multi-ported).
  /// Build variant: FST waveform tracing compiled in (MAPWRIGHT_RTL_TRACE). The compiled-in
  /// models are untraced, so a traced model always comes from the cache.
  bool traced = false;
  /// Build variant: a gate-level model, Verilated from these files (yosys' synthesized netlist
  /// of mw_accel for the parameters above and its cell library, `mapwright synth --gate-sim`)
  /// instead of rtl/. Empty: the RTL. The files' contents are part of the cache key.
  std::vector<std::string> netlist;
  bool operator==(const ModelParams& o) const {
    return rows == o.rows && cols == o.cols && input_bytes == o.input_bytes &&
           weight_bytes == o.weight_bytes && accum_words == o.accum_words &&
           beat_bytes == o.beat_bytes && banks == o.banks && traced == o.traced &&
           netlist == o.netlist;
  }
};
/// The parameters of an architecture's model.
ModelParams model_params(const core::Arch& arch);
/// "8x8, input 64 KiB, weights 64 KiB, accumulator 8192 words, 16 B/cycle" (", traced" for a
/// traced model, ", gate-level netlist" for a netlist's).
std::string describe(const ModelParams& p);
/// "" when rtl/mw_accel.sv accepts the parameters, else why (its elaboration checks: rows and
/// cols 2..64, beat a multiple of 4 in 4..64, buffers 64 B..1 MiB, accumulator 16..2^20 words).
std::string check_model_params(const ModelParams& p);
/// The models compiled into this build (name, parameters); empty without the RTL.
std::vector<std::pair<std::string, ModelParams>> prebuilt_models();

/// Where and how models are built.
struct ModelCacheOptions {
  /// Cache folder; "" = env MAPWRIGHT_MODEL_CACHE, else $XDG_CACHE_HOME/mapwright/rtl-models,
  /// else $HOME/.cache/mapwright/rtl-models.
  std::string cache_dir;
  /// Source tree; "" = env MAPWRIGHT_SOURCE_DIR, else the tree this mapwright was built from.
  std::string source_dir;
  int jobs = 0;                      ///< Parallel compile jobs (0 = the number of cores).
  std::ostream* progress = nullptr;  ///< Progress lines while building (null = quiet).
  bool build = true;                 ///< False: look the model up only, never build.
  /// RtlWorkerPool::check_arch looks up (builds) traced models, for jobs with a trace_file.
  bool traced = false;
};
/// The cache folder `o` names (the defaults resolved).
std::string model_cache_dir(const ModelCacheOptions& o);

/// A model for a parameter set.
struct ModelLookup {
  std::string exe;           ///< The worker executable ("" when there is none).
  std::string name;          ///< Prebuilt: the architecture's name; cached: "cache:<key prefix>".
  std::string key;           ///< Cache key (hex SHA-256; "" for a prebuilt model).
  std::string dir;           ///< Cache folder of the model ("" for a prebuilt model).
  bool prebuilt = false;     ///< Compiled into this build.
  bool built = false;        ///< This call built it.
  double build_seconds = 0;  ///< Wall time of the build (when built).
  std::string failure;       ///< Why there is no model ("" when exe is set).
  bool ok() const { return !exe.empty(); }
};

/// The worker for `p`: `prebuilt_exe` when a compiled-in model has these parameters, else the
/// cached executable, built now when absent and `o.build` (waiting for another process that
/// builds it). A build failure, a missing source tree or missing tools, and parameters the RTL
/// refuses come back as `failure` (with the log's path and last lines for a failed build);
/// nothing throws for them.
ModelLookup find_or_build_model(const ModelParams& p, const std::string& prebuilt_exe,
                                const ModelCacheOptions& o);

/// The cache key of `p` for the sources under `source_dir` (empty with `failure` set when the
/// sources or tools cannot be read).
std::string model_key(const ModelParams& p, const std::string& source_dir, std::string& failure);

}  // namespace mapwright::rtlpool
