#pragma once
/// \file protocol.hpp
/// The wire format between the RTL worker pool and its worker processes: one JSON object per
/// line each way, over a pipe.
///
/// A request holds the job's `id`, `arch` (a name or YAML file) and `probe`; a run adds the
/// `layer` (core::layer_to_json), the `mapping` as YAML text, `seed`, `watchdog_cycles`,
/// `max_cycles`, `max_seconds`, `max_memory_mb` and, when a waveform is asked for,
/// `trace_file`. An answer holds the `id` and the result: its failure `kind` (by
/// core::rtl_failure_name) and `failure`, `functional_ok`, `mismatches`, the simulation's
/// `sim_seconds`, `sim_cpu_seconds` and `sim_cycles`, the `harness`, the three bank-stall
/// counters, `predicted_cycles` and `estimated_memory_mb`, and, for a completed run only, the
/// `metrics` with the hardware counters. The busy and stall cycle counters of a run
/// (array_busy_cycles, ...) stay in the worker.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/rtlpool/rtl_job.hpp"

namespace mapwright::rtlpool {

/// The request line of job `id` (without the newline).
nlohmann::json job_to_json(size_t id, const RtlJob& job);
/// The job of a request (everything but its id; a probe's layer and mapping stay empty).
/// Throws (nlohmann::json's or core::SpecError) on a malformed request.
RtlJob job_from_json(const nlohmann::json& request);

/// The answer line of job `id` (without the newline).
nlohmann::json result_to_json(size_t id, const RtlJobResult& r);
/// The result of an answer; one without a failure kind is a Worker failure ("worker: malformed
/// answer"). The counters come from the metrics (absent unless the run completed).
RtlJobResult result_from_json(const nlohmann::json& answer);

/// Writes `j` and a newline to `fd`, all of it (through EINTR); false when the other end is
/// gone.
bool write_line(int fd, const nlohmann::json& j);

}  // namespace mapwright::rtlpool
