#!/usr/bin/env bash
# fuzz.sh [SECONDS] [--runs N] [--target NAME] [--max-len BYTES] [--build DIR]
#
# Builds the libFuzzer targets (tests/fuzz: the TVM graph importer, the ONNX importer, the hardware config loader, the --set
# override parser and the graphgen model config reader) with clang, -fsanitize=fuzzer,address,undefined, in
# their own build directory (default build-fuzz), and runs each in turn, one process, at nice 19:
#   - first every 1 MB stress input (deep nesting, long arrays and strings, 26000 nodes, 50000 --set
#     lines) once: each must finish within the time limit and the allocation bound;
#   - then the fuzzer for SECONDS (default 60) or N executions (--runs), on the corpus in DIR/corpus/NAME
#     (kept between runs, so a campaign continues where the last one stopped), seeded from tests/data/,
#     configs/, small lightsim-graph graphs, tests/fuzz/seeds/ and tests/fuzz/regressions/, with the
#     dictionary tests/fuzz/json.dict.
# Limits (the project's bad-input rule, checked by each target on every input, tests/fuzz/libfuzzer_main.cc):
# at most 1 s of CPU time per input (-timeout=10, wall clock, is only the backstop for an input that never
# returns: on a shared machine wall time is not the parser's), inputs up to -max_len (default 1048576
# bytes), the live heap growing by at most 20 x the input's size + 1 MiB, and -malloc_limit_mb =
# 20 x max_len + 1 MiB (in MiB) for any single allocation; -rss_limit_mb (default 2048, FUZZ_RSS_LIMIT_MB)
# is only the backstop for memory kept between inputs.
# A finding is saved as DIR/artifacts/NAME/crash-* (or timeout-*, oom-*, leak-*, slow-unit-*), and fuzz.sh
# exits 1.
# It prints one line per target: executions, exec/s, coverage (cov, ft), corpus size, findings; the full
# log is DIR/logs/NAME.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

seconds=60 runs="" only="" max_len=1048576 build=build-fuzz
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?}; shift 2 ;;
    --target) only=${2:?}; shift 2 ;;
    --max-len) max_len=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    -h|--help) script_help ;;
    [0-9]*) seconds=$1; shift ;;
    *) echo "fuzz: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
targets=(tvm_import onnx_import hardware_config config_override model_config)
if [ -n "$only" ]; then
  [[ " ${targets[*]} " == *" $only "* ]] || { echo "fuzz: no target '$only' (${targets[*]})" >&2; exit 2; }
  targets=("$only")
fi
command -v clang++ > /dev/null || { echo "fuzz: clang++ not found (scripts/setup.sh installs clang)" >&2; exit 2; }

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
echo "== fuzz: building in $build (clang, libFuzzer, ASan + UBSan)"
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLIGHTSIM_FUZZ=ON -DLIGHTSIM_CUDA=OFF -DLIGHTSIM_BUILD_TESTS=ON \
  -DLIGHTSIM_BUILD_BENCHMARKS=OFF -DLIGHTSIM_PROFILE_NATIVE=OFF "${launcher[@]}" > /dev/null
nice -n 19 cmake --build "$build" -j "$(nproc)" --target lightsim_fuzzers lightsim-graph

build=$(cd "$build" && pwd)
graphgen="$build/sim/lightsim-graph"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64:malloc_context_size=20}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
malloc_limit_mb=$(( (20 * max_len + 1048576 + 1048575) / 1048576 ))
rss_limit_mb=${FUZZ_RSS_LIMIT_MB:-2048}
limits=(-timeout=10 -max_len="$max_len" -malloc_limit_mb="$malloc_limit_mb" -rss_limit_mb="$rss_limit_mb")

