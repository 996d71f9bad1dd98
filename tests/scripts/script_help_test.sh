#!/usr/bin/env bash
# script_help_test.sh SRC LIGHTSIM WORK: `--help` of every script in scripts/ (each .py and .sh file with a
# #! line; the rest are modules the scripts import or source, and must be imported or sourced by one) exits
# 0, prints the script's whole first paragraph of documentation (its docstring or leading comment block: not
# one line cut off mid-sentence), prints nothing on stderr and writes no file: not in the directory it runs
# in, not under scripts/, tests/data/ or configs/.
SRC=$1 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK/cwd"

# The first paragraph of a script's documentation, whitespace collapsed.
first_paragraph() {
  $PY - "$1" <<'PYEOF'
import ast, re, sys
path = sys.argv[1]
text = open(path).read()
if path.endswith(".py"):
    doc = ast.get_docstring(ast.parse(text)) or ""
else:  # the comment block after the #! line
    lines = []
    for line in text.splitlines()[1:]:
        if not line.startswith("#"):
            break
        lines.append(line[1:])
    doc = "\n".join(lines)
para = re.split(r"\n\s*\n", doc.strip())[0]
print(" ".join(para.split()))
PYEOF
}

checked=0
for script in "$SRC"/scripts/*.py "$SRC"/scripts/*.sh; do
  name=$(basename "$script")
  if [ "$(head -c 2 "$script")" != "#!" ]; then # a module: some script must use it
    stem=${name%.*}
    check "$name (no #! line) is imported or sourced by a script" \
      grep -qE "^(from $stem import|import $stem|source .*$name)" -r "$SRC/scripts" --include='*.py' --include='*.sh'
    continue
  fi
  case "$name" in
    *.py) run=($PY "$script") ;;
    *.sh) run=(bash "$script") ;;
  esac
  touch "$WORK/stamp"
  sleep 0.01
  status=0
  (cd "$WORK/cwd" && "${run[@]}" --help > "$WORK/out.txt" 2> "$WORK/err.txt") || status=$?
  check "$name --help: exit 0 (got $status; stderr: $(head -c 300 "$WORK/err.txt"))" [ "$status" -eq 0 ]
  check "$name --help: nothing on stderr" [ ! -s "$WORK/err.txt" ]
  check "$name --help: wrote nothing in its directory" [ -z "$(ls -A "$WORK/cwd")" ]
  written=$(find "$SRC/scripts" "$SRC/tests/data" "$SRC/configs" -newer "$WORK/stamp" -print -quit)
  check "$name --help: wrote nothing in the checkout ($written)" [ -z "$written" ]
  para=$(first_paragraph "$script")
  check "$name has a first paragraph of documentation" [ "${#para}" -gt 20 ]
  printed=$(tr -s ' \n\t' '   ' < "$WORK/out.txt")
  check "$name --help prints its first paragraph whole: '$para'" grep -qF -- "$para" <<< "$printed"
  checked=$((checked + 1))
done
check "scripts checked ($checked)" [ "$checked" -ge 20 ]
echo "PASS ($checked scripts)"
