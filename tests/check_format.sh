#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format (the root .clang-format) would write.
set -euo pipefail
cd "$1"
files=$(git ls-files '*.cc' '*.h')
[ -n "$files" ] || { echo "check_format: no C++ files found under $1" >&2; exit 1; }
if ! out=$(echo "$files" | xargs clang-format --dry-run --Werror 2>&1); then
  echo "$out" | grep 'error:' | cut -d: -f1 | sort -u | sed 's/^/not clang-formatted: /'
  exit 1
fi
echo "check_format: $(echo "$files" | wc -l) files clean"
