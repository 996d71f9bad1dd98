#!/usr/bin/env bash
# sweep_resume_test.sh SRC LIGHTSIM WORK: a 12-point sweep end to end; the same sweep killed (SIGKILL to
# every process of its session, GNU parallel and running points included) after some points, then re-run:
# only the missing points execute and the merged table equals the uninterrupted run's. Also: a truncated
# result is redone, a failing point leaves the others merged (exit 1), a bad spec is exit 2.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM
rm -rf "$WORK" && mkdir -p "$WORK"
make_spec "$WORK/spec.json"
sweep="$SRC/scripts/sweep.sh"

echo "== uninterrupted"
"$sweep" "$WORK/spec.json" --out "$WORK/full" --jobs 2
check "12 rows in the full table" [ "$(csv_rows "$WORK/full/sweep.csv")" -eq 12 ]
check "12 executions" [ "$(count_executed "$WORK/full")" -eq 12 ]
# The parameter axes vary in spec order and the numbers are there.
check "first row" grep -q '^0,mlp2.json,time,1,[0-9]' "$WORK/full/sweep.csv"
check "last row" grep -q '^11,transformer_block.json,energy,16,[0-9]' "$WORK/full/sweep.csv"

echo "== killed"
# A slow machine: the sweep runs its points as `lightsim --batch LIST` (sim/cli/batch.h); this runs such a
# list one line at a time, each run taking 0.4 s longer: its tag (the journal line) printed, a pause, then
# the line without its tag.
cat > "$WORK/slow_lightsim" <<SLOW
#!/bin/bash
[ "\$1" = --batch ] || exec "$LIGHTSIM" "\$@"
status=0
while IFS=\$'\t' read -r args out err tag; do
  echo "\$tag"
  sleep 0.4
  printf '%s\t%s\t%s\n' "\$args" "\$out" "\$err" > "\$2.one.\$\$"
  "$LIGHTSIM" --batch "\$2.one.\$\$" || status=1
done < "\$2"
exit \$status
SLOW
chmod +x "$WORK/slow_lightsim"
LIGHTSIM="$WORK/slow_lightsim" setsid "$sweep" "$WORK/spec.json" --out "$WORK/resumed" --jobs 2 &
pid=$!
for _ in $(seq 600); do
  # at least 4 results, and a point half-way (started, no result yet)
  r=$(count_results "$WORK/resumed")
  [ "$r" -ge 4 ] && [ "$(count_executed "$WORK/resumed")" -gt "$r" ] && break
  sleep 0.05
done
# Everything in the sweep's session dies at once, like a lost machine: the script, GNU parallel and the
# running points (which parallel puts in process groups of their own).
kill -KILL $(ps -o pid= -s "$pid") 2>/dev/null || true
wait "$pid" 2>/dev/null || true
sleep 0.5 # let killed children go
done_before=$(count_results "$WORK/resumed")
ran_before=$(count_executed "$WORK/resumed")
echo "killed with $done_before results after $ran_before started points"
check "killed in the middle" [ "$done_before" -ge 4 ] && [ "$done_before" -lt 12 ]
check "a point was killed half-way" [ "$ran_before" -gt "$done_before" ]
check "no table from a killed sweep" [ ! -e "$WORK/resumed/sweep.csv" ]
ls "$WORK/resumed/results" | sed 's/\.json$//' | sort > "$WORK/done_before.txt"

echo "== resumed"
"$sweep" "$WORK/spec.json" --out "$WORK/resumed" --jobs 2
ran_after=$(count_executed "$WORK/resumed")
echo "re-run executed $((ran_after - ran_before)) points"
check "re-run executes exactly the missing points" [ $((ran_after - ran_before)) -eq $((12 - done_before)) ]
tail -n $((ran_after - ran_before)) "$WORK/resumed/executed.log" | sed 's/^point //' | sort > "$WORK/ran_again.txt"
check "no finished point ran again" [ -z "$(comm -12 "$WORK/done_before.txt" "$WORK/ran_again.txt")" ]
check "resumed CSV equals the uninterrupted one" cmp "$WORK/full/sweep.csv" "$WORK/resumed/sweep.csv"
check "resumed HDF5 table equals the uninterrupted one" same_h5 "$WORK/full/sweep.h5" "$WORK/resumed/sweep.h5"
check "no temporary files left" [ -z "$(find "$WORK/resumed" -name '*.tmp.*')" ]

echo "== complete sweep re-run executes nothing"
"$sweep" "$WORK/spec.json" --out "$WORK/resumed" --jobs 2
check "nothing re-executed" [ "$(count_executed "$WORK/resumed")" -eq "$ran_after" ]

echo "== a truncated result is redone"
victim=$(ls "$WORK/resumed/results" | head -1)
head -c 40 "$WORK/resumed/results/$victim" > "$WORK/cut" && mv "$WORK/cut" "$WORK/resumed/results/$victim"
"$sweep" "$WORK/spec.json" --out "$WORK/resumed" --jobs 2
check "one point redone" [ "$(count_executed "$WORK/resumed")" -eq $((ran_after + 1)) ]
check "table still equal" cmp "$WORK/full/sweep.csv" "$WORK/resumed/sweep.csv"

echo "== a failing point"
sed 's/\[1, 4, 16\]/[4, 0]/' "$WORK/spec.json" > "$WORK/bad_value.json"
status=0
"$sweep" "$WORK/bad_value.json" --out "$WORK/bad_value" --jobs 2 2> "$WORK/bad_value.err" || status=$?
check "exit 1 when a point fails" [ "$status" -eq 1 ]
check "the valid points are merged" [ "$(csv_rows "$WORK/bad_value/sweep.csv")" -eq 4 ]
check "the error names the --set" grep -q -- '--set links.pcie-phu.lanes=0' "$WORK/bad_value.err"

echo "== a bad spec"
echo '{"hw": "/nonexistent.json", "graphs": []}' > "$WORK/bad_spec.json"
status=0
"$sweep" "$WORK/bad_spec.json" --out "$WORK/bad_spec" 2> "$WORK/bad_spec.err" || status=$?
check "exit 2 on a bad spec" [ "$status" -eq 2 ]
check "one line naming the file" [ "$(wc -l < "$WORK/bad_spec.err")" -eq 1 ] && grep -q nonexistent.json "$WORK/bad_spec.err"
echo PASS