# Seeds that are not committed: copies of the project's own inputs and small generated graphs.
seeds() { # seeds NAME DIR: fills DIR with the target's seeds
  local dir=$2
  mkdir -p "$dir"
  case "$1" in
    tvm_import)
      cp tests/data/*.json "$dir/"
      "$graphgen" --model gpt2 --layers 1 --seq 4 -o "$dir/gpt2-1layer.json" > /dev/null
      "$graphgen" --model llama2-7b --phase decode --layers 1 --seq 8 -o "$dir/llama-decode.json" > /dev/null
      "$graphgen" --model llama2-70b --layers 1 --seq 3 --dtype float16 -o "$dir/llama-gqa.json" > /dev/null ;;
    onnx_import)
      "$graphgen" --model gpt2 --layers 1 --seq 4 --format onnx -o "$dir/gpt2-1layer.onnx" > /dev/null
      "$graphgen" --model bert-base --layers 1 --seq 8 --format onnx -o "$dir/bert-1layer.onnx" > /dev/null
      "$graphgen" --model resnet18 --format onnx -o "$dir/resnet18.onnx" > /dev/null
      "$graphgen" --model llama2-7b --layers 1 --seq 3 --format onnx -o "$dir/llama-1layer.onnx" > /dev/null
      for f in ../shared/models/onnx/*.onnx; do # the real exports that fit -max_len
        if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_len" ]; then cp "$f" "$dir/"; fi
      done ;;
    hardware_config) cp configs/*.json configs/measured/*.json "$dir/" ;;
    config_override | model_config) ;; # tests/fuzz/seeds/ only
  esac
}

# Inputs of max_len bytes that stress each parser's time and memory.
stress() { # stress NAME DIR
  mkdir -p "$2"
  python3 - "$1" "$2" "$max_len" <<'PYEOF'
import sys
name, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def put(file, text):
    data = text.encode()[:n]
    open(f"{out}/{file}", "wb").write(data)
put("open-arrays", "[" * n)
put("open-objects", '{"a":' * (n // 5))
put("zeros", "[" + "0," * (n // 2 - 1) + "0]")
put("long-string", '"' + "x" * (n - 2) + '"')
put("many-keys", "{" + ",".join(f'"k{i}":{i}' for i in range(n // 12)) + "}")
if name == "tvm_import":
    nodes = ",".join('{"op":"null","name":"x%d","inputs":[]}' % i for i in range(n // 40))
    put("many-inputs", '{"nodes":[' + nodes + ']}')
    put("deep-input", '{"nodes":[{"op":"tvm_op","name":"a","inputs":' + "[" * (n // 2) + "]}]}")
if name == "hardware_config":
    put("many-units", '{"units":[' + ",".join('{"name":"u%d","kind":"cpu"}' % i for i in range(n // 30)) + "]}")
if name == "config_override":
    put("many-overrides", "phu0.wdm_channels=16\n" * (n // 21))
    put("many-overrides-last-bad", "phu0.wdm_channels=16\n" * (n // 21 - 1) + "links.pcie-phu.lanes=-3")
    put("deep-value", "phu0.wdm_channels=" + "[" * (n - 18))
    put("long-key", "phu0." + "a." * (n // 2 - 4) + "=1")
if name == "model_config":
    put("big-llama", '{"model_type":"llama","hidden_size":4096,"num_hidden_layers":2,"num_attention_heads":32,'
        '"intermediate_size":11008,"vocab_size":32000,"pad":"' + "p" * n + '"}')
PYEOF
}

status=0
for name in "${targets[@]}"; do
  exe="$build/fuzz/fuzz_$name"
  corpus="$build/corpus/$name" work="$build/seeds/$name" big="$build/stress/$name"
  artifacts="$build/artifacts/$name/" log="$build/logs/$name.log"
  rm -rf "$work" "$big"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  seeds "$name" "$work"
  stress "$name" "$big"
  committed=()
  for d in tests/fuzz/seeds/$name tests/fuzz/regressions/$name; do [ -d "$d" ] && committed+=("$d"); done

  echo "== fuzz_$name: $(ls "$big" | wc -l) stress inputs of up to $max_len bytes"
  if ! nice -n 19 "$exe" "${limits[@]}" -artifact_prefix="$artifacts" "$big"/* > "$log.stress" 2>&1; then
    tail -20 "$log.stress" >&2
    echo "fuzz_$name: FINDING on a stress input (log $log.stress, artifacts in $artifacts)" >&2
    status=1
    continue
  fi

  before=$(find "$artifacts" -type f | wc -l)
  how=(-max_total_time="$seconds")
  [ -n "$runs" ] && how=(-runs="$runs")
  echo "== fuzz_$name: $([ -n "$runs" ] && echo "$runs runs" || echo "$seconds s")"
  start=$(date +%s)
  set +e
  dict=(-dict=tests/fuzz/json.dict)
  [ "$name" = onnx_import ] && dict=(-dict=tests/fuzz/onnx.dict)
  nice -n 19 "$exe" "${limits[@]}" "${how[@]}" "${dict[@]}" -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" "$work" "${committed[@]}" > "$log" 2>&1
  rc=$?
  set -e
  wall=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  files=$(find "$corpus" -type f | wc -l)
  size=$(du -sk "$corpus" | cut -f1)
  findings=$(( $(find "$artifacts" -type f | wc -l) - before ))
  echo "fuzz_$name: ${execs:-?} execs in ${wall} s, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}," \
       "corpus $files files (${size} KB), findings $findings (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|^fuzz:|Test unit written' "$log" | head -10 >&2 || true
    status=1
  fi
done
exit $status
