set -euo pipefail

# ---------------------------------------------------------------- site section (edit for your site)
set +u # module scripts often read unset variables
#@@SITE@@
set -u
# ---------------------------------------------------------------- end of site section

: "${SLURM_JOB_ID:?this is a Slurm batch script: submit it with sbatch}"
MINIAPP_DEFAULT=@@MINIAPP@@
MINIAPP=${MINIAPP:-$MINIAPP_DEFAULT} # MINIAPP=... sbatch THIS_FILE runs another build
