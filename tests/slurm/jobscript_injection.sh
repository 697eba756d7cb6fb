#!/bin/bash
# shellcheck disable=SC2016 # the hostile values hold literal $(...) and `...` on purpose
# No generated job script runs a command that came from a config, a profile, a path or an option
# value (issue 16 item 2). Hostile values go into every field a script is made from; each script
# must parse (bash -n), and when executed with stub srun/mpirun/module/nvidia-smi it must create
# no marker file and hand the launcher the values exactly as given.
# Usage: jobscript_injection.sh MINIAPP TEMPLATES   (TEMPLATES: the build's assembled jobscripts/)
set -euo pipefail
MINIAPP=$(realpath "$1")
templates=$(realpath "$2")
CHECK_NAME=injection
# shellcheck source=tests/slurm/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

marker=$scratch/PWNED
# Each value tries another way out of its place in the script.
hostile=(
  "\$(touch $marker)"
  "\`touch $marker\`"
  "'; touch $marker; '"
  "\"; touch $marker; \""
  $'x\ntouch '"$marker"$'\n'
  $'x\r\ntouch '"$marker"
  "@@RUN_ARGS@@"
  "a@@b"
  "@@CONFIG@@ @@SITE@@"
  "%j\$(touch $marker)%j"
  "\${IFS}\$(touch\${IFS}$marker)"
)

# Stubs: the launchers print their arguments one per line (%q), the rest only succeed.
mkdir -p "$scratch/bin"
for tool in srun mpirun; do
  printf '#!/bin/bash\nfor a in "$@"; do printf "%%q\\n" "$a"; done >"%s/launched"\n' \
    "$scratch" >"$scratch/bin/$tool"
done
for tool in module nvidia-smi rocm-smi sbatch; do
  printf '#!/bin/bash\nexit 0\n' >"$scratch/bin/$tool"
