#!/usr/bin/env bash
# effect_table_test.sh SRC LIGHTSIM WORK: scripts/effect_table.py end to end on the shared models (skipped,
# exit 77, when ../shared/models is absent, unless LIGHTSIM_REQUIRE_SHARED=1): one row per (config, graph,
# fusion mode, latency hiding), every run placed, timed and replayed, no load stage at work with latency hiding
# off, the same ops with it off and on, and never a longer makespan with it on, predicted or replayed, for
# these graphs (their weights fit: nothing streams).
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
SHARED=${LIGHTSIM_SHARED_DIR:+$LIGHTSIM_SHARED_DIR/models}
SHARED=${SHARED:-$(dirname "$SRC")/shared/models}
if [ ! -f "$SHARED/gpt2_prefill_5.json" ]; then
  [ "${LIGHTSIM_REQUIRE_SHARED:-0}" = 1 ] && fail "no shared models in $SHARED"
  echo "skipped: no shared models in $SHARED"
  exit 77
fi
BUILD=$(dirname "$(dirname "$LIGHTSIM")")
$PY "$SRC/scripts/effect_table.py" --build "$BUILD" --out "$WORK" --shared "$SHARED" > "$WORK/table.md"
check "a Markdown table" grep -q '^| config | graph | fusion | latency hiding |' "$WORK/table.md"
check "the rows" $PY - "$WORK/effect.csv" "$LIGHTSIM" <<'PYEOF'
import csv, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fusion = "--fuse" in subprocess.run([sys.argv[2], "--help"], capture_output=True, text=True).stdout
modes = 4 if fusion else 1  # none, tvm, flash, vllm
assert len(rows) == 2 * 6 * modes * 2, len(rows)
pairs = {}
for r in rows:
    assert float(r["makespan ms"]) > 0 and float(r["energy J"]) > 0 and int(r["ops"]) > 0, r
    assert float(r["replay makespan ms"]) > 0 and float(r["replay energy J"]) > 0, r
    hidden, stalled = (float(x) for x in r["replay loads hidden / stalled ms"].split(" / "))
    assert hidden >= 0 and stalled >= 0, r
    if r["latency hiding"] == "off":
        assert hidden == 0 and stalled == 0, r  # no load stage without latency hiding
    pairs.setdefault((r["config"], r["graph"], r["fusion"]), {})[r["latency hiding"]] = r
for key, p in pairs.items():
    assert p["off"]["ops"] == p["on"]["ops"], key
    assert float(p["on"]["makespan ms"]) <= float(p["off"]["makespan ms"]) * 1.0001, key
    assert float(p["on"]["replay makespan ms"]) <= float(p["off"]["replay makespan ms"]) * 1.0001, key
PYEOF
echo "ok"
