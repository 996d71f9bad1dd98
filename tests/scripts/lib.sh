# Helpers for the script tests (sourced). Each test gets: SRC (checkout), LIGHTSIM (built binary), WORK
# (a fresh directory of its own).
set -euo pipefail
PY=/usr/bin/python3

fail() { echo "FAIL: $*" >&2; exit 1; }
check() { # check "what" COND...
  local what=$1; shift
  "$@" || fail "$what"
}

# The 12-point spec of the tests: 2 example graphs x 3 PCIe lane counts of the photonic card's link x
# 2 objectives.
make_spec() {
  cat > "$1" <<JSON
{
  "hw": "$SRC/configs/photonic.json",
  "graphs": ["$SRC/tests/data/mlp2.json", "$SRC/tests/data/transformer_block.json"],
  "objective": ["time", "energy"],
  "set": {"links.pcie-phu.lanes": [1, 4, 16]}
}
JSON
}

count_results() {
  local n
  n=$(find "$1/results" -name '*.json' 2>/dev/null | wc -l) || true
  echo "$n"
}
count_executed() { grep -c '^point ' "$1/executed.log" 2>/dev/null || true; }
csv_rows() { echo $(( $(wc -l < "$1") - 1 )); }

# Equal /sweep datasets in two HDF5 files.
same_h5() {
  $PY - "$1" "$2" <<'PYEOF'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r")["sweep"][()] for p in sys.argv[1:3])
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and all(
    np.array_equal(a[n], b[n], equal_nan=a.dtype[n].kind == "f") for n in a.dtype.names) else 1)
PYEOF
}
