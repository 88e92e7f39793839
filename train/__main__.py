"""``python -m train CONFIG.yaml``: the same as ``ten train CONFIG.yaml``."""

import sys

from .cli import _run_safely, add_train_arguments
from .options import Parser

parser = Parser(prog="python -m train", description="Train an agent from a config file.")
add_train_arguments(parser)
sys.exit(_run_safely(parser.parse_args(), prog=parser.prog))
