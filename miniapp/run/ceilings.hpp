#pragma once
// Ceilings measured in the same process as the kernels, so every rate can be stated as a ratio:
//   level bandwidth  for each memory level (run/memory_levels.hpp: L1, L2, L3 and memory on the
//                    host, L2 and device memory on GPUs), the faster of a copy and an add kernel
//                    inside that level (run/level_bandwidth.hpp), bytes read plus written;
//                    estimated until two consecutive estimates agree within 10%, every level at
//                    the first streaming case, and checked against physics: a closer level is
//                    never slower than a farther one
//   vendor           the vendor GEMM (cuBLAS / OpenBLAS) at the same size and precision,
//                    estimated until two consecutive estimates agree (run/stable_estimate.hpp)
//   transfer         host-to-device bandwidth from pinned host memory (GPU backends)
#include "core/result.hpp"
#include "run/ceiling_cache.hpp"
#include "run/memory_levels.hpp"
#include "run/stable_estimate.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace miniapp {

// What the driver asks for a ceiling, once per case (MeasuredCeilings below measures them in the
// same process; the autotuner's single cases attach none).
struct CeilingProvider {
  virtual ~CeilingProvider() = default;
  virtual void attach(CaseResult& r, const std::string& backend) = 0;
  // A row attached before, given the uncertain range its ceiling has now (a later row beat the
  // ceiling also when it was measured again, or its estimates stopped agreeing): true when
  // ceiling_low and ceiling_high changed. A ceiling is never made certain again so.
  virtual bool revise(CaseResult& r, const std::string& backend) {
    (void)r;
    (void)backend;
    return false;
  }
};

// Device copy (deep_copy on GPUs, a copy kernel on host backends): miniapp-bench's copy figure.
double measure_copy_bandwidth(const std::string& backend, std::size_t bytes_per_array, int reps);
double measure_pinned_h2d_bandwidth(const std::string& backend, std::size_t bytes, int reps);
// GFLOP/s of the vendor GEMM at the shape and precision of `of` (a matmul case), timed like the
// cases (core/timing.hpp): estimates of about 0.1 s of launches each (the best launch counts),
// repeated until two agree within 5% (at most 5 estimates, about 1 s). Throws when there is no
// vendor GEMM.
StableEstimate measure_vendor_gemm(const Case& of, const std::string& backend);
// One such estimate (about 0.1 s of launches after the set-up): the re-check after a case. Its
// warm-up is kRecheckWarmupSeconds, not the 0.2 s of a process's first launches (core/
// timing_rule.hpp): the process is warm by then, and the estimate keeps its best sample. With
// 0.2 s, a 40-case sweep of 128^3 products (tests/e2e_configs/interrupt_sweep.yaml) spent 11.7 s
// of its 21.8 s re-checking (0.3 s a case) on the 2-core development machine.
inline constexpr double kRecheckWarmupSeconds = 0.02;
double measure_vendor_gemm_once(const Case& of, const std::string& backend);

// What MeasuredCeilings measures with: the backend's own by default, stand-ins in tests.
struct CeilingMeasures {
  std::function<std::vector<MemoryLevel>()> levels;
  std::function<double(std::uint64_t working_set_bytes)> bandwidth_gbs; // one estimate
  std::function<StableEstimate(const Case&)> vendor_gflops;             // throws when there is none
  // How long one level's estimates may go on once two are taken (run/stable_estimate.hpp).
  double level_seconds = 1.0;
  // One quick estimate each, taken after a case whose ceiling was measured before it (at an
  // earlier case, or reused from the cache): a ceiling it moves by more than its spread marks the
  // row disturbed. Empty: no re-check (the stand-ins of tests that count estimates).
  std::function<double(std::uint64_t working_set_bytes)> recheck_gbs;
  std::function<double(const Case&)> recheck_vendor_gflops;
};

// A level's estimates agree when within 10% of each other (a vendor GEMM's within 5%; issue 41:
// one config's L3 ceiling read 8.5 GB/s in one run and 69.3 in the next, taken as truth both
// times). At most kLevelTries estimates, and no more once MeasuredCeilings' level_seconds pass.
inline constexpr double kLevelTolerance = 0.10;
inline constexpr int kLevelTries = 5;
inline constexpr double kVendorTolerance = 0.05;
CeilingMeasures measures_on(const std::string& backend);

// Whether a ceiling re-checked after a case moved: the re-check differs from the ceiling by more
// than its spread, the range of the estimates it was taken from, and by more than
// kRecheckScale times the tolerance two agreeing estimates may differ by (a re-check <= 0
// measured nothing: not moved).
bool ceiling_moved(double ceiling, double low, double high, double tolerance, double recheck);
// A re-check is one quick estimate, the ceiling another: their difference has sqrt(2) times the
// noise of one. With the tolerance alone, three quiet runs of paper_table1 on the 2-core
// development machine (2026-11-30, no other work beside them: host_others 0) marked 5 of 18 rows
// disturbed: two L2 and L3 re-checks 10.5% and 10.8% off (the other ten 0.3-10%), and the
// memory level's three, 24-64% off (it read 34-95 GB/s on this virtual machine from one
// measurement to the next; those stay marked).
inline constexpr double kRecheckScale = 1.41421356;

