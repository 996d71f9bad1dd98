"""Atomic output files for the Python scripts: the counterpart of sim/io/atomic_file.h, and the one way every
script writes a file (sweep plans and results, fidelity tables and plots, trace plots, generated configs).

atomic_path(path) yields a temporary path beside `path` ("<stem>.tmp.<pid><suffix>": same directory, so the
rename cannot cross file systems; the suffix kept, so matplotlib and h5py see the format they expect). When
the block succeeds the temporary is renamed over `path`; when it fails the temporary is removed, so `path`
is either complete or untouched. Leftovers of a killed process contain ".tmp." and are safe to delete.

It is not a file format and does not decide where files go."""

import contextlib
import os


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


def savefig_atomic(fig, path, **kwargs):
    """matplotlib's Figure.savefig, atomically."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, **kwargs)
