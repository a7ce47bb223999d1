// The wire format between the RTL worker pool and its workers (rtlpool/protocol.hpp): a job and
// a result survive the trip through their JSON lines; a probe carries no layer or mapping; the
// metrics (with the counters) travel only for a completed run; an answer without a failure
// kind, or a request without its fields, is refused.
#include "mapwright/rtlpool/protocol.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace mapwright;
using rtlpool::RtlJob;
using rtlpool::RtlJobResult;

namespace {

RtlJob sample_job() {
  core::Layer raw;
  raw.name = "wire";
  raw.k = 8;
  raw.c = 4;
  raw.h = raw.w = 8;
  raw.r = raw.s = 3;
  raw.pad = 1;
  RtlJob j;
  j.arch = "small4";
  j.layer = core::make_layer(raw, "test");
  j.mapping.tile[static_cast<int>(core::Dim::K)] = 4;
  j.mapping.pe_rows = j.mapping.pe_cols = 2;
  j.mapping.db_input = true;
  j.seed = 77;
  j.watchdog_cycles = 5000;
  j.limits.max_cycles = 123456;
  j.limits.max_seconds = 2.5;
  j.limits.max_memory_mb = 64;
  j.trace_file = "/tmp/wire.fst";
  return j;
}

}  // namespace

TEST(RtlPoolProtocol, AJobSurvivesTheWire) {
  const RtlJob j = sample_job();
  const nlohmann::json req = nlohmann::json::parse(rtlpool::job_to_json(41, j).dump());
  EXPECT_EQ(req.at("id").get<size_t>(), 41u);
  const RtlJob back = rtlpool::job_from_json(req);
  EXPECT_EQ(back.arch, j.arch);
  EXPECT_FALSE(back.probe);
  EXPECT_EQ(back.layer.describe(), j.layer.describe());
  EXPECT_EQ(back.mapping, j.mapping);
  EXPECT_EQ(back.seed, 77u);
  EXPECT_EQ(back.watchdog_cycles, 5000);
  EXPECT_EQ(back.limits.max_cycles, 123456);
  EXPECT_EQ(back.limits.max_seconds, 2.5);
  EXPECT_EQ(back.limits.max_memory_mb, 64);
  EXPECT_EQ(back.trace_file, "/tmp/wire.fst");
}

TEST(RtlPoolProtocol, AProbeCarriesOnlyItsArchitecture) {
  RtlJob j = sample_job();
  j.probe = true;
  const nlohmann::json req = rtlpool::job_to_json(0, j);
  EXPECT_FALSE(req.contains("layer"));
  EXPECT_FALSE(req.contains("mapping"));
  const RtlJob back = rtlpool::job_from_json(req);
  EXPECT_TRUE(back.probe);
  EXPECT_EQ(back.arch, "small4");
}

TEST(RtlPoolProtocol, ACompletedRunBringsItsMetricsAndCounters) {
  RtlJobResult r;
  r.functional_ok = true;
  r.metrics.valid = true;
  r.metrics.cycles = 1234;
  r.metrics.counts.macs = 999;
  r.counts = r.metrics.counts;
  r.sim_seconds = 0.25;
  r.sim_cpu_seconds = 0.125;
  r.sim_cycles = 1300;
  r.harness = "decoupled SystemC";
  r.input_bank_stalls = 3;
  r.weight_bank_stalls = 4;
  r.accum_bank_stalls = 5;
  r.cycles = 1234;
  r.array_busy_cycles = 800;
  r.array_stall_cycles = 6;
  r.dma_busy_cycles = 700;
  r.dram_stall_cycles = 7;
  r.predicted_cycles = 1200;
  r.estimated_memory_mb = 1.5;
  const nlohmann::json ans = nlohmann::json::parse(rtlpool::result_to_json(9, r).dump());
  EXPECT_EQ(ans.at("id").get<size_t>(), 9u);
  const RtlJobResult back = rtlpool::result_from_json(ans);
  EXPECT_TRUE(back.ok());
  EXPECT_EQ(back.metrics.cycles, 1234);
  EXPECT_EQ(back.counts.macs, 999);
  EXPECT_EQ(back.metrics.counts.macs, 999);
  EXPECT_EQ(back.sim_seconds, 0.25);
  EXPECT_EQ(back.sim_cpu_seconds, 0.125);
  EXPECT_EQ(back.sim_cycles, 1300);
  EXPECT_EQ(back.harness, "decoupled SystemC");
  EXPECT_EQ(back.input_bank_stalls, 3);
  EXPECT_EQ(back.weight_bank_stalls, 4);
  EXPECT_EQ(back.accum_bank_stalls, 5);
  // The run's own cycle and stall counters (what `synth --gate-sim` compares between two models).
  EXPECT_EQ(back.cycles, 1234);
  EXPECT_EQ(back.array_busy_cycles, 800);
  EXPECT_EQ(back.array_stall_cycles, 6);
  EXPECT_EQ(back.dma_busy_cycles, 700);
  EXPECT_EQ(back.dram_stall_cycles, 7);
  EXPECT_EQ(back.predicted_cycles, 1200);
  EXPECT_EQ(back.estimated_memory_mb, 1.5);
}

TEST(RtlPoolProtocol, AFailedRunBringsItsKindAndMessageButNoMetrics) {
  RtlJobResult r;
  r.kind = core::RtlFailure::Limit;
  r.failure = "limit: predicted 5 cycles > max_cycles 4 (raise it with --sim-max-cycles)";
  r.metrics.reason = r.failure;
  r.counts.macs = 7;
  r.predicted_cycles = 5;
  const RtlJobResult back = rtlpool::result_from_json(rtlpool::result_to_json(1, r));
  EXPECT_TRUE(back.over_limit());
  EXPECT_EQ(back.failure, r.failure);
  EXPECT_EQ(back.predicted_cycles, 5);
  EXPECT_EQ(back.metrics.reason, "");
  EXPECT_EQ(back.counts.macs, 0);
}

TEST(RtlPoolProtocol, AnAnswerWithoutAKindIsAWorkerFailure_bad) {
  const RtlJobResult r = rtlpool::result_from_json(nlohmann::json{{"id", 3}});
  EXPECT_TRUE(r.infrastructure());
  EXPECT_EQ(r.failure, "worker: malformed answer");
}

TEST(RtlPoolProtocol, ARunRequestWithoutItsLayerIsRefused_bad) {
  EXPECT_ANY_THROW(rtlpool::job_from_json(nlohmann::json{{"id", 3}, {"arch", "small4"}}));
  EXPECT_ANY_THROW(rtlpool::job_from_json(nlohmann::json{{"id", 3}}));
}
