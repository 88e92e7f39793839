"""The ``ten`` console script: a Ctrl-C while the command is still loading ends it as quietly
as one during its run (:func:`train.options.run_command`), with status 130 and no traceback.

It imports nothing of its own before the guard: loading NumPy, the engine and the argument
parser takes about half a second, a window in which an early Ctrl-C used to print one.
"""

import sys


def main() -> int:
    try:
        from .cli import main as ten

        return ten()
    except KeyboardInterrupt:  # what run_command does not see: the loading and the parsing
        print("\nten: interrupted", file=sys.stderr)
        return 130
