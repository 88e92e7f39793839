"""``python -m train CONFIG.yaml``: the same as ``ten train CONFIG.yaml``."""

import sys

try:  # as train.entry does for ten: a Ctrl-C while loading ends quietly too
    from .cli import _run_safely, add_train_arguments
    from .options import Parser

    parser = Parser(prog="python -m train", description="Train an agent from a config file.")
    add_train_arguments(parser)
    args = parser.parse_args()
except KeyboardInterrupt:
    print("\npython -m train: interrupted", file=sys.stderr)
    sys.exit(130)
sys.exit(_run_safely(args, prog=parser.prog))
