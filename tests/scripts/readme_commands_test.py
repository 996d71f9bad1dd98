"""readme_commands_test.py SRC BUILD WORK: the README's commands against the built tools, so that the README
cannot drift from the code.

Every command the README shows (a code-block line, or an inline `...` span, that starts with lightsim,
lightsim-graph, lightsim-profile, lightsim-calibrate, build/sim/... or scripts/...) is one of:
- a synopsis (it has placeholders: [optional], a|b, ..., NAME) or a mention in the text (an inline span,
  often a fragment such as `lightsim --fuse vllm`): every --option it names must be one that the tool's
  --help lists;
- runnable: it runs in WORK, in the README's order (later commands read what earlier ones wrote: llama.json,
  r50.json), with configs/, scripts/ and tests/ of SRC and build/ of BUILD linked in, and must exit 0;
- expensive: on the list below with the reason; only its options are checked, as for a synopsis.
Every --set example (an inline `unit.field=value`) must be taken by some shipped config.
It is not a test of what the commands print: the figures the README quotes come from the benchmarks and
scripts it names."""

import os
import re
import shlex
import subprocess
import sys

SRC, BUILD, WORK = sys.argv[1:4]
TOOLS = ("lightsim", "lightsim-graph", "lightsim-profile", "lightsim-calibrate")

# Commands that take minutes or need what CI does not have; each is matched by its start.
EXPENSIVE = {
    "scripts/setup.sh": "installs packages (CI runs it before this test)",
    "scripts/test.sh": "is the test suite itself",
    "cmake ": "the build this test runs in",
    "build/sim/lightsim-graph --model llama2-70b": "Llama-2-70B: minutes of replay per run",
    "build/sim/lightsim --hw configs/photonic.json --graph l70.json": "Llama-2-70B: minutes per run",
    "lightsim-graph --model llama2-70b": "Llama-2-70B (a benchmark figure)",
    "scripts/effect_table.py": "22 runs of the shared models (ctest Scripts.EffectTable runs it on a cut)",
    "scripts/sweep.sh scripts/sweeps/": "hundreds of points (ctest Scripts.Sweep* run the sweep)",
    "scripts/accelerator_study.py": "runs ResNet-50 and BERT-base on three cards, twice each",
    "scripts/photonic_study.py": "runs ResNet-50 and BERT-base on three machines, twice each",
    "scripts/fuzz.sh": "the fuzz smoke of scripts/test.sh",
    "scripts/fidelity.py": "times real kernels on this CPU for minutes",
    "scripts/fidelity_gpu.py": "needs a CUDA GPU",
    "scripts/tensor_parallel.py": "16 runs of Llama-2-7B shards (tests/cli/tensor_parallel_test.cc runs two)",
    "lightsim-profile --unit gpu": "needs a CUDA GPU",
    "scripts/bench_sweep.sh": "1000 points (ctest Scripts.BenchSweepShort runs 45)",
    "lightsim-graph --model resnet50 --batch 256": "a benchmark figure",
}


def commands():
    """(line number, text) of every command in README.md, in order."""
    found = []
    start = re.compile(r"^(build/sim/[a-z-]+|scripts/[\w.]+|(%s))(\s|$)" % "|".join(map(re.escape, TOOLS)))
    for number, line in enumerate(open(os.path.join(SRC, "README.md")), 1):
        if line.startswith("    ") and not line.startswith("     "):
            for part in line.strip().split(" && "):
                part = part.split("  #")[0].strip()
                if start.match(part) or part.startswith("cmake "):
                    found.append((number, part))
        else:
            for span in re.findall(r"`([^`]+)`", line):
                if start.match(span) and " " in span:
                    found.append((-number, span))  # a mention: negative line number
    return found


def is_synopsis(text):
    return bool(re.search(r"[\[\]|]|\.\.\.|\b[A-Z]{1,}[A-Z_]*\b", text))


