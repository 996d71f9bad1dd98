#!/usr/bin/env bash
# atomic_output_test.sh SRC LIGHTSIM WORK: scripts/atomic_output.py, the scripts' one way of writing a file:
# a completed block renames its temporary over the target; a failing block leaves the old target as it was
# and no temporary; the temporary keeps the target's suffix (so matplotlib picks the format from it).
SRC=$1 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
check "atomic_path and write_atomic" $PY - "$SRC/scripts" "$WORK" <<'PYEOF'
import os, sys
sys.path.insert(0, sys.argv[1])
from atomic_output import atomic_path, write_atomic
work = sys.argv[2]
target = os.path.join(work, "table.md")
write_atomic(target, "old\n")
assert open(target).read() == "old\n"
try:
    with atomic_path(target) as tmp:
        assert os.path.dirname(tmp) == work and tmp.endswith(".md") and ".tmp." in tmp, tmp
        with open(tmp, "w") as f:
            f.write("half")
        raise RuntimeError("killed mid-write")
except RuntimeError:
    pass
assert open(target).read() == "old\n", "a failed write changed the target"
assert os.listdir(work) == ["table.md"], os.listdir(work)
write_atomic(target, "new\n")
assert open(target).read() == "new\n" and os.listdir(work) == ["table.md"]
PYEOF
echo "atomic_output: ok"
