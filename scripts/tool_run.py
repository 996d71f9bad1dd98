"""run(cmd): runs one command of the Python scripts (lightsim, lightsim-graph) and returns its stdout; when it
fails, the script ends with one line naming the script, the command, its exit status and its stderr.

It is not a sweep runner (scripts/sweep.sh runs the points of a sweep) and does not find the executables."""

import os
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        script = os.path.basename(sys.argv[0])
        sys.exit(f"{script}: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout
