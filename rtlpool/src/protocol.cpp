// The pool's wire format (protocol.hpp): requests and answers as JSON objects, one per line.
// The job's mapping travels as YAML text and its layer as layer_to_json; the result's metrics
// travel only for a run that completed.
#include "mapwright/rtlpool/protocol.hpp"

#include "mapwright/support/posix_io.hpp"

namespace mapwright::rtlpool {

using core::RtlFailure;

nlohmann::json job_to_json(size_t id, const RtlJob& job) {
  nlohmann::json req{{"id", id}, {"arch", job.arch}, {"probe", job.probe}};
  if (!job.probe) {
    req["layer"] = core::layer_to_json(job.layer);
    req["mapping"] = core::mapping_to_yaml(job.mapping);
    req["seed"] = job.seed;
    req["watchdog_cycles"] = job.watchdog_cycles;
    req["max_cycles"] = job.limits.max_cycles;
    req["max_seconds"] = job.limits.max_seconds;
    req["max_memory_mb"] = job.limits.max_memory_mb;
    if (!job.trace_file.empty()) req["trace_file"] = job.trace_file;
  }
  return req;
}

RtlJob job_from_json(const nlohmann::json& req) {
  RtlJob job;
  job.arch = req.at("arch").get<std::string>();
  job.probe = req.value("probe", false);
  if (job.probe) return job;
  job.layer = core::layer_from_json(req.at("layer"), "rtl-worker");
  job.mapping = core::mapping_from_yaml(req.at("mapping").get<std::string>(), "rtl-worker");
  job.seed = req.value("seed", uint64_t{1});
  job.watchdog_cycles = req.value("watchdog_cycles", 0LL);
  job.trace_file = req.value("trace_file", std::string());
  job.limits.max_cycles = req.value("max_cycles", job.limits.max_cycles);
  job.limits.max_seconds = req.value("max_seconds", job.limits.max_seconds);
  job.limits.max_memory_mb = req.value("max_memory_mb", job.limits.max_memory_mb);
  return job;
}

nlohmann::json result_to_json(size_t id, const RtlJobResult& r) {
  nlohmann::json j{{"id", id},
                   {"kind", core::rtl_failure_name(r.kind)},
                   {"failure", r.failure},
                   {"functional_ok", r.functional_ok},
                   {"mismatches", r.mismatches},
                   {"sim_seconds", r.sim_seconds},
                   {"sim_cpu_seconds", r.sim_cpu_seconds},
                   {"sim_cycles", r.sim_cycles},
                   {"harness", r.harness},
                   {"input_bank_stalls", r.input_bank_stalls},
                   {"weight_bank_stalls", r.weight_bank_stalls},
                   {"accum_bank_stalls", r.accum_bank_stalls},
                   {"cycles", r.cycles},
                   {"array_busy_cycles", r.array_busy_cycles},
                   {"array_stall_cycles", r.array_stall_cycles},
                   {"dma_busy_cycles", r.dma_busy_cycles},
                   {"dram_stall_cycles", r.dram_stall_cycles},
                   {"predicted_cycles", r.predicted_cycles},
                   {"estimated_memory_mb", r.estimated_memory_mb}};
  if (r.kind == RtlFailure::None) j["metrics"] = r.metrics.to_json();
  return j;
}

RtlJobResult result_from_json(const nlohmann::json& j) {
  RtlJobResult r;
  if (j.contains("kind") && j["kind"].is_string()) {
    r.kind = core::rtl_failure_from_name(j["kind"].get<std::string>());
    r.failure = j.value("failure", std::string());
  } else {
    r.kind = RtlFailure::Worker;
    r.failure = "worker: malformed answer";
  }
  r.functional_ok = j.value("functional_ok", false);
  r.mismatches = j.value("mismatches", 0LL);
  r.sim_seconds = j.value("sim_seconds", 0.0);
  r.sim_cpu_seconds = j.value("sim_cpu_seconds", 0.0);
  r.sim_cycles = j.value("sim_cycles", 0LL);
  r.harness = j.value("harness", std::string());
  r.input_bank_stalls = j.value("input_bank_stalls", 0LL);
  r.weight_bank_stalls = j.value("weight_bank_stalls", 0LL);
  r.accum_bank_stalls = j.value("accum_bank_stalls", 0LL);
  r.cycles = j.value("cycles", 0LL);
  r.array_busy_cycles = j.value("array_busy_cycles", 0LL);
  r.array_stall_cycles = j.value("array_stall_cycles", 0LL);
  r.dma_busy_cycles = j.value("dma_busy_cycles", 0LL);
  r.dram_stall_cycles = j.value("dram_stall_cycles", 0LL);
  r.predicted_cycles = j.value("predicted_cycles", 0LL);
  r.estimated_memory_mb = j.value("estimated_memory_mb", 0.0);
  if (j.contains("metrics")) {
    r.metrics = core::metrics_from_json(j["metrics"]);
    r.counts = r.metrics.counts;
  }
  return r;
}

bool write_line(int fd, const nlohmann::json& j) {
  const std::string line = j.dump() + "\n";
  return core::write_all(fd, line.data(), line.size());
}

}  // namespace mapwright::rtlpool
