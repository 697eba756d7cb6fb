#include "parallel/summa_model.hpp"

#include "kernels/families.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

namespace miniapp::parallel {

const char* const kRatesHelp =
    "gemm_tflops (the one-device product rate), hbm_gbs, ipc_gbs / ipc_us (peer copy inside a "
    "node), node_gbs / node_us (MPI inside a node), net_gbs / net_us (network per node), "
    "staging_gbs (device <-> host), gpus_per_node, bcast=pipelined|tree";

namespace {

double number(const std::string& item, const std::string& value, bool zero_ok) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v) || v < 0 ||
      (v == 0 && !zero_ok))
    throw std::invalid_argument("--rates " + item + ": expected a " +
                                (zero_ok ? "non-negative" : "positive") + " number");
  return v;
}

int ceil_log2(int p) {
  int steps = 0;
  for (int reach = 1; reach < p; reach *= 2)
    ++steps;
  return steps;
}

// How the ranks of one communicator lie over nodes: `nodes` nodes with `per_node` ranks each.
struct Span {
  int nodes = 1, per_node = 1;
};

// Ranks r = row * Q + col, gpus_per_node consecutive ranks per node.
Span row_span(const GridShape& g, int per_node) {
  if (g.q <= per_node)
    return {1, g.q};
  return {int((g.q + per_node - 1) / per_node), per_node};
}
Span column_span(const GridShape& g, int per_node) {
  if (g.q >= per_node)
    return {g.p, 1}; // every member of a column on its own node
  const int rows_per_node = std::max(1, per_node / g.q);
  const int here = std::min(g.p, rows_per_node);
  return {(g.p + here - 1) / here, here};
}

// One panel's broadcast among the ranks of a communicator spanning `s`.
double panel_broadcast(double bytes, const Span& s, Transport t, const MachineRates& r) {
  double time = 0;
  if (s.nodes > 1) { // the node's network is shared by its ranks, all broadcasting at once
    Link share = r.network;
    share.bandwidth /= std::max(1, r.gpus_per_node);
    time += broadcast_time(bytes, s.nodes, share, r.broadcast);
  }
  if (s.per_node > 1) {
    if (t == Transport::device_ipc) // every receiver copies from the owner: its link is shared
      time += r.ipc.latency + bytes * double(s.per_node - 1) / r.ipc.bandwidth;
    else
      time += broadcast_time(bytes, s.per_node, r.node, r.broadcast);
  }
  return time;
}

} // namespace

MachineRates parse_rates(const std::vector<std::string>& items) {
  MachineRates r;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("--rates " + item + ": expected key=value (keys: " + kRatesHelp +
                                  ")");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    constexpr double giga = 1e9, micro = 1e-6;
    if (key == "gemm_tflops")
      r.gemm_flops = number(item, value, false) * 1e12;
    else if (key == "hbm_gbs")
      r.hbm = number(item, value, false) * giga;
    else if (key == "ipc_gbs")
      r.ipc.bandwidth = number(item, value, false) * giga;
    else if (key == "ipc_us")
      r.ipc.latency = number(item, value, true) * micro;
    else if (key == "node_gbs")
      r.node.bandwidth = number(item, value, false) * giga;
    else if (key == "node_us")
      r.node.latency = number(item, value, true) * micro;
    else if (key == "net_gbs")
      r.network.bandwidth = number(item, value, false) * giga;
    else if (key == "net_us")
      r.network.latency = number(item, value, true) * micro;
    else if (key == "staging_gbs")
      r.staging = number(item, value, false) * giga;
    else if (key == "gpus_per_node") {
      const double g = number(item, value, false);
      if (g != std::floor(g) || g > 1 << 20)
        throw std::invalid_argument("--rates " + item + ": expected a whole number of GPUs");
      r.gpus_per_node = int(g);
    } else if (key == "bcast") {
      if (value != "pipelined" && value != "tree")
        throw std::invalid_argument("--rates " + item + ": expected pipelined or tree");
      r.broadcast = value == "tree" ? BroadcastAlgorithm::tree : BroadcastAlgorithm::pipelined;
    } else {
      throw std::invalid_argument("--rates " + item + ": unknown key '" + key +
                                  "' (keys: " + kRatesHelp + ")");
    }
  }
  return r;
}

double broadcast_time(double bytes, int ranks, const Link& link, BroadcastAlgorithm a) {
  if (ranks <= 1)
    return 0;
  const int steps = ceil_log2(ranks);
  if (a == BroadcastAlgorithm::tree)
    return steps * (link.latency + bytes / link.bandwidth);
  return steps * link.latency + 2.0 * double(ranks - 1) / ranks * bytes / link.bandwidth;
}

SummaPrediction predict_summa(const SummaProblem& p, const MachineRates& r) {
  SummaPrediction out;
  const GridShape& g = p.grid;
  const int per_node = std::max(1, r.gpus_per_node);
  out.nodes = int((g.ranks() + per_node - 1) / per_node);
  const Transport t =
      p.transport == Transport::device_ipc && out.nodes > 1 ? Transport::device_mpi : p.transport;
  const Span row = row_span(g, per_node), col = column_span(g, per_node);
  const bool within_nodes = row.per_node > 1 || col.per_node > 1;
  if (r.gemm_flops <= 0)
    out.missing = "gemm_tflops";
  else if (within_nodes && t == Transport::device_ipc && r.ipc.bandwidth <= 0)
    out.missing = "ipc_gbs";
  else if (within_nodes && t != Transport::device_ipc && r.node.bandwidth <= 0)
    out.missing = "node_gbs";
  else if (out.nodes > 1 && r.network.bandwidth <= 0)
    out.missing = "net_gbs";
  else if (t == Transport::host && r.staging <= 0)
    out.missing = "staging_gbs";
  if (!out.missing.empty())
    return out;

  // The largest rank's block (rank (0, 0)): the slowest rank sets the time.
  const double rows = double(block_range(p.m, 1, g.p, 0).size),
               cols = double(block_range(p.n, 1, g.q, 0).size), e = double(p.element_bytes);
  const auto transfer = [&](double w) {
    const double a = rows * w * e, b = w * cols * e;
    // Only panels with receivers travel: B on a 1 x Q grid (A on P x 1) is packed, not sent.
    const double sent = (g.a_panels_travel() ? a : 0) + (g.b_panels_travel() ? b : 0);
    double x = panel_broadcast(a, row, t, r) + panel_broadcast(b, col, t, r);
    if (r.hbm > 0) // the owner packs its panels out of A and B (a read and a write each)
      x += 2 * (a + b) / r.hbm;
    if (t == Transport::host) // staged: device -> host on the owner, host -> device elsewhere;
      x += sent / r.staging;  // the host thread does the copies and MPI one after the other
    return x;
  };
  const auto product = [&](double w, bool accumulate) {
    double c = 2 * rows * cols * w / r.gemm_flops;
    if (accumulate && r.hbm > 0) // C += T reads C and T and writes C
      c += 3 * rows * cols * e / r.hbm;
    return c;
  };
  std::vector<double> widths; // as SummaMatmul cuts them: never across an owner's boundary
  for (std::int64_t k0 = 0; k0 < p.k;) {
    const int qa = block_owner(p.k, 1, g.q, k0), pb = block_owner(p.k, 1, g.p, k0);
    const std::int64_t w =
        std::min({std::int64_t(std::max(1, p.panel)), block_range(p.k, 1, g.q, qa).end() - k0,
                  block_range(p.k, 1, g.p, pb).end() - k0});
    widths.push_back(double(w));
    k0 += w;
  }
  out.panels = int(widths.size());
  out.transfer = transfer(widths[0]);
  out.ideal = 2.0 * double(p.m) * double(p.n) * double(p.k) / r.gemm_flops / double(g.ranks());
  if (g.ranks() == 1) { // one rank runs one product, no SUMMA
    out.time = out.compute = out.ideal;
    out.efficiency = 1;
    return out;
  }
  out.time = transfer(widths[0]);
  for (std::size_t s = 0; s < widths.size(); ++s) {
    const double c = product(widths[s], s > 0);
    out.compute += c;
    out.time += s + 1 < widths.size() ? std::max(c, transfer(widths[s + 1])) : c;
  }
  out.exposed = out.time - out.compute;
  out.efficiency = out.time > 0 ? out.ideal / out.time : 0;
  return out;
}

int recommend_panel(SummaProblem p, const MachineRates& r) {
  int best = 0;
  double best_eff = -1;
  for (int w = 128; w <= 8192 && w <= std::max<std::int64_t>(128, p.k); w *= 2) {
    p.panel = w;
    const SummaPrediction s = predict_summa(p, r);
    if (!s.missing.empty())
      return 0;
    if (s.efficiency > best_eff + 1e-9) {
      best_eff = s.efficiency;
      best = w;
    }
  }
  return best;
}

SummaProblem summa_problem(const Case& c, const Plan& plan) {
  SummaProblem p;
  p.grid = {plan.grid_p, plan.grid_q};
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.panel = panel_width(plan.settings.panel);
  p.element_bytes = c.precision == Precision::float64 ? 8 : 4;
  const std::string& t = plan.settings.transport;
  p.transport = t == "host"         ? Transport::host
                : t == "device_mpi" ? Transport::device_mpi
                                    : Transport::device_ipc;
  return p;
}

void print_summa_model(std::ostream& os, const Plan& plan, const MachineRates& r) {
  for (const Case& c : plan.cases) {
    if (family(c.family).distribution != Distribution::summa)
      continue;
    SummaProblem p = summa_problem(c, plan);
    const SummaPrediction s = predict_summa(p, r);
    os << "  [" << c.index + 1 << "] model: ";
    if (!s.missing.empty()) {
      os << "needs --rates " << s.missing << "=...\n";
      continue;
    }
    const Transport t =
        p.transport == Transport::device_ipc && s.nodes > 1 ? Transport::device_mpi : p.transport;
    p.panel = recommend_panel(p, r);
    const SummaPrediction best = predict_summa(p, r);
    char line[320];
    std::snprintf(line, sizeof line,
                  "%s over %d node(s), %d panel(s): %.3f ms per product (ideal %.3f, exposed "
                  "%.3f), efficiency %.1f%%; panel %d would give %.1f%%\n",
                  to_string(t), s.nodes, s.panels, s.time * 1e3, s.ideal * 1e3, s.exposed * 1e3,
                  100 * s.efficiency, p.panel, 100 * best.efficiency);
    os << line;
  }
}

} // namespace miniapp::parallel
