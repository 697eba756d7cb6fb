// SUMMA's cost model (parallel/summa_model.hpp): the broadcast formulas, the pipeline, placement
// over nodes, the rates parser, and the model against runs measured on H200s (docs/data).
#include "parallel/summa_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

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

// Host staging copies only the panels that have receivers: on 1 x 2 the A panel (the B panel
// is packed for the local product, nobody receives it), on 2 x 1 the B panel, on 2 x 2 both.
// Before, every owned panel was staged and the model counted A and B on every grid.
TEST(SummaModel, StagesOnlyPanelsThatTravel) {
  MachineRates r = h200(21.47);
  r.hbm = 0; // no packing term: the transfer is staging + MPI alone
  r.node = {10e9, 0};
  r.staging = 20e9;
  const double panel = 8192.0 * 1024 * 4; // one 8192 x 1024 float32 panel, either A or B
  for (const auto& [p, q, travelling] :
       {std::tuple{1, 2, 1}, std::tuple{2, 1, 1}, std::tuple{2, 2, 2}}) {
    const SummaPrediction s = predict_summa(weak(p, q, 1024, Transport::host), r);
    ASSERT_TRUE(s.missing.empty());
    EXPECT_NEAR(s.transfer, travelling * (panel / 20e9 + panel / 10e9), 1e-9) << p << "x" << q;
  }
  EXPECT_TRUE((GridShape{1, 2}.a_panels_travel()));
  EXPECT_FALSE((GridShape{1, 2}.b_panels_travel()));
  EXPECT_FALSE((GridShape{3, 1}.a_panels_travel()));
  EXPECT_TRUE((GridShape{3, 1}.b_panels_travel()));
}

// Every multi-GPU run of the pipelined SUMMA under docs/data with m, n >= 8192 (series/run
// directory, the matmul rows of its results.csv: per-rank means of compute, communication and
// transfer, the block upload and download, the exposed time, and the median time), predicted with
// the rates that run measured, derived as scripts/maintainer/summa_rates.py derives them;
// docs/data/summa_model has the same check through `miniapp validate --rates` (test
// summa_model_check).
struct MeasuredRun {
  const char* run;
  const char* variant;
  int p, q;
  std::int64_t m, n, k;
  int panel;
  Transport transport;
  double hbm_gbs; // the device's copy rate (H100 3000, H200 4200)
  double compute, comm, transfer, h2d, d2h, exposed; // ms
  double time;                                       // ms, time_median_s
};
const MeasuredRun kMeasured[] = {
    {"weak_scaling-h200x2-ipc/np2-auto-final", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 23.303, 0.719, 31.828, 7.530, 5.024, 0.522, 23.908},
    {"weak_scaling-h200x2-ipc/np2-auto-final", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 38.722, 1.140, 44.533, 7.369, 4.868, 0.477, 39.217},
    {"weak_scaling-h200x2-ipc/np2-auto-panel512", "vendor", 1, 2, 8192, 16384, 8192, 512,
     Transport::device_ipc, 4200, 25.690, 1.706, 34.690, 7.321, 4.862, 0.582, 26.307},
    {"weak_scaling-h200x2-ipc/np2-auto-panel512", "tiled_rb", 1, 2, 8192, 16384, 8192, 512,
     Transport::device_ipc, 4200, 40.792, 1.904, 48.429, 7.378, 5.217, 0.633, 41.504},
    {"weak_scaling-h200x2-ipc/np2-host", "vendor", 1, 2, 8192, 16384, 8192, 1024, Transport::host,
     4200, 23.466, 40.873, 41.273, 7.395, 4.864, 49.810, 73.600},
    {"weak_scaling-h200x2-ipc/np2-host", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024, Transport::host,
     4200, 38.811, 37.056, 54.102, 7.390, 4.881, 45.164, 84.331},
    {"weak_scaling-h200x2-ipc/np2-ipc-panel2048", "vendor", 1, 2, 8192, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 22.540, 0.784, 28.956, 7.338, 4.892, 0.830, 23.520},
    {"weak_scaling-h200x2-ipc/np2-ipc-panel2048", "tiled_rb", 1, 2, 8192, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 37.635, 1.013, 40.009, 7.362, 5.014, 0.655, 38.337},
    {"weak_scaling-h200x2-ipc/np2-ipc", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 23.293, 0.710, 31.489, 7.354, 4.865, 0.556, 23.872},
    {"weak_scaling-h200x2-ipc/np2-ipc", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 38.858, 1.067, 44.587, 7.380, 4.894, 0.388, 39.302},
    {"weak_scaling-h200x4/np2-panel1024", "vendor", 1, 2, 8192, 16384, 8192, 1024, Transport::host,
     4200, 23.310, 25.842, 41.186, 7.312, 4.860, 34.793, 58.414},
    {"weak_scaling-h200x4/np2-panel1024", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::host, 4200, 38.712, 29.632, 54.008, 7.329, 4.858, 37.745, 76.748},
    {"weak_scaling-h200x4/np2-panel2048", "vendor", 1, 2, 8192, 16384, 8192, 2048, Transport::host,
     4200, 22.515, 33.350, 38.197, 7.309, 4.860, 42.733, 65.878},
    {"weak_scaling-h200x4/np2-panel2048", "tiled_rb", 1, 2, 8192, 16384, 8192, 2048,
     Transport::host, 4200, 37.505, 34.576, 49.025, 7.304, 4.861, 43.430, 81.597},
    {"weak_scaling-h200x4/np2-panel512", "vendor", 1, 2, 8192, 16384, 8192, 512, Transport::host,
     4200, 25.748, 26.619, 44.557, 7.311, 4.854, 35.373, 61.285},
    {"weak_scaling-h200x4/np2-panel512", "tiled_rb", 1, 2, 8192, 16384, 8192, 512, Transport::host,
     4200, 40.727, 28.376, 58.053, 7.351, 4.868, 36.376, 77.238},
    {"weak_scaling-h200x4/np4-panel1024", "vendor", 2, 2, 16384, 16384, 8192, 1024, Transport::host,
     4200, 23.407, 65.707, 36.412, 5.795, 6.374, 70.019, 94.427},
    {"weak_scaling-h200x4/np4-panel1024", "tiled_rb", 2, 2, 16384, 16384, 8192, 1024,
     Transport::host, 4200, 38.670, 63.040, 46.165, 5.561, 6.478, 63.531, 103.033},
    {"weak_scaling-h200x4/np4-panel2048", "vendor", 2, 2, 16384, 16384, 8192, 2048, Transport::host,
     4200, 22.667, 81.689, 34.487, 5.689, 6.374, 87.591, 111.906},
    {"weak_scaling-h200x4/np4-panel2048", "tiled_rb", 2, 2, 16384, 16384, 8192, 2048,
     Transport::host, 4200, 37.563, 79.308, 43.178, 5.871, 6.679, 82.204, 121.291},
    {"weak_scaling-h200x4/np4-panel512", "vendor", 2, 2, 16384, 16384, 8192, 512, Transport::host,
     4200, 25.797, 58.269, 39.842, 5.982, 7.134, 61.403, 87.642},
    {"weak_scaling-h200x4/np4-panel512", "tiled_rb", 2, 2, 16384, 16384, 8192, 512, Transport::host,
     4200, 40.736, 74.430, 50.909, 6.341, 7.514, 73.806, 114.927},
    {"transports-h100x2/np2-device_ipc", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 3000, 23.889, 0.784, 31.705, 7.429, 4.887, 0.510, 24.423},
    {"transports-h100x2/np2-device_ipc", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 3000, 29.196, 1.726, 41.717, 7.435, 9.743, 0.996, 30.225},
    {"transports-h100x2/np2-device_mpi", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_mpi, 3000, 23.929, 3.199, 31.315, 7.738, 4.960, 1.383, 25.357},
    {"transports-h100x2/np2-device_mpi", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_mpi, 3000, 29.215, 2.991, 36.995, 7.614, 5.092, 1.876, 31.092},
    {"transports-h100x2/np2-host", "vendor", 1, 2, 8192, 16384, 8192, 1024, Transport::host, 3000,
     24.006, 43.761, 42.343, 7.375, 4.883, 53.222, 77.590},
    {"transports-h100x2/np2-host", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024, Transport::host, 3000,
     29.276, 46.136, 47.328, 7.931, 4.976, 55.151, 84.753},
    {"strong_scaling-h100x2/s16k-np2-device_mpi", "vendor", 1, 2, 16384, 16384, 16384, 1024,
     Transport::device_mpi, 3000, 95.954, 10.606, 116.301, 20.926, 10.819, 6.737, 102.709},
    {"strong_scaling-h100x2-crossover/big-np2-device_ipc", "vendor", 1, 2, 16384, 16384, 16384,
     1024, Transport::device_ipc, 3000, 95.769, 5.400, 116.307, 19.780, 9.945, 3.047, 98.876},
    {"strong_scaling-h100x2-crossover/s16k-np2-device_mpi", "vendor", 1, 2, 16384, 16384, 16384,
     1024, Transport::device_mpi, 3000, 95.772, 10.421, 114.998, 19.909, 10.026, 6.522, 102.299},
    {"strong_scaling-h100x2-crossover/s16k-np2-host", "vendor", 1, 2, 16384, 16384, 16384, 1024,
     Transport::host, 3000, 96.317, 155.694, 135.131, 19.833, 10.078, 172.147, 269.067},
    {"strong_scaling-h100x2-crossover/small-np2-device_ipc", "vendor", 1, 2, 8192, 8192, 8192, 512,
     Transport::device_ipc, 3000, 13.914, 1.601, 19.299, 4.937, 2.499, 0.813, 14.745},
    {"strong_scaling-h100x2-crossover/weak-np2-host", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::host, 3000, 24.157, 40.074, 36.751, 7.548, 5.236, 43.833, 68.307},
    {"weak_scaling-h200x4-ipc-2026-11-26/np2-panel1024", "vendor", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 23.342, 0.569, 31.888, 7.679, 4.981, 0.466, 23.851},
    {"weak_scaling-h200x4-ipc-2026-11-26/np2-panel1024", "tiled_rb", 1, 2, 8192, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 27.660, 1.257, 36.141, 7.609, 4.898, 0.866, 28.602},
    {"weak_scaling-h200x4-ipc-2026-11-26/np2-panel2048", "vendor", 1, 2, 8192, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 22.527, 0.839, 29.095, 7.426, 5.020, 0.918, 23.506},
    {"weak_scaling-h200x4-ipc-2026-11-26/np2-panel2048", "tiled_rb", 1, 2, 8192, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 26.653, 0.994, 32.616, 7.688, 5.005, 1.184, 27.928},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel1024", "vendor", 2, 2, 16384, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 23.370, 5.349, 30.661, 7.114, 8.373, 0.934, 24.366},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel1024", "tiled_rb", 2, 2, 16384, 16384, 8192, 1024,
     Transport::device_ipc, 4200, 27.747, 6.720, 33.457, 6.841, 8.193, 1.251, 29.083},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel2048", "vendor", 2, 2, 16384, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 22.491, 4.961, 27.517, 6.261, 8.028, 1.655, 24.262},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel2048", "tiled_rb", 2, 2, 16384, 16384, 8192, 2048,
     Transport::device_ipc, 4200, 26.600, 5.846, 29.919, 6.256, 8.070, 1.749, 28.499},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel512", "vendor", 2, 2, 16384, 16384, 8192, 512,
     Transport::device_ipc, 4200, 25.734, 6.471, 31.265, 6.152, 7.793, 0.590, 26.421},
    {"weak_scaling-h200x4-ipc-2026-11-26/np4-panel512", "tiled_rb", 2, 2, 16384, 16384, 8192, 512,
     Transport::device_ipc, 4200, 29.791, 7.858, 35.042, 6.517, 8.042, 0.980, 30.808},
    {"strong_scaling-h200x4-2026-11-26/s16k-np2-device_ipc", "vendor", 1, 2, 16384, 16384, 16384,
     1024, Transport::device_ipc, 4200, 93.538, 4.181, 115.220, 19.831, 9.859, 2.803, 96.397},
    {"strong_scaling-h200x4-2026-11-26/s16k-np4-device_ipc", "vendor", 2, 2, 16384, 16384, 16384,
     1024, Transport::device_ipc, 4200, 46.940, 11.142, 52.488, 12.382, 7.867, 1.136, 48.098}};