class MeasuredCeilings : public CeilingProvider {
public:
  explicit MeasuredCeilings(std::string backend);
  MeasuredCeilings(std::string backend, CeilingMeasures measures);
  // Sets ceiling_name, ceiling_level, ceiling, ceiling_unit and pct_of_ceiling, and
  // ceiling_low and ceiling_high where the ceiling is uncertain. A ceiling measured before the
  // case is re-checked (CeilingMeasures::recheck_*): ceiling_recheck, and ceiling_disturbed where
  // it moved (ceiling_moved). The working set is r.work.bytes;
  // every level is measured at the first streaming case, each GEMM shape at the first case of it.
  void attach(CaseResult& r, const std::string& backend) override;
  bool revise(CaseResult& r, const std::string& backend) override;
  // Ceilings found in `cache` are reused instead of measured (still measured again when a row
  // beats one), and each one measured is stored there (`reuse_ceilings: true`).
  void reuse_from(CeilingCache cache) { cache_ = std::move(cache); }
  // One line per level and per GEMM shape measured or reused, then one with the time spent
  // measuring them (the ceilings are not free: a level can take longer than the cases).
  void print(std::ostream& os) const;
  double measuring_seconds() const { return measuring_s_; }
  // Of which re-checking ceilings after cases, and how many re-checks found one moved.
  double recheck_seconds() const { return recheck_s_; }

private:
  // One level's ceiling: the estimate kept and whether it can be trusted.
  struct LevelCeiling {
    double gbs = 0;           // 0: not measured (or nothing measurable)
    double low = 0, high = 0; // the range of the estimates (of both levels of an inverted pair)
    bool stable = true;       // consecutive estimates agreed within kLevelTolerance
    bool inverted = false;    // slower than a farther level, also when measured again
    double beaten_by = 0;     // a row's rate above it by more than 5%, also when measured again
    int measures = 0;         // stable estimates taken
    bool reused = false;      // the figure came from the cache (and was not beaten)
    bool uncertain() const { return !stable || inverted || beaten_by > 0; }
  };
  void measure_levels();                 // every level, then order_levels()
  void measure_level(std::size_t level); // estimated until stable; the larger figure kept
  // A closer level slower than a farther one is measured again; still slower, both are
  // uncertain and the closer one is given the farther one's figure. Levels no faster than
  // memory then take no working set (MemoryLevel::holds).
  void order_levels();
  // The level's bandwidth for a row of `rate` GB/s (see the .cpp: measured again when beaten,
  // uncertain up to `rate` when still beaten).
  double level_gbs(std::size_t level, double rate);
  // The uncertain range of a row's ceiling as it stands now ({0, 0}: certain); the level's from
  // the row's ceiling_level, the vendor GEMM's from its case.
  std::pair<double, double> uncertain_range(const CaseResult& r) const;
  std::string level_key(std::size_t level) const; // the cache's name of a level's ceiling
  // measure() timed into measuring_s_.
  template <class F>
  auto timed(F&& measure);
  // The re-check of a ceiling measured before this case (not when it was measured just now:
  // measured after the case, its own estimates are the check).
  void recheck(CaseResult& r, double low, double high, double tolerance,
               const std::function<double()>& estimate);
  static constexpr int kRemeasures = 2;
  // A reused figure (a level's, a vendor GEMM's) is measured instead when far from one quick
  // estimate: more than kReuseAbove times above it (another process on the cores only lowers an
  // estimate, by a few times on a loaded host, so the margin is wide) or kReuseBelow times below
  // it. The figures it guards against (1000x the bandwidth, 1e300) are far outside both.
  static constexpr double kReuseAbove = 100, kReuseBelow = 10;
  static bool near_quick_estimate(double cached, double quick) {
    return quick > 0 && cached <= quick * kReuseAbove && cached * kReuseBelow >= quick;
  }
  std::vector<std::string> not_reused_; // "what cached, quick now" per figure measured instead

  std::string backend_;
  CeilingMeasures measures_;
  std::vector<MemoryLevel> levels_; // empty until a case needs a level
  std::vector<LevelCeiling> level_; // one per level
  using GemmKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t>;
  std::map<GemmKey, StableEstimate> vendor_;
  std::set<GemmKey> vendor_reused_;
  std::optional<CeilingCache> cache_;
  double measuring_s_ = 0;
  double recheck_s_ = 0;
  int rechecks_ = 0, moved_ = 0;
  int estimates_ = 0; // full measurements taken (of a level or a GEMM shape), to tell "just now"
};

} // namespace miniapp
