#!/usr/bin/env bash
# Builds lightsim twice (Release, and Debug at -O1 with AddressSanitizer + UndefinedBehaviorSanitizer), with
# warnings as errors; runs the whole test suite on the Release build and every C++ test on the sanitizer
# build (which links its libraries as shared objects: statically, its 60 test binaries would take 6 GB of
# disk, shared ~1 GB); then the fuzz smoke: every libFuzzer target of tests/fuzz for LIGHTSIM_FUZZ_SECONDS
# (default 30) after its 1 MB stress inputs (scripts/fuzz.sh, clang, its own build directory). Exits
# non-zero on the first failure.
#   scripts/test.sh [release|asan|fuzz]...      (default: all three)
# Set LIGHTSIM_REQUIRE_SHARED=1 to turn skipped tests that need ../shared/models into failures.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
help_if_asked "$@"
cd "$(dirname "$0")/.."

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(release asan fuzz)
jobs=$(nproc)

# Each stage's wall time, so that a CI log shows where its minutes go.
stage_start=$SECONDS
stage_done() { echo "== $1: $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }

for variant in "${variants[@]}"; do
  case "$variant" in
    fuzz)
      echo "== fuzz smoke: ${LIGHTSIM_FUZZ_SECONDS:-30} s per target"
      scripts/fuzz.sh "${LIGHTSIM_FUZZ_SECONDS:-30}"
      stage_done "fuzz build and smoke"
      continue ;;
    release) flags=(-DCMAKE_BUILD_TYPE=Release -DLIGHTSIM_BUILD_TESTS=ON -DLIGHTSIM_BUILD_BENCHMARKS=ON) ;;
    # Asserts on (Debug), the libraries at -O1 with line tables only (tests/CMakeLists.txt keeps the test
    # files at -O0, which compile twice as fast): the sanitizer tests took 209 s on a 2-core VM, against
    # about 13 min with everything at -O0; reports still name file and line.
    asan) flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" -DLIGHTSIM_SANITIZE=ON -DBUILD_SHARED_LIBS=ON -DLIGHTSIM_BUILD_TESTS=ON -DLIGHTSIM_BUILD_BENCHMARKS=OFF) ;;
    *) echo "test.sh: unknown variant '$variant' (release|asan|fuzz)" >&2; exit 2 ;;
  esac
  dir="build-test-$variant"
  echo "== $variant build in $dir"
  cmake -S . -B "$dir" -G Ninja -DLIGHTSIM_WERROR=ON "${flags[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs"
  stage_done "$variant build"
  count=$(ctest --test-dir "$dir" -N | sed -n 's/^Total Tests: //p')
  if [ "${count:-0}" -eq 0 ]; then
    echo "test.sh: ctest found no tests in $dir" >&2
    exit 1
  fi
  echo "== $variant: running $count tests"
  # The tests that check committed outputs and the Python scripts (Configs.*, Published.*, Scripts.*,
  # ExampleGraphs.*: the same numbers in both builds, 819 of the sanitizer run's 2164 test-seconds) run in
  # the Release build only; every C++ test runs in both.
  only_release=()
  [ "$variant" = asan ] && only_release=(-E '^(Configs|Published|Scripts|ExampleGraphs)\.')
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 900 "${only_release[@]}"
  stage_done "$variant tests"
done
