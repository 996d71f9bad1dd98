#!/usr/bin/python3
"""check_native_odr.py BUILD_DIR: no inline code compiled with two sets of flags ends up in one binary.

The profiler's kernels are compiled with -march=native (sim/profile/CMakeLists.txt), everything else without.
An inline function or template instantiation is emitted as a weak (COMDAT) symbol in every object that uses
it, and the linker keeps ONE copy per binary: if a native object and a generic object of the same binary
both define it, the binary silently runs one of the two builds for both callers (a one-definition-rule
violation: AVX-512 code where generic code was meant, or Eigen objects laid out for another alignment).

For every executable and shared library of a Ninja build (ninja -t targets / -t query), this gathers the
objects it links (its own, and those of the static libraries it links), classifies each object as native or
not from compile_commands.json, and fails when a weak symbol (nm types W, V, u) is defined both by a native
and by a non-native object of the same binary. A shared library built from native objects must also export
no weak symbol (nm -D), so that no other binary's copy can take the place of its own at load time.
Prints one line per binary checked, and the first offending symbols of each failure; exit 1 on any.
"""
import json
import os
import shlex
import subprocess
import sys

WEAK = {"W", "V", "u"}


def ninja(build, *args):
    return subprocess.run(["ninja", "-C", build, "-t", *args], capture_output=True, text=True,
                          check=True).stdout


def query_inputs(build, output):
    """The explicit and implicit inputs of the edge that builds `output` (order-only ones left out)."""
    text = ninja(build, "query", output)
    inputs, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if line.startswith("  input:"):
            section = "input"
            continue
        if line.startswith("  outputs:"):
            section = None
            continue
        if section == "input" and not stripped.startswith("||"):  # "|| x": order-only, not linked
            inputs.append(stripped.lstrip("| ").strip())
    return [i for i in inputs if i]


def weak_symbols(path, cache, dynamic=False):
    """Weak symbols `path` defines; DW.ref.* (a pointer to the C++ personality routine, the same bytes in
    every object) left out."""
    key = (path, dynamic)
    if key not in cache:
        if not os.path.exists(path):
            sys.exit(f"check_native_odr: {path} is not built (build everything first)")
        cmd = ["nm", "--defined-only", "-P"] + (["-D"] if dynamic else []) + [path]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        cache[key] = {f[0] for f in (line.split() for line in out.splitlines())
                      if len(f) >= 2 and f[1] in WEAK and not f[0].startswith("DW.ref.")}
    return cache[key]


def demangle(symbols):
    out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    native = {}
    for c in commands:
        args = c["arguments"] if "arguments" in c else shlex.split(c["command"])
        obj = args[args.index("-o") + 1] if "-o" in args else c.get("output")
        if obj:
            native[os.path.normpath(os.path.join(c["directory"], obj))] = "-march=native" in args
    if not any(native.values()):
        print("check_native_odr: no object is compiled with -march=native; nothing to check")
        return 0

    binaries = []
    for line in ninja(build, "targets", "all").splitlines():
        path, _, rule = line.rpartition(": ")
        if ("_EXECUTABLE_LINKER_" in rule or "_SHARED_LIBRARY_LINKER_" in rule or "_MODULE_LIBRARY_LINKER_" in rule):
            binaries.append(path)

    cache, failures, checked = {}, 0, 0
    for binary in sorted(binaries):
        objects = []
        for i in query_inputs(build, binary):
            full = os.path.normpath(os.path.join(build, i))
            if i.endswith(".a"):
                objects += [os.path.normpath(os.path.join(build, o)) for o in query_inputs(build, i) if o.endswith(".o")]
            elif i.endswith(".o"):
                objects.append(full)
        kinds = {o: native.get(o) for o in objects}
        native_objs = [o for o, n in kinds.items() if n]
        if not native_objs:
            continue
        checked += 1
        generic_objs = [o for o, n in kinds.items() if n is False]
        in_native = set().union(*(weak_symbols(o, cache) for o in native_objs))
        in_generic = set().union(*(weak_symbols(o, cache) for o in generic_objs)) if generic_objs else set()
        both = sorted(in_native & in_generic)
        exported = []
        if binary.endswith(".so") or ".so." in binary:
            exported = sorted(weak_symbols(os.path.join(build, binary), cache, dynamic=True))
        status = "FAIL" if both or exported else "ok"
        print(f"check_native_odr: {status} {binary}: {len(native_objs)} native and {len(generic_objs)} other "
              f"objects, {len(both)} inline symbols defined by both, {len(exported)} weak symbols exported")
        for s in demangle(both[:8]):
            print(f"    in both: {s[:160]}")
        for s in demangle(exported[:8]):
            print(f"    exported: {s[:160]}")
        failures += bool(both or exported)
    if checked == 0:
        print("check_native_odr: FAIL: native objects exist but no binary links them (is the build complete?)")
        return 1
    print(f"check_native_odr: {checked} binaries with native code, {failures} with inline code from two flag sets")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
