"""The command line of the Python scripts in scripts/: argparse, with the script's whole docstring as the
text of --help (exit 0, nothing written) and a bad argument as one line on stderr,
`<script>: error: <what> (see --help)`, with exit status 2, as the C++ tools do.

It is not where a script's options are declared: each script adds its own to the parser it gets here."""

import argparse
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        sys.exit(2)


def parser(doc):
    """An ArgumentParser whose --help prints `doc` (the calling script's __doc__) as written."""
    return _Parser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
