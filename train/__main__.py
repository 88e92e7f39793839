"""``python -m train CONFIG.yaml``: the same as ``ten train CONFIG.yaml``."""

import argparse
import sys

from .cli import _run_safely, add_train_arguments

parser = argparse.ArgumentParser(prog="python -m train", description="Train an agent from a config file.")
add_train_arguments(parser)
sys.exit(_run_safely(parser.parse_args(), prog=parser.prog))