def tool_of(text):
    word = text.split()[0]
    if word.startswith("build/sim/"):
        word = word[len("build/sim/"):]
    return word if word in TOOLS else None


_help = {}


def help_text(tool):
    """--help of a tool of build/sim, or of a script (scripts/NAME)."""
    if tool not in _help:
        if tool.startswith("scripts/"):
            interpreter = "/usr/bin/python3" if tool.endswith(".py") else "bash"
            argv = [interpreter, os.path.join(SRC, tool), "--help"]
        else:
            argv = [os.path.join(BUILD, "sim", tool), "--help"]
        _help[tool] = subprocess.run(argv, capture_output=True, text=True).stdout
    return _help[tool]


failures = []


def check_options(number, text):
    if text.startswith("cmake "):
        return  # not a tool of this project
    tool = tool_of(text) or (text.split()[0] if text.startswith("scripts/") else None)
    if tool is None or not os.path.exists(os.path.join(SRC, tool) if tool.startswith("scripts/") else SRC):
        failures.append(f"README.md:{number}: no such tool or script: {text}")
        return
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text):
        if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(option), help_text(tool)):
            failures.append(f"README.md:{number}: {tool} has no option {option}: {text}")


def run(number, text):
    tool = tool_of(text)
    argv = shlex.split(text)
    if tool:
        argv[0] = os.path.join("build", "sim", tool)
    elif argv[0].startswith("scripts/"):
        argv[0] = os.path.join(SRC, argv[0])
    try:
        r = subprocess.run(argv, cwd=WORK, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        failures.append(f"README.md:{number}: took over 300 s: {text}")
        return
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        failures.append(f"README.md:{number}: exit {r.returncode}: {text}: {last}")


def set_examples():
    """(line number, KEY=VALUE) of every --set example the README shows as an inline span."""
    found = []
    for number, line in enumerate(open(os.path.join(SRC, "README.md")), 1):
        for span in re.findall(r"`([^`\s]+)`", line):
            if re.fullmatch(r"[a-z][\w-]*(\.[\w-]+)+=[^=]+", span):
                found.append((number, span))
    return found


def check_set_example(number, assignment):
    """Some shipped config takes the override (the examples name units of different configs)."""
    graph = os.path.join(SRC, "tests", "data", "mlp2.json")
    configs = sorted(f for f in os.listdir(os.path.join(SRC, "configs")) if f.endswith(".json"))
    errors = []
    for config in configs:
        r = subprocess.run([os.path.join(BUILD, "sim", "lightsim"), "--hw", os.path.join(SRC, "configs", config),
                            "--graph", graph, "--set", assignment, "--json"], capture_output=True, text=True)
        if r.returncode == 0:
            return
        errors.append(r.stderr.strip())
    failures.append(f"README.md:{number}: no shipped config takes --set {assignment}: {errors[0]}")


def main():
    os.makedirs(WORK, exist_ok=True)
    for name in ("configs", "scripts", "tests"):
        link = os.path.join(WORK, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(SRC, name), link)
    if not os.path.lexists(os.path.join(WORK, "build")):
        os.symlink(BUILD, os.path.join(WORK, "build"))
    ran = synopses = skipped = 0
    for number, text in commands():
        if number < 0:  # a mention in the text
            check_options(-number, text)
            synopses += 1
            continue
        reason = next((why for prefix, why in EXPENSIVE.items() if text.startswith(prefix)), None)
        if reason or is_synopsis(text):
            check_options(number, text)
            if reason:
                skipped += 1
            else:
                synopses += 1
            continue
        check_options(number, text)
        run(number, text)
        ran += 1
    examples = set_examples()
    for number, assignment in examples:
        check_set_example(number, assignment)
    print(f"README --set examples: {len(examples)} checked against the shipped configs")
    print(f"README commands: {ran} run, {synopses} synopses and mentions checked against --help, {skipped} expensive "
          f"(options checked)")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if ran < 5:
        print(f"FAIL: only {ran} README commands ran (the parser lost them?)", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