done
chmod +x "$scratch"/bin/*

# run_script NAME: bash -n, then execute under a fake Slurm environment.
run_script() {
  local script=$1
  if ! bash -n "$script" 2>"$scratch/syntax"; then
    fail "$script: bash -n: $(cat "$scratch/syntax")"
    return 1
  fi
  rm -f "$scratch/launched"
  (cd "$scratch" && env -u MINIAPP PATH="$scratch/bin:$PATH" SLURM_JOB_ID=7 SLURM_NTASKS=1 \
    SLURM_CPUS_PER_TASK=1 SLURM_NTASKS_PER_NODE=1 SLURM_JOB_NODELIST=n1 \
    bash "$script" >"$scratch/job.out" 2>&1) || true
  if [[ -e $marker ]]; then
    fail "$script ran a command from a value: $(head -c 300 "$script")"
    rm -f "$marker"
    return 1
  fi
  if [[ ! -s $scratch/launched ]]; then
    fail "$script did not reach the launcher: $(cat "$scratch/job.out")"
    return 1
  fi
}
# launched_has VALUE: the launcher got VALUE as one argument, unchanged.
launched_has() {
  if grep -qxF -- "$(printf '%q' "$1")" "$scratch/launched"; then
    return 0
  fi
  fail "the launcher did not get $(printf '%q' "$1") as one argument; it got: $(tr '\n' ' ' <"$scratch/launched")"
  return 1
}

cat >"$scratch/small.yaml" <<'YAML'
name: small
backend: auto
repetitions: 1
cases:
  - family: axpby
    variant: flat
    n: 64
YAML
profile() { # profile FILE VALUE: a CPU profile with VALUE in every free-text field
  local v=${2//\'/\'\'}
  v=${v//$'\n'/ }
  v=${v//$'\r'/ }
  cat >"$1" <<YAML
name: hostile
description: '$v'
backend: openmp
cores_per_node: 2
launcher: srun
launcher_options: ['$v']
sbatch_options: ['--comment=$v']
cpu_bind: '$v'
gpu_bind: '$v'
modules: ['$v']
environment:
  HOSTILE: '$v'
YAML
}

# yaml_string VALUE: VALUE as a YAML double-quoted scalar (JSON's escapes are YAML's).
yaml_string() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

n=0
for v in "${hostile[@]}"; do
  n=$((n + 1))
  set_value="description=$(yaml_string "$v")"
  # 1. Option values: --set, --output-dir, --results-dir and -o (the command line in the header).
  out="$scratch/o$n@@RUN_ARGS@@.sh"
  if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$(dirname "$0")/../../jobscripts/systems/local.yaml" \
    --set "$set_value" --output-dir "$scratch/run$n-$v" -o "$out" 2>"$scratch/err"; then
    if run_script "$out"; then
      launched_has "$set_value" && launched_has "$scratch/run$n-${v//%j/7}" &&
        pass "option values #$n stay data"
    fi
  else
    fail "jobscript with option value #$n failed: $(cat "$scratch/err")"
  fi
  out="$scratch/r$n.sh"
  if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$(dirname "$0")/../../jobscripts/systems/local.yaml" \
    --results-dir "$scratch/res$n-$v" --miniapp "$scratch/prog$n-$v" -o "$out" 2>"$scratch/err"; then
    run_script "$out" && launched_has "output.directory=$scratch/res$n-$v" &&
      launched_has "$scratch/prog$n-$v" && pass "--results-dir and --miniapp #$n stay data"
  else
    fail "jobscript with --results-dir #$n failed: $(cat "$scratch/err")"
  fi
  # 2. The config's path (a directory name can hold anything but '/').
  dir="$scratch/cfg$n-${v//\//_}"
  mkdir -p "$dir"
  cp "$scratch/small.yaml" "$dir/c.yaml"
  out="$scratch/c$n.sh"
  if "$MINIAPP" jobscript "$dir/c.yaml" --system "$(dirname "$0")/../../jobscripts/systems/local.yaml" \
    -o "$out" 2>"$scratch/err"; then
    run_script "$out" && launched_has "$dir/c.yaml" && pass "config path #$n stays data"
  else
    fail "jobscript with config path #$n failed: $(cat "$scratch/err")"
  fi
  # 3. Every free-text field of a system profile.
  profile "$scratch/p$n.yaml" "$v"
  out="$scratch/p$n.sh"
  if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$scratch/p$n.yaml" -o "$out" 2>"$scratch/err"; then
    run_script "$out" && pass "profile values #$n stay data"
  else
    fail "jobscript with profile #$n failed: $(cat "$scratch/err")"
  fi
done

# A site's own template is rendered by the same one-pass renderer: a value holding a placeholder
# is not filled in again, and an unknown placeholder is a config error with its position.
printf '#!/bin/bash\n# @@COMMAND@@\n#SBATCH --time=@@TIME@@\n#@@SITE@@\n"$MINIAPP" @@CONFIG@@ @@RUN_ARGS@@\n' \
  >"$scratch/site.sh"
sed -i 's/"\$MINIAPP"/srun/' "$scratch/site.sh"
if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$(dirname "$0")/../../jobscripts/systems/local.yaml" \
  --template "$scratch/site.sh" --set "description=$(yaml_string "@@SITE@@ \$(touch $marker)")" \
  -o "$scratch/t.sh" 2>"$scratch/err"; then
  run_script "$scratch/t.sh" && launched_has "description=$(yaml_string "@@SITE@@ \$(touch $marker)")" &&
    pass "--template: values stay data"
else
  fail "--template failed: $(cat "$scratch/err")"
fi
printf '#!/bin/bash\nsrun @@CONFIG@@ @@NOSUCH@@\n' >"$scratch/bad.sh"
rc=0
"$MINIAPP" jobscript "$scratch/small.yaml" --system "$(dirname "$0")/../../jobscripts/systems/local.yaml" \
  --template "$scratch/bad.sh" 2>"$scratch/err" >/dev/null || rc=$?
if [[ $rc -eq 2 ]] && grep -q 'bad.sh:2:17: unknown placeholder @@NOSUCH@@' "$scratch/err"; then
  pass "unknown placeholder in --template: exit 2 with its position"
else
  fail "unknown placeholder: exit $rc, $(cat "$scratch/err")"
fi

# A site's template places each placeholder only where its value is inert (issue 23 item 16):
# comment text only in comments (not on #SBATCH or #! lines, which sbatch and the kernel read),
# quoted shell words only in unquoted code, plain tokens anywhere. A misplaced one is refused with
# its position before a script is written; the description below ran when `echo "@@SYSTEM@@"`
# was accepted.
local_profile=$(dirname "$0")/../../jobscripts/systems/local.yaml
profile "$scratch/hostile.yaml" "\$(touch $marker) \`touch $marker\`"
hostile_description="description=$(yaml_string "\$(touch $marker) \`touch $marker\`")"
misplaced=(
  'echo "@@SYSTEM@@"|3:7: @@SYSTEM@@ is text for a comment line'
  'echo @@SYSTEM@@|3:6: @@SYSTEM@@ is text for a comment line'
  '#SBATCH --comment=@@SYSTEM@@|3:19: @@SYSTEM@@ is text for a comment line; on a #SBATCH line'
  'X="@@CONFIG@@"|3:4: @@CONFIG@@ is shell words, already quoted'
  "X='@@CONFIG@@'|3:4: @@CONFIG@@ is shell words, already quoted"
  'X="${Y:-@@MINIAPP@@}"|3:9: @@MINIAPP@@ is shell words, already quoted'
  'X=$(echo "@@RUN_ARGS@@")|3:11: @@RUN_ARGS@@ is shell words, already quoted'
  'X=`echo @@CONFIG@@`|3:9: @@CONFIG@@ is shell words, already quoted'
  'echo $(( @@CONFIG@@ ))|3:10: @@CONFIG@@ is shell words, already quoted'
  '(( @@RUN_ARGS@@ ))|3:4: @@RUN_ARGS@@ is shell words, already quoted'
  '[[ @@CONFIG@@ -eq 1 ]]|3:4: @@CONFIG@@ is shell words, already quoted'
  'let n=@@CONFIG@@|3:7: @@CONFIG@@ is shell words, already quoted'
  '# @@CONFIG@@|3:3: @@CONFIG@@ is shell words; in a comment'
  $'cat <<EOF\n@@CONFIG@@\nEOF|4:1: @@CONFIG@@ is shell words, already quoted'
  $'cat <<-"EOF"\n\t@@SYSTEM@@\n\tEOF|4:2: @@SYSTEM@@ is text for a comment line'
  $'echo "\n#@@SITE@@\n"|4:2: #@@SITE@@ stands for lines of shell code'
)
for spec in "${misplaced[@]}"; do
  line=${spec%%|*}
  want=${spec#*|}
  printf '#!/bin/bash\n#SBATCH --time=@@TIME@@\n%s\nsrun @@CONFIG@@ @@RUN_ARGS@@\n' "$line" \
    >"$scratch/misplaced.sh"
  rc=0
  "$MINIAPP" jobscript "$scratch/small.yaml" --system "$scratch/hostile.yaml" --set "$hostile_description" \
    --template "$scratch/misplaced.sh" -o "$scratch/m.sh" 2>"$scratch/err" >/dev/null || rc=$?
  if [[ $rc -eq 2 ]] && grep -qF "misplaced.sh:$want" "$scratch/err" && [[ ! -e $scratch/m.sh ]]; then
    pass "misplaced placeholder refused: $(printf '%q' "$line")"
  else
    fail "misplaced placeholder $(printf '%q' "$line"): exit $rc, $(cat "$scratch/err"), wanted misplaced.sh:$want"
    [[ ! -e $scratch/m.sh ]] || run_script "$scratch/m.sh" || true
  fi
  rm -f "$scratch/m.sh"
done
# Placed where they are inert, the same values stay data.
printf '%s\n' '#!/bin/bash' '# @@SYSTEM@@ (@@SYSTEM_FILE@@)' '#SBATCH --time=@@TIME@@' \
  'echo "@@NODES@@ node(s), job @@JOB_NAME@@" # @@COMMAND@@' "cat <<'EOF'" '@@RANKS@@ rank(s)' \
  'EOF' 'CONFIG=@@CONFIG@@' 'srun "$CONFIG" @@RUN_ARGS@@' >"$scratch/placed.sh"
if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$scratch/hostile.yaml" --set "$hostile_description" \
  --template "$scratch/placed.sh" -o "$scratch/placed-job.sh" 2>"$scratch/err"; then
  run_script "$scratch/placed-job.sh" && launched_has "$hostile_description" &&
    pass "placeholders where they are inert: values stay data"
else
  fail "template with every placeholder in its place refused: $(cat "$scratch/err")"
fi

# A CRLF copy of a shipped template (saved on Windows) gives the same script as the original,
# with LF line ends; a carriage return inside a line is refused with its position.
for template in openmp gpu; do
  src_template=$templates/$template.sh # the shipped template, as the build assembles it
  mkdir -p "$scratch/lf" "$scratch/crlf"
  cp "$src_template" "$scratch/lf/t.sh"
  sed 's/$/\r/' "$src_template" >"$scratch/crlf/t.sh"
  system=(--system "$local_profile")
  [[ $template == openmp ]] || system=(--system "$(dirname "$0")/../../jobscripts/systems/generic-gpu.yaml"
    --miniapp /opt/miniapp-cuda/bin/miniapp)
  ok=1
  for kind in lf crlf; do
    "$MINIAPP" jobscript "$scratch/small.yaml" "${system[@]}" --template "$scratch/$kind/t.sh" \
      -o "$scratch/$kind/job.sh" 2>"$scratch/err" >/dev/null || { ok=0; fail "$kind $template template: $(cat "$scratch/err")"; }
  done
  if [[ $ok -eq 1 ]]; then
    if diff <(grep -v -e '^# Template:' -e '^# Generated by:' "$scratch/lf/job.sh") \
      <(grep -v -e '^# Template:' -e '^# Generated by:' "$scratch/crlf/job.sh") >"$scratch/diff" &&
      ! grep -q $'\r' "$scratch/crlf/job.sh"; then
      pass "CRLF copy of $template.sh: the same script, LF line ends"
    else
      fail "CRLF copy of $template.sh differs: $(head -c 600 "$scratch/diff")"
    fi
  fi
done
printf '#!/bin/bash\nsrun @@CONFIG@@\recho\n' >"$scratch/cr.sh"
rc=0
"$MINIAPP" jobscript "$scratch/small.yaml" --system "$local_profile" --template "$scratch/cr.sh" \
  2>"$scratch/err" >/dev/null || rc=$?
if [[ $rc -eq 2 ]] && grep -qF 'cr.sh:2:16: a carriage return that does not end a line' "$scratch/err"; then
  pass "a carriage return inside a template line: exit 2 with its position"
else
  fail "carriage return inside a line: exit $rc, $(cat "$scratch/err")"
fi

finish_checks injection
