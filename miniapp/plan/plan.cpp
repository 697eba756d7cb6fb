#include "plan/plan.hpp"

#include "config/limits.hpp"
#include "core/text.hpp"
#include "plan/grid.hpp"
#include "plan/config_hash.hpp"
#include "plan/plan_notes.hpp"
#include "plan/case_values.hpp"
#include "plan/sweep.hpp"
#include "core/case_fields.hpp"
#include "core/size_math.hpp"
#include "core/backend_names.hpp"

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace miniapp {

namespace {

using config::fail;
using config::Position;
using config::Value;

// Sets one parameter of c from its typed value (config/value.hpp), checking the generic bounds
// and words of its row of the case-field table.
void assign(Case& c, const std::string& key, const Value& v) {
  const CaseField* f = find_case_field(key);
  if (!f)
    return;
  nlohmann::json value;
  if (v.is_auto()) {
    value = "auto";
  } else if (f->type == FieldType::integer) {
    const auto x = v.as_int();
    const std::string maybe_auto = f->takes_auto ? "'auto' or " : "";
    if (f->max == 0 && x < f->min)
      fail(v.pos, key + " must be " + maybe_auto + ">= " + std::to_string(f->min) + ", got " +
                      std::to_string(x));
    if (f->max != 0 && (x < f->min || x > f->max))
      fail(v.pos, key + " must be " + maybe_auto + "between " + std::to_string(f->min) + " and " +
                      std::to_string(f->max) + ", got " + std::to_string(x));
    value = x;
  } else if (f->type == FieldType::number) {
    value = v.as_double();
  } else if (f->type == FieldType::boolean) {
    value = v.as_bool();
  } else {
    value = v.as_string();
    if (f->words) {
      const auto known = f->words();
      if (std::find(known.begin(), known.end(), v.as_string()) == known.end())
        fail(v.pos, key + " must be " + join_words(known, "or") + ", got '" + v.as_string() + "'");
    }
  }
  set_case_value(*f, c, value);
}

// "tile_index", or "matmul and axpby": the families with a variant that reads p.
std::string families_reading(Param p) {
  std::vector<std::string> names;
  for (const auto& f : families())
    if (f.any_variant_reads(p))
      names.push_back(f.name);
  return join_words(names, "and");
}

// A tile shape (Param::shape) must be compiled for the case's backend kind, precision and tile
// (kernels/matmul_shapes.hpp); with 'tile: auto' (searched on one rank only) for one of the tiles
// the autotuner searches. On a GPU the shape sets the team (its thread grid): a team size the
// config fixes runs the general kernel, which has no shapes.
void check_shape(const Case& c, const Variant& v, const Position& at, const std::string& backend,
                 bool tile_searched) {
  if (c.shape.empty() && !c.shape_auto)
    return;
  const bool gpu = is_gpu_backend(backend);
  if (gpu && c.team_size > 0)
    fail(at, "on a GPU a shape sets the team size, but this case fixes team_size " +
                 std::to_string(c.team_size) + " (" + c.family + " " + c.variant + " on " +
                 backend +
                 " then runs its general kernel, which has no shapes): drop team_size "
                 "or shape");
  if (c.shape_auto)
    return;
  std::vector<int> tiles = {c.tile > 0 ? c.tile : v.tile};
  if (c.tile_auto && tile_searched && !v.tile_search_host.empty())
    tiles = gpu ? v.tile_search_gpu : v.tile_search_host;
  std::string known;
  for (int t : tiles) {
    Case at_tile = c;
    at_tile.tile = t;
    const auto names = shape_names(at_tile, backend);
    if (std::find(names.begin(), names.end(), c.shape) != names.end())
      return;
    known += (known.empty() ? "" : "; ") + std::string("tile ") + std::to_string(t) + ": " +
             join(names, ", ");
  }
  fail(at, "unknown shape '" + c.shape + "' for " + c.family + " " + c.variant + " " +
               to_string(c.precision) + " on " + backend + " (" + (gpu ? "GPU" : "host") +
               " shapes, the first the default; " + known + ")");
}

// Family/variant-specific rules (kernels/families.hpp), once every parameter is known.
void check_case(const config::CaseSpec& spec, Case& c, const std::map<std::string, Value>& given,
                const PlanLimits& limits, const config::Settings& settings,
                parallel::GridShape grid, const std::string& backend) {
  // Where an error about a key points: its value, else init's, else the case.
  const std::function<Position(const std::string&)> pos_of = [&](const std::string& key) {
    if (given.count(key))
      return given.at(key).pos;
    return key == "init" && spec.init ? spec.init->pos : spec.pos;
  };
  // A size whose value was in error (reported by the config stage): the checks of the other keys
  // are made, those of the sizes are not.
  const bool sizes_unread = spec.unread.count("n") || spec.unread.count("m") ||
                            spec.unread.count("k") || spec.unread.count("zip");
  if (!given.count("n") && !sizes_unread)
    fail(spec.pos, "missing required key 'n' (the matrix size) in the " + c.family + " case");
  if (!given.count("m"))
    c.m = c.n;
  const Family& f = family(c.family);
  if (!given.count("k") && c.uses(Param::k))
    c.k = c.n;
  // Keys no variant of the family reads (a key only some variants read may be swept over all).
  for (const auto& field : case_fields()) {
    const std::string key = field.name;
    if (refused_where_unread(field) && given.count(key) && !f.any_variant_reads(field.param))
      fail(given.at(key).pos, key + " applies to " + families_reading(field.param) + " only");
  }
  if (c.precision == Precision::int32 && c.uses(Param::alpha)) {
    for (const char* key : {"alpha", "beta"}) {
      const double x = std::string(key) == "alpha" ? c.alpha : c.beta;
      if (x != std::floor(x))
        fail(pos_of(key), std::string(key) + " must be a whole number for int32 cases, got " +
                              std::to_string(x));
    }
  }
  // A case that sweeps variants (variant left out, or a list) hands one tile list to variants
  // that read it differently: say how to fix that, not only what failed.
  const bool sweeps_variants =
      !spec.params.count("variant") || spec.params.at("variant").size() > 1;
  const std::string split_hint =
      sweeps_variants && !f.tile_sweep_hint.empty() ? "; " + f.tile_sweep_hint : "";
  const Variant& v = f.variant(c.variant);
  if (v.reads(Param::tile) && c.tile && !v.takes_tile(c.tile))
    fail(pos_of("tile"), c.family + " " + c.variant + " needs " + v.tile_rule + ", got " +
                             std::to_string(c.tile) + split_hint);
  if (v.reads(Param::shape))
    check_shape(c, v, pos_of("shape"), backend, limits.ranks <= 1);
  resolve_parameters(c); // the table's defaults: the case records what will run
  // A tile left out that GPUs measure per device (transpose tiled): searched as 'tile: auto' is.
  if (!given.count("tile"))
    tile_left_out(c, is_gpu_backend(backend));
  // Explicit inputs.
  if (spec.a || spec.b) {
    if (spec.init && c.init != "explicit")
      fail(spec.init->pos, "init must be 'explicit' when a/b matrices are given");
    c.init = "explicit";
    if (!spec.a)
      fail(spec.pos, "init explicit needs matrix 'a'");
    const bool with_k = c.uses(Param::k); // A is m x k and B k x n, else both m x n
    c.a_values = matrix_values(*spec.a, "a", c.m, with_k ? c.k : c.n, c.precision);
    if (f.inputs > 1) {
      if (!spec.b)
        fail(spec.pos, c.family + " with explicit inputs needs matrix 'b'");
      c.b_values = matrix_values(*spec.b, "b", with_k ? c.k : c.m, c.n, c.precision);
    }
  } else if (c.init == "explicit") {
    fail(pos_of("init"), "init explicit needs the matrices 'a' (and 'b')");
  }
  if (sizes_unread)
    return;
  const Position size_pos = pos_of(given.count("m") ? "m" : "n");
  check_value_range(c, size_pos, pos_of);
  const bool distributed = limits.ranks > 1;
  if (distributed) {
    // (tile_index maps indices of one matrix for `describe`: there is nothing to distribute.)
    if (f.distribution == Distribution::single_rank)
      fail(spec.family.pos, c.family + " runs on one rank only; run it without mpiexec "
                                       "(or with one rank), or remove the case from this "
                                       "config");
    std::string dim;
    const std::string why = parallel::check_fits(c, grid, &dim);
    if (!why.empty())
      fail(given.count(dim) ? given.at(dim).pos : size_pos, why);
  }
  const std::uint64_t bytes =
      distributed ? parallel::rank_case_bytes(c, grid, settings.panel) : case_bytes(c);
  if (bytes == kTooLarge)
    fail(size_pos, "the case's data size overflows 64 bits; use smaller sizes");
  if (limits.memory_bytes && bytes > limits.memory_bytes) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "the case needs %.2f GiB%s but %s has %.2f GiB",
                  bytes / 1073741824.0, distributed ? " on the largest rank" : "",
                  limits.memory_name.c_str(), limits.memory_bytes / 1073741824.0);
    fail(size_pos, buf);
  } else if (!distributed && limits.host_memory_bytes) {
    // Without this, a float32 axpby within the device check's limit could need 3.7 times its
    // data in host memory (`validate` keeps the reference and each element's bound as float64):
    // the kernel's out-of-memory killer, not an error, would have ended the run.
    const std::uint64_t host = case_host_bytes(c, settings.validate, is_gpu_backend(backend));
    if (host > limits.host_memory_bytes) {
      const std::uint64_t unchecked = case_host_bytes(c, false, is_gpu_backend(backend));
      char without[80] = "";
      if (unchecked < host)
        std::snprintf(without, sizeof without, "; without validation it needs %.2f GiB",
                      unchecked / 1073741824.0);
      char buf[300];
      std::snprintf(buf, sizeof buf,
                    "the case needs %.2f GiB of host memory (%.2f GiB of data and %.2f GiB beside "
                    "it: float64 values that check it, kernel workspace) but this host has %.2f "
                    "GiB%s",
                    host / 1073741824.0, bytes / 1073741824.0, (host - bytes) / 1073741824.0,
                    limits.host_memory_bytes / 1073741824.0, without);
      fail(size_pos, buf);
    }
  }
  c.print = settings.print || (spec.print && spec.print->as_bool());
}

