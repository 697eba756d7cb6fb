#pragma once
// The limits on what a config, a --set value, a system profile or a results file may ask for. Each
// is checked before any work is done (exit 2 with one sentence), so no input of any shape can make
// the loader or the plan hang, recurse without end or grow without bound. docs/config.md lists
// them; change them here only (the case parameters' bounds: core/case_limits.hpp, included below).
#include "core/case_limits.hpp"

#include <cstdint>

namespace miniapp::config::limits {

// Bytes of a config or system-profile file (and of one --set text). Real configs are a few KB.
constexpr std::uint64_t kMaxFileBytes = 1u << 20;
// Bytes of any single scalar (a name, a description, a number).
constexpr std::uint64_t kMaxStringBytes = 4096;
// Maps and lists nested inside each other (the root map is level 1). Explicit matrices need 5.
constexpr int kMaxNestingDepth = 32;
// Nodes visited when the document is walked with every alias expanded in place: bounds alias
// bombs (each level of aliases doubling the size) while a plain 1 MiB file stays far below it.
constexpr std::uint64_t kMaxExpandedNodes = 1000000;
// Cases one config may expand to (the product of each case's sweep lists, summed), checked
// before expanding.
constexpr std::uint64_t kMaxCases = 100000;
// `miniapp describe`: elements of the printed index map (rows x cols); a tile side is
// kMaxTileSide (core/case_limits.hpp: the bounds of the case parameters, which the case-field
// table below the config layer reads).
constexpr std::uint64_t kMaxDescribeElements = 1u << 20;
// warmup and repetitions of one case.
constexpr int kMaxRepetitions = 1000000;
// Each side of mpi.grid, and mpi.panel.
constexpr int kMaxGridSide = 1 << 20;
// Errors `validate` and `run` report from one config before they stop (each independent error of
// the file is reported, up to this many; the rest are counted).
constexpr int kMaxReportedErrors = 50;
// --set items on one command line. Each is applied on its own (parsed, placed for messages), so
// their number bounds the loader's work and memory.
constexpr int kMaxOverrides = 1000;
// Threads per rank (--kokkos-num-threads, KOKKOS_NUM_THREADS or OMP_NUM_THREADS) as a multiple of
// the hardware threads the machine has: oversubscribing a little is an experiment, tens of
// thousands of threads crash the OpenMP runtime inside Kokkos::initialize.
constexpr int kMaxThreadsPerHardwareThread = 8;
// Run directories <name>-<UTC second>, -2, -3, ... tried before `run` gives up (exit 3, a resource
// error, not a config one): a bound on the retry loop, far above runs started in one second.
constexpr int kMaxRunDirectoryTries = 1000;
// YAML documents yaml-cpp is asked for: a config holds one; a second one is an error, and a third
// that starts where the second did shows that the parser is stuck (a syntax error).
constexpr int kMaxDocumentsRead = 3;
// Bytes of a results file read back (results.json, results.csv, and each JSON text the history
// database keeps): a 100000-case sweep writes about 200 MB. A larger file is refused unread.
constexpr std::uint64_t kMaxResultsFileBytes = 1u << 28;
// Rows of one results file: a run writes one per case, so a file with more than kMaxCases rows is
// not one miniapp wrote. The bound matters where rows are small: a 256 MiB results.csv of two-byte
// rows would otherwise be read as 134 million rows.
constexpr std::uint64_t kMaxResultsRows = kMaxCases;
// Cells of one results.csv row (the header included): results.csv has under a hundred columns.
constexpr std::uint64_t kMaxResultsColumns = 1024;
// Maps and lists nested inside each other in such a JSON document; results.json needs 4.
constexpr int kMaxResultsJsonDepth = 64;
// Maps and lists in such a JSON document, counted before it is parsed: a row holds at most 7
// (itself and its lists of times), so 100000 rows and their config need under 1.5 million. Each
// costs about 80 bytes parsed for its 3 bytes of text ("{},"): 256 MiB of them would take 7 GB.
constexpr std::uint64_t kMaxResultsJsonContainers = 2000000;
// `miniapp run --rounds N`: each round keeps its median in every row, so N bounds the rows' size;
// a thousand rounds of the shortest case is already hours.
constexpr int kMaxRounds = 1000;

// Nodes, and ranks, cores or GPUs per node, that a system profile, a study or `miniapp jobscript`
// may name.
constexpr int kMaxJobCount = 1000000;
// Ranks of one job (nodes x ranks per node), so a rank count is an int with room to spare.
constexpr std::int64_t kMaxJobRanks = 1000000;

// Points of one study file (systems x nodes x ranks per node): each is a job submitted at once.
constexpr std::uint64_t kMaxStudyPoints = 1000;
// Jobs recorded for one point of a study (its first submission and every resubmission).
constexpr std::uint64_t kMaxStudyJobs = 1000;
// Bytes of a study's state file (study-state.json): kMaxStudyPoints points with two paths each and
// kMaxStudyJobs job ids each take under 32 MiB even at kMaxStringBytes a path.
constexpr std::uint64_t kMaxStudyStateBytes = 32u << 20;

} // namespace miniapp::config::limits
