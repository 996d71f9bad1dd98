"""Atomic output files for the Python scripts: the counterpart of sim/io/atomic_file.h, and the one way every
script writes a file (sweep plans and results, fidelity tables and plots, trace plots, generated configs).

atomic_path(path) yields a temporary path beside `path` ("<stem>.tmp.<pid><suffix>": same directory, so the
rename cannot cross file systems; the suffix kept, so matplotlib and h5py see the format they expect). When
the block succeeds the temporary is renamed over `path`; when it fails the temporary is removed, so `path`
is either complete or untouched. Leftovers of a killed process contain ".tmp." and are safe to delete.

It is not a file format and does not decide where files go."""

import contextlib
import os
import sys


@contextlib.contextmanager
def atomic_path(path):
    stem, suffix = os.path.splitext(os.fspath(path))
    tmp = f"{stem}.tmp.{os.getpid()}{suffix}"
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_atomic(path, text):
    """Writes `text` to `path` atomically."""
    with atomic_path(path) as tmp, open(tmp, "w") as f:
        f.write(text)


def write_or_check(path, text, script, check):
    """The generated-table scripts' last step: with `check`, compare `path` with `text` (exit status 1 and
    one line naming `script` when they differ, 0 when current); otherwise write it atomically. Returns the
    exit status."""
    name = os.path.basename(script)
    if check:
        with open(path) as f:
            if f.read() != text:
                print("%s: %s is not what the current build writes; run scripts/%s and commit" % (name, path, name),
                      file=sys.stderr)
                return 1
        print("%s: %s is current" % (name, path))
        return 0
    write_atomic(path, text)
    print("wrote %s" % path)
    return 0


def savefig_atomic(fig, path, **kwargs):
    """matplotlib's Figure.savefig, atomically."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, **kwargs)