Plan expand(const config::ExperimentConfig& cfg, const PlanLimits& limits,
            config::ErrorList& errors) {
  Plan plan;
  plan.settings = cfg.settings;
  // The backend must be compiled in.
  const auto compiled = compiled_backends();
  // Each check on its own (docs/config.md, "Checks"): the errors of the whole file are reported
  // together. The cases are checked for the default backend when the one named is in error.
  plan.backend = default_backend();
  errors.attempt([&] {
    if (cfg.settings.backend != "auto" &&
        std::find(compiled.begin(), compiled.end(), cfg.settings.backend) == compiled.end())
      fail(cfg.settings.backend_pos, "backend '" + cfg.settings.backend +
                                         "' is not compiled in; this build has: auto, " +
                                         join(compiled, ", "));
    plan.backend = resolve_backend(cfg.settings.backend);
  });
  // The process grid: the config's mpi.grid must use every rank; otherwise the most square one.
  plan.ranks = std::max(1, limits.ranks);
  parallel::GridShape grid = parallel::choose_grid(plan.ranks);
  if (cfg.settings.grid_p > 0) {
    const parallel::GridShape given{cfg.settings.grid_p, cfg.settings.grid_q};
    errors.attempt([&] {
      if (given.ranks() != plan.ranks)
        fail(cfg.settings.grid_pos,
             "mpi.grid [" + std::to_string(given.p) + ", " + std::to_string(given.q) + "] needs " +
                 std::to_string(given.ranks()) + " rank(s) but this run has " +
                 std::to_string(plan.ranks) + " (drop mpi.grid to choose one automatically)");
      grid = given;
    });
  }
  plan.grid_p = grid.p;
  plan.grid_q = grid.q;

  std::vector<std::vector<SweepDim>> all_dims;
  for (const auto& spec : cfg.cases)
    all_dims.push_back(sweep_dims(spec));
  // Past the limits nothing is expanded: report what was found so far with it.
  if (!errors.attempt([&] { check_expansion(cfg, all_dims); }))
    errors.throw_if_any();

  // Cases equal in everything they use run once (e.g. matmul flat swept over tile sizes).
  std::set<std::string> seen;
  plan.notes = cfg.notes;
  for (size_t spec_index = 0; spec_index < cfg.cases.size(); ++spec_index) {
    const auto& spec = cfg.cases[spec_index];
    for (const auto& note : unread_value_notes(spec))
      plan.notes.push_back(note);
    std::set<std::string> repeated; // ids this config case gives again, noted once each
    const std::vector<SweepDim>& dims = all_dims[spec_index];
    std::vector<size_t> pos(dims.size(), 0);
    // A case's first error ends its expansion (the others of its sweep would repeat it).
    errors.attempt([&] {
      while (true) {
        Case c;
        c.family = spec.family.as_string();
        parse_precision(cfg.settings.precision, c.precision);
        c.pinned = cfg.settings.pinned;
        c.alpha = family(c.family).alpha;
        c.beta = family(c.family).beta;
        if (spec.init)
          c.init = spec.init->as_string();
        std::map<std::string, Value> given;
        for (size_t d = 0; d < dims.size(); ++d)
          for (size_t j = 0; j < dims[d].keys.size(); ++j) {
            given[dims[d].keys[j]] = dims[d].rows[pos[d]][j];
            assign(c, dims[d].keys[j], dims[d].rows[pos[d]][j]);
          }
        c.params_used = family(c.family).variant(c.variant).params;
        check_case(spec, c, given, limits, cfg.settings, grid, plan.backend);
        // Explicit matrices are not part of the id: cases of different config entries stay apart.
        const std::string key = c.id() +
                                (c.init == "explicit" ? "#" + std::to_string(spec_index) : "") +
                                (c.print ? "#print" : "");
        if (seen.insert(key).second) {
          c.index = int(plan.cases.size());
          plan.cases.push_back(c);
        } else if (reads_every_given_key(spec, c) && repeated.insert(c.id()).second) {
          plan.notes.push_back(spec.pos.str() + ": note: cases[" + std::to_string(spec_index) +
                               "] gives " + c.id() +
                               " again (a value repeated, or another case's); it runs once");
        }
        size_t d = dims.size();
        while (d > 0) {
          --d;
          if (++pos[d] < dims[d].rows.size())
            break;
          pos[d] = 0;
          if (d == 0) {
            d = SIZE_MAX;
            break;
          }
        }
        if (dims.empty() || d == SIZE_MAX)
          break;
      }
    });
  }
  errors.throw_if_any();
  plan.config_hash = config_hash(plan);
  return plan;
}

} // namespace

Plan make_plan(const config::ExperimentConfig& cfg, const PlanLimits& limits,
               config::ErrorList errors) {
  return expand(cfg, limits, errors);
}

void print_plan(std::ostream& os, const Plan& plan) {
  const auto& s = plan.settings;
  os << "experiment " << s.name << ": " << plan.cases.size() << " case(s) on backend "
     << plan.backend << ", " << s.warmup << " warm-up + " << s.repetitions
     << " measured repetition(s), validation " << (s.validate ? "on" : "off") << ", config hash "
     << plan.config_hash << "\n";
  if (plan.ranks > 1)
    os << "distributed over " << plan.ranks << " MPI ranks, " << plan.grid_p << "x" << plan.grid_q
       << " process grid, SUMMA panel width " << parallel::panel_width(s.panel) << ", transport "
       << s.transport << "\n";
  for (const auto& c : plan.cases)
    os << "  [" << c.index + 1 << "] " << c.id() << "\n";
  for (const auto& note : plan.notes)
    os << note << "\n";
}

} // namespace miniapp