TEST(SummaModel, MatchesEveryMeasuredPointWithinTenPercent) {
  for (const MeasuredRun& m : kMeasured) {
    SummaProblem pr;
    pr.grid = {m.p, m.q};
    pr.m = m.m;
    pr.n = m.n;
    pr.k = m.k;
    pr.panel = m.panel;
    pr.transport = m.transport;
    const double e = 4, rows = double(m.m / m.p), cols = double(m.n / m.q), ms = 1e-3;
    const double panels = std::ceil(double(m.k) / m.panel);
    MachineRates r;
    r.hbm = m.hbm_gbs * 1e9;
    r.gpus_per_node = m.p * m.q;
    // the product as it ran: compute less the C += T accumulations
    const double accumulate = (panels - 1) * 3 * rows * cols * e / r.hbm;
    r.gemm_flops = 2 * rows * cols * double(m.k) / (m.compute * ms - accumulate);
    const double moved = (m.q > 1 ? rows * m.k * e : 0) + (m.p > 1 ? m.k * cols * e : 0);
    const double copies = (m.transfer - m.h2d - m.d2h) * ms;
    r.node = {moved / (m.comm * ms), 0};
    r.staging = moved / copies;
    // the first panel's peer copies, A's and then (P > 1) B's, are what IPC leaves exposed
    const double first = (m.q > 1 ? rows * m.panel * e : 0) + (m.p > 1 ? m.panel * cols * e : 0);
    r.ipc = {first / (m.exposed * ms), 0};
    const SummaPrediction s = predict_summa(pr, r);
    ASSERT_TRUE(s.missing.empty()) << m.run;
    // IPC's rate is its exposed first panel, so with its own rates an IPC run is reproduced
    // almost exactly: a miss there means the model and the rate count different bytes.
    const double tolerance = m.transport == Transport::device_ipc ? 0.02 : 0.10;
    EXPECT_NEAR(s.time / (m.time * ms), 1.0, tolerance)
        << m.run << " " << m.variant << ": predicted " << s.time / ms << " ms, measured " << m.time;
  }
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
