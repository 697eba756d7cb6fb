// SUMMA's cost model (parallel/summa_model.hpp): the broadcast formulas, the pipeline, placement
// over nodes, the rates parser, and the model against runs measured on H200s (docs/data).
#include "parallel/summa_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace miniapp::parallel {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

TEST(SummaModel, BroadcastFormulas) {
  const Link l{10e9, 5e-6};
  EXPECT_EQ(broadcast_time(32 * MiB, 1, l, BroadcastAlgorithm::pipelined), 0);
  // two ranks: one message either way
  EXPECT_NEAR(broadcast_time(32 * MiB, 2, l, BroadcastAlgorithm::pipelined), 5e-6 + 32 * MiB / 10e9,
              1e-12);
  EXPECT_NEAR(broadcast_time(32 * MiB, 2, l, BroadcastAlgorithm::tree), 5e-6 + 32 * MiB / 10e9,
              1e-12);
  // 8 ranks: the tree sends the whole message 3 times in a row, scatter + allgather 2 * 7/8 of it
  EXPECT_NEAR(broadcast_time(MiB, 8, l, BroadcastAlgorithm::tree), 3 * (5e-6 + MiB / 10e9), 1e-12);
  EXPECT_NEAR(broadcast_time(MiB, 8, l, BroadcastAlgorithm::pipelined),
              3 * 5e-6 + 2 * 7.0 / 8 * MiB / 10e9, 1e-12);
  // 5 ranks take 3 tree steps, as 8 do
  EXPECT_NEAR(broadcast_time(MiB, 5, l, BroadcastAlgorithm::tree), 3 * (5e-6 + MiB / 10e9), 1e-12);
}

// The weak-scaling case of configs/weak_scaling.yaml: one 8192^2 float32 block per rank, k = 8192.
SummaProblem weak(int p, int q, int panel, Transport t) {
  SummaProblem s;
  s.grid = {p, q};
  s.m = 8192LL * p;
  s.n = 8192LL * q;
  s.k = 8192;
  s.panel = panel;
  s.transport = t;
  return s;
}

// 2 x H200 (NV18), rates of the one-GPU run of the same series (docs/data/weak_scaling-h200x2-ipc:
// vendor 21.70 ms, tiled_rb 36.74 ms for 2 * 8192^3 flops); HBM copy 4.2 TB/s (measured there).
MachineRates h200(double one_gpu_ms) {
  MachineRates r;
  r.gemm_flops = 2.0 * 8192 * 8192 * 8192 / (one_gpu_ms * 1e-3);
  r.hbm = 4.2e12;
  r.ipc = {400e9, 10e-6};
  r.gpus_per_node = 8;
  return r;
}

TEST(SummaModel, OneRankIsTheOneDeviceProduct) {
  const SummaPrediction s = predict_summa(weak(1, 1, 1024, Transport::device_ipc), h200(21.70));
  EXPECT_TRUE(s.missing.empty());
  EXPECT_NEAR(s.time, 21.70e-3, 1e-9);
  EXPECT_DOUBLE_EQ(s.efficiency, 1.0);
}

TEST(SummaModel, MatchesTheIpcRunsOnTwoH200s) {
  struct Point {
    const char* variant;
    double one_gpu_ms;
    int panel;
    double measured_ms; // docs/data/weak_scaling-h200x2-ipc, time_median_s of the 2-rank run
  };
  for (const Point& pt :
       {Point{"vendor", 21.70, 512, 26.31}, Point{"vendor", 21.70, 1024, 23.87},
        Point{"vendor", 21.70, 2048, 23.52}, Point{"tiled_rb", 36.74, 512, 41.50},
        Point{"tiled_rb", 36.74, 1024, 39.30}, Point{"tiled_rb", 36.74, 2048, 38.34}}) {
    const SummaPrediction s =
        predict_summa(weak(1, 2, pt.panel, Transport::device_ipc), h200(pt.one_gpu_ms));
    ASSERT_TRUE(s.missing.empty());
    EXPECT_NEAR(s.time * 1e3 / pt.measured_ms, 1.0, 0.10)
        << pt.variant << " panel " << pt.panel << ": predicted " << s.time * 1e3 << " ms";
    EXPECT_LT(s.exposed, 0.5e-3) << "the peer copies hide behind the product";
  }
}

TEST(SummaModel, MatchesTheHostStagedRunOnTwoH200s) {
  // docs/data/weak_scaling-h200x4/np2-panel1024 (1x2, host): 26.3 ms of MPI for 8 broadcasts of
  // 32 MiB (10.2 GB/s) and 26.7 ms of staging for 16 copies of 32 MiB (20 GB/s); measured 58.41 ms.
  MachineRates r = h200(21.47);
  r.node = {10.2e9, 0};
  r.staging = 20e9;
  const SummaPrediction s = predict_summa(weak(1, 2, 1024, Transport::host), r);
  ASSERT_TRUE(s.missing.empty());
  EXPECT_NEAR(s.time * 1e3 / 58.41, 1.0, 0.10) << s.time * 1e3;
  EXPECT_GT(s.exposed, 20e-3)
      << "the staged transfer (6.6 ms a panel) exceeds the product (2.9 ms)";
}

