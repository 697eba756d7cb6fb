#!/usr/bin/env bash
# The paper's Table 1 (R = a*A + b*B, CPU vs GPU) from miniapp runs of configs/paper_table1.yaml,
# as the markdown page docs/table1.md: the measured table, the paper's own numbers beside it, the
# hardware and the commands. Without GPU_RUN the GPU columns read "pending".
#
#   scripts/maintainer/table1.sh CPU_RUN [GPU_RUN] > docs/table1.md
#
# CPU_RUN / GPU_RUN: run directories (results.json inside) made by
#   miniapp run configs/paper_table1.yaml --output-dir DIR
# with the OpenMP build and the CUDA build. MINIAPP names the miniapp binary (default: the one in
# build/openmp/bin, else miniapp on PATH). PLOT_DIR, when set, also receives the rate plot
# (miniapp plot --kind rate --with-transfers), linked from the page as ${PLOT_DIR#docs/}/...;
# NOTES, when set, names a markdown file included under the measured table (what the reader
# should know about these particular runs).
set -euo pipefail

usage() {
  echo "usage: scripts/maintainer/table1.sh CPU_RUN [GPU_RUN] > docs/table1.md" >&2
  exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ $1 == -* ]] && usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
miniapp=${MINIAPP:-}
if [[ -z $miniapp ]]; then
  if [[ -x $here/build/openmp/bin/miniapp ]]; then
    miniapp=$here/build/openmp/bin/miniapp
  else
    miniapp=$(command -v miniapp) || { echo "table1.sh: no miniapp binary (set MINIAPP)" >&2; exit 2; }
  fi
fi

cpu_run=$1
gpu_run=${2:-}
runs=("$cpu_run")
[[ -n $gpu_run ]] && runs+=("$gpu_run")

table=$("$miniapp" compare --table paper1 "${runs[@]}")
# What the experiment runs, as its first case id says it (family/variant/precision/...).
first_case=$("$miniapp" validate "$here/configs/paper_table1.yaml" | sed -n 's/^  \[1\] //p')
IFS=/ read -r family variant precision _ <<<"$first_case"
plot=
if [[ -n ${PLOT_DIR:-} ]]; then
  "$miniapp" plot "${runs[@]}" --kind rate --with-transfers -o "$PLOT_DIR" >&2
  plot="![R = a*A + b*B: GFLOP/s with transfers vs N](${PLOT_DIR#docs/}/rate-$family.png)"
fi
notes=
if [[ -n ${NOTES:-} ]]; then
  notes=$(cat "$NOTES")
fi

cat <<EOF
# The paper's Table 1, reproduced

Park (2018), *Matrix Addition & Scalar Multiplication on the GPU* (the Korean paper among the
project's source documents), Table 1: R = a*A + b*B on N x N single-precision matrices, CPU
against GPU. The paper's method, which miniapp follows: total time = data to GPU + GPU processing
+ data from GPU, over 10 runs; GFLOPS = 3 N^2 / time (one multiply for a, one for b, one add per
element).

## Measured with miniapp

$table

$plot

$notes

The experiment is \`configs/paper_table1.yaml\` ($family, variant $variant, $precision, a = 2, b = 0.5,
2 warm-up + 10 measured repetitions, validated against a host reference). Differences from the
paper: miniapp reports the **median** of the 10 totals, not their mean (one slow repetition does
not move it); its CPU column is the Kokkos OpenMP backend on every core of the machine, where the
paper's CPU code was most likely a single-threaded loop; its GPU column is a Kokkos CUDA kernel
with \`Kokkos::deep_copy\` for the transfers, not an OpenGL compute shader.

EOF

if [[ -z $gpu_run ]]; then
  cat <<EOF
## GPU column: PENDING

The GPU columns above are placeholders: the CUDA run has not been made yet. To fill them in, on
the GPU machine with the CUDA build (\`cmake --preset cuda && cmake --build build/cuda\`):

    build/cuda/bin/miniapp run configs/paper_table1.yaml --output-dir docs/data/paper_table1-cuda

then regenerate this page from both runs, with the environment shown under "How this page was
made" below:

    scripts/maintainer/table1.sh $cpu_run docs/data/paper_table1-cuda > docs/table1.md

EOF
fi

cat <<'EOF'
## The paper's own numbers (NVIDIA Quadro 4000, OpenGL 4.3 compute shader)

Transcribed from the paper's Table 1 (CPU not named in the paper):

| N x N | CPU time (ms) | CPU GFLOPS | GPU time (ms) | GPU GFLOPS | speedup |
| --- | ---: | ---: | ---: | ---: | ---: |
| 128 x 128 | 0.67 | 0.73 | 0.01 | 4.92 | 7 |
| 256 x 256 | 2.56 | 0.77 | 0.02 | 8.55 | 11 |
| 512 x 512 | 10.21 | 0.77 | 0.08 | 9.36 | 12 |
| 1024 x 1024 | 40.77 | 0.77 | 0.25 | 12.43 | 16 |
| 2048 x 2048 | 174.44 | 0.72 | 0.96 | 13.05 | 18 |
| 4096 x 4096 | 654.82 | 0.77 | 3.12 | 16.11 | 21 |

A note on reading it: the paper's GPU columns agree with its formula (3 x 4096^2 / 3.12 ms =
16.1 GFLOPS), but its CPU GFLOPS are ten times what its CPU times give (3 x 4096^2 / 654.82 ms =
0.077 GFLOPS, printed 0.77), and its speedup column is the ratio of the GFLOPS columns (16.11 /
0.77 = 21), not of the times (654.82 / 3.12 = 210). miniapp computes every column from the
measured times, so its speedup is both ratios at once.

## How this page was made

EOF
echo '```sh'
echo "miniapp run configs/paper_table1.yaml --output-dir $cpu_run   # OpenMP build"
[[ -n $gpu_run ]] && echo "miniapp run configs/paper_table1.yaml --output-dir $gpu_run   # CUDA build"
env=
[[ -n ${PLOT_DIR:-} ]] && env+="PLOT_DIR=$PLOT_DIR "
[[ -n ${NOTES:-} ]] && env+="NOTES=$NOTES "
echo "${env}scripts/maintainer/table1.sh ${runs[*]} > docs/table1.md"
echo '```'
