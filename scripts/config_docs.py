#!/usr/bin/env python3
"""Keeps the key tables of configs/README.md what the loader reads: every block between

    <!-- BEGIN GENERATED: lightsim --describe-config WHAT --markdown -->
    ...
    <!-- END GENERATED -->

is the output of that command (the field tables in the code, ir/hardware/fields.h). Without options the blocks
are rewritten in place; with --check nothing is written and the exit status is 1 when a block differs (ctest
Configs.ReferenceTablesCurrent), naming it. Prose between the blocks (sources and reasons of the shipped
values) is left alone. Standard library only.

  scripts/config_docs.py [--build build] [--readme configs/README.md] [--check]
"""
import os
import re
import subprocess
import sys
import script_args

BLOCK = re.compile(r"(<!-- BEGIN GENERATED: lightsim --describe-config (\S+) --markdown -->\n)(.*?)(<!-- END GENERATED -->)",
                   re.S)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = script_args.parser(__doc__)
    ap.add_argument("--build", default=os.path.join(root, "build"), help="build folder holding sim/lightsim")
    ap.add_argument("--readme", default=os.path.join(root, "configs", "README.md"), help="the file to update")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 when a block is out of date")
    args = ap.parse_args()
    lightsim = os.path.join(args.build, "sim", "lightsim")
    with open(args.readme, encoding="utf-8") as f:
        text = f.read()
    stale = []

    def regenerate(m):
        what = m.group(2)
        out = subprocess.run([lightsim, "--describe-config", what, "--markdown"], check=True, capture_output=True,
                             text=True).stdout
        if out != m.group(3):
            stale.append(what)
        return m.group(1) + out + m.group(4)

    new = BLOCK.sub(regenerate, text)
    if not BLOCK.search(text):
        sys.exit(f"config_docs.py: {args.readme} has no generated block")
    if args.check:
        if stale:
            print(f"config_docs.py: {args.readme}: out of date: {', '.join(stale)}; run scripts/config_docs.py")
            sys.exit(1)
        print(f"config_docs.py: {len(BLOCK.findall(text))} generated blocks current")
        return
    if new != text:
        tmp = args.readme + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, args.readme)
    print(f"config_docs.py: rewrote {len(stale)} of {len(BLOCK.findall(text))} blocks")


if __name__ == "__main__":
    main()
