#!/usr/bin/env python3
"""The array sweeps' specs (scripts/sweeps/photonic_{resnet50,bert_base}.json) set, in one comma-joined
--set, the card's fields and the energy coefficients of every GEMM entry (and piece) of its fitted models as
configs/published_dota.py derives them from photonic.json: the spec's key and rows must be what that script
prints today, or the sweep's points fail (a --set path that names an entry's pieces the config no longer has).

  array_sweep_specs_test.py PROJECT_DIR
"""
import json
import subprocess
import sys

root = sys.argv[1]
printed = subprocess.run([sys.executable, f"{root}/configs/published_dota.py"], check=True, capture_output=True,
                         text=True).stdout
key, rows = json.loads("{" + printed + "}").popitem()
failed = False
for name in ("photonic_resnet50", "photonic_bert_base"):
    with open(f"{root}/scripts/sweeps/{name}.json") as f:
        spec = json.load(f)["set"]
    if spec.get(key) != rows:
        print(f"array_sweep_specs_test: scripts/sweeps/{name}.json: its card row set is not what "
              "`python3 configs/published_dota.py` prints for photonic.json today; paste that output into the spec")
        failed = True
sys.exit(1 if failed else 0)
