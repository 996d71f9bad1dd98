# help.sh: sourced by the shell scripts in scripts/. `script_help` prints the running script's leading
# comment block (its documentation: every # line after the #! line, up to the first other line) and exits
# 0; `help_if_asked "$@"` does so when the first argument is -h or --help, before the script does anything.
#
# It is not an option parser: each script reads its own options.
script_help() {
  local script=${BASH_SOURCE[${#BASH_SOURCE[@]} - 1]} # the outermost: the script that was run
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
  exit 0
}

help_if_asked() {
  case "${1:-}" in
    -h | --help) script_help ;;
  esac
}
