# Bash completion for miniapp (installed as share/bash-completion/completions/miniapp).
# Everything it offers is asked of the program itself (`miniapp help`, `miniapp help COMMAND`,
# `miniapp list ... --names`), so it cannot drift from the options the build has.
_miniapp() {
  local cur prev cmd words
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local prog=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    words=$("$prog" help 2>/dev/null | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')
    mapfile -t COMPREPLY < <(compgen -W "help $words --help --version" -- "$cur")
    return
  fi
  cmd=${COMP_WORDS[1]}
  case "$prev" in
    --system)
      mapfile -t COMPREPLY < <(compgen -W "$("$prog" list systems --names 2>/dev/null)" -- "$cur")
      compopt -o default 2>/dev/null # a profile may also be a file
      return ;;
    --backend)
      mapfile -t COMPREPLY < <(compgen -W "auto $("$prog" list backends --names 2>/dev/null)" -- "$cur")
      return ;;
    -o|--output|--output-dir|--results-dir|--miniapp|--baseline)
      compopt -o default 2>/dev/null
      COMPREPLY=()
      return ;;
  esac
  if [ "$cmd" = help ]; then
    words=$("$prog" help 2>/dev/null | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  if [ "$cmd" = list ] && [[ "$cur" != -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "all families variants parameters systems backends" -- "$cur")
    return
  fi
  # A command's action word (study plan|submit|..., db import|rebuild), as its help lists them.
  if [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
    words=$("$prog" help "$cmd" 2>/dev/null | sed -n 's/^ *action TEXT:{\([a-z,]*\)}.*/\1/p' | tr , ' ')
    if [ -n "$words" ]; then
      mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
      return
    fi
  fi
  if [[ "$cur" == -* ]]; then
    words=$("$prog" help "$cmd" 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$words --kokkos-num-threads= --kokkos-device-id=" -- "$cur")
    return
  fi
  # Positional arguments: configs (YAML) for run/validate/jobscript, study files, run directories
  # otherwise.
  case "$cmd" in
    run|validate|jobscript|study)
      mapfile -t COMPREPLY < <(compgen -f -X '!*.@(yaml|yml)' -- "$cur"; compgen -d -- "$cur") ;;
    *) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
  esac
}
complete -F _miniapp miniapp