TEST(SummaModel, SaysWhichRateIsMissing) {
  MachineRates r;
  r.gpus_per_node = 8; // both ranks on one node
  EXPECT_EQ(predict_summa(weak(1, 2, 1024, Transport::device_ipc), r).missing, "gemm_tflops");
  r.gemm_flops = 50e12;
  EXPECT_EQ(predict_summa(weak(1, 2, 1024, Transport::device_ipc), r).missing, "ipc_gbs");
  EXPECT_EQ(predict_summa(weak(1, 2, 1024, Transport::device_mpi), r).missing, "node_gbs");
  r.node = {100e9, 0};
  r.gpus_per_node = 1; // every rank on its own node
  EXPECT_EQ(predict_summa(weak(1, 2, 1024, Transport::device_mpi), r).missing, "net_gbs");
  r.network = {100e9, 0};
  EXPECT_EQ(predict_summa(weak(1, 2, 1024, Transport::host), r).missing, "staging_gbs");
  r.staging = 20e9;
  EXPECT_TRUE(predict_summa(weak(1, 2, 1024, Transport::host), r).missing.empty());
}

TEST(SummaModel, PlacementDecidesWhatCrossesTheNetwork) {
  MachineRates r = h200(21.70);
  r.node = {150e9, 5e-6};
  r.network = {100e9, 5e-6}; // 4 x 200 Gb/s per node
  r.gpus_per_node = 4;
  const SummaPrediction one_node = predict_summa(weak(2, 2, 1024, Transport::device_mpi), r);
  EXPECT_EQ(one_node.nodes, 1);
  r.gpus_per_node = 2; // the two process rows on two nodes: the B panels cross the network
  const SummaPrediction two_nodes = predict_summa(weak(2, 2, 1024, Transport::device_mpi), r);
  EXPECT_EQ(two_nodes.nodes, 2);
  EXPECT_GT(two_nodes.transfer, one_node.transfer);
  // device_ipc across nodes is what auto does there: device_mpi
  EXPECT_DOUBLE_EQ(predict_summa(weak(2, 2, 1024, Transport::device_ipc), r).time, two_nodes.time);
}

TEST(SummaModel, EfficiencyFallsWithScaleAndRisesWithTheNetwork) {
  MachineRates r = h200(21.70);
  r.node = {150e9, 5e-6};
  r.network = {100e9, 5e-6};
  r.gpus_per_node = 4;
  double last = 1.01;
  for (int side : {2, 4, 8, 16, 32}) { // 4 ... 1,024 GPUs, square grids
    const SummaPrediction s = predict_summa(weak(side, side, 1024, Transport::device_mpi), r);
    ASSERT_TRUE(s.missing.empty());
    EXPECT_LE(s.efficiency, last + 1e-12) << side << "x" << side;
    EXPECT_GT(s.efficiency, 0.0);
    last = s.efficiency;
  }
  MachineRates slow = r;
  slow.network.bandwidth = 12.5e9; // one 100 Gb/s port per node
  EXPECT_LT(predict_summa(weak(32, 32, 1024, Transport::device_mpi), slow).efficiency, last);
}

TEST(SummaModel, RecommendedPanelIsTheBestOfTheWidthsTried) {
  MachineRates r = h200(21.70);
  r.node = {150e9, 5e-6};
  r.network = {12.5e9, 5e-6};
  r.gpus_per_node = 4;
  SummaProblem p = weak(16, 16, 256, Transport::device_mpi);
  const int best = recommend_panel(p, r);
  ASSERT_GE(best, 128);
  p.panel = best;
  const double e_best = predict_summa(p, r).efficiency;
  for (int w = 128; w <= 8192; w *= 2) {
    p.panel = w;
    EXPECT_LE(predict_summa(p, r).efficiency, e_best + 1e-12) << w;
  }
}

TEST(SummaModel, RatesParserTakesKeysAndRefusesNonsense) {
  const MachineRates r =
      parse_rates({"gemm_tflops=51", "hbm_gbs=4200", "ipc_gbs=400", "ipc_us=10", "node_gbs=150",
                   "net_gbs=100", "net_us=2", "staging_gbs=20", "gpus_per_node=4", "bcast=tree"});
  EXPECT_DOUBLE_EQ(r.gemm_flops, 51e12);
  EXPECT_DOUBLE_EQ(r.ipc.latency, 10e-6);
  EXPECT_DOUBLE_EQ(r.network.bandwidth, 100e9);
  EXPECT_EQ(r.gpus_per_node, 4);
  EXPECT_EQ(r.broadcast, BroadcastAlgorithm::tree);
  for (const char* bad : {"gemm", "gemm_tflops=", "gemm_tflops=-1", "gemm_tflops=0", "ipc_gbs=fast",
                          "gpus_per_node=2.5", "bcast=ring", "nvlink_gbs=400", "net_us=nan"}) {
    try {
      parse_rates({bad});
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(parse_rates({"net_us=0"}).network.latency, 0);
}

} // namespace
} // namespace miniapp::parallel
