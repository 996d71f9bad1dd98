#!/usr/bin/env bash
# Builds lightsim twice (Release, and Debug with AddressSanitizer + UndefinedBehaviorSanitizer), with
# warnings as errors, and runs the whole test suite on each build. Exits non-zero on the first failure.
#   scripts/test.sh [release|asan]...      (default: both)
# Set LIGHTSIM_REQUIRE_SHARED=1 to turn skipped tests that need ../shared/models into failures.
set -euo pipefail
cd "$(dirname "$0")/.."

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(release asan)
jobs=$(nproc)

for variant in "${variants[@]}"; do
  case "$variant" in
    release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
    asan) flags=(-DCMAKE_BUILD_TYPE=Debug -DLIGHTSIM_SANITIZE=ON -DLIGHTSIM_BUILD_BENCHMARKS=OFF) ;;
    *) echo "test.sh: unknown variant '$variant' (release|asan)" >&2; exit 2 ;;
  esac
  dir="build-test-$variant"
  echo "== $variant build in $dir"
  cmake -S . -B "$dir" -G Ninja -DLIGHTSIM_WERROR=ON "${flags[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs"
  count=$(ctest --test-dir "$dir" -N | sed -n 's/^Total Tests: //p')
  if [ "${count:-0}" -eq 0 ]; then
    echo "test.sh: ctest found no tests in $dir" >&2
    exit 1
  fi
  echo "== $variant: running $count tests"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 900
done
