CONFIG=@@CONFIG@@
RUN_ARGS=(@@RUN_ARGS@@)
OUTPUT_DIR=@@OUTPUT_DIR@@ # the run's results directory; empty: a new one under output.directory
STOP_MARGIN_S=@@STOP_MARGIN_S@@ # Slurm's SIGUSR1 comes this long before the time limit (#SBATCH --signal)
LAUNCHER=@@LAUNCHER@@ # srun | mpirun
LAUNCHER_OPTIONS=(@@LAUNCHER_OPTIONS@@)
CPU_BIND=@@CPU_BIND@@ # srun --cpu-bind; empty = Slurm's default
