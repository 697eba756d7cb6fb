#!/usr/bin/env bash
# Runs `miniapp validate` on one bad config and checks that it is refused the way the file says:
#   # expect: LINE:COL text        the message is FILE:LINE:COL: ...text...
#   # set: key=value               (optional, repeatable) passed as --set key=value
#   # expect: --set[N]:LINE:COL text   the error is placed in the N-th --set instead of the file
#   # also: LINE:COL text          (optional, repeatable) another error reported with the first
# The exit code must be 2 and the position exact.
# Usage: check_bad_config.sh MINIAPP CONFIG
set -u
miniapp=$1
config=$2

expect=$(sed -n 's/^# expect: //p' "$config" | head -n 1)
if [[ -z $expect ]]; then
  echo "FAIL: $config has no '# expect: LINE:COL text' line"
  exit 1
fi
location=${expect%% *}
text=${expect#* }

sets=()
while IFS= read -r spec; do sets+=("$spec"); done < <(sed -n 's/^# set: //p' "$config")
args=()
for spec in "${sets[@]}"; do args+=(--set "$spec"); done

if [[ $location =~ ^--set\[([0-9]+)\]:(.*)$ ]]; then
  index=${BASH_REMATCH[1]}
  prefix="--set[$index] '${sets[index - 1]}':${BASH_REMATCH[2]}: "
else
  prefix="$config:$location: "
fi

stderr=$("$miniapp" validate "$config" "${args[@]}" 2>&1 >/dev/null)
code=$?
message=$(printf '%s\n' "$stderr" | head -n 1)
echo "exit $code: $message"
if [[ $code -ne 2 ]]; then
  echo "FAIL: expected exit code 2, got $code"
  exit 1
fi
if [[ $message != "$prefix"* ]]; then
  echo "FAIL: expected the message to start with: $prefix"
  exit 1
fi
if [[ $message != *"$text"* ]]; then
  echo "FAIL: expected the message to contain: $text"
  exit 1
fi
while IFS= read -r also; do
  line="$config:${also%% *}: ${also#* }"
  if ! grep -qxF -- "$line" <<<"$stderr"; then
    echo "FAIL: expected also the line: $line"
    exit 1
  fi
done < <(sed -n 's/^# also: //p' "$config")
echo "ok"
