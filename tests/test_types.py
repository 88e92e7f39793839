"""The packages type-check: ``mypy`` with the settings of pyproject.toml ([tool.mypy]).

``ten_env`` and ``agents`` ship ``py.typed``, so a user's type checker reads their annotations:
they must be true. mypy comes with the ``test`` extra, pinned to a minor version (a new one may
add checks).
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error_in_the_packages_nor_in_a_user_s_calls():
    """The packages, then tests/data/typed_usage.py: a user's first calls, each inferred type asserted
    (the packages found on MYPYPATH, as a checker finds them installed; an editable install's import
    hook is invisible to mypy)."""
    for target in ([], [str(ROOT / "tests" / "data" / "typed_usage.py")]):
        done = subprocess.run([sys.executable, "-m", "mypy", *target], cwd=ROOT, capture_output=True, text=True,
                              timeout=600, env={**os.environ, "MYPYPATH": str(ROOT)})
        assert done.returncode == 0, f"mypy {' '.join(target)} (pyproject.toml's settings) says:\n{done.stdout}{done.stderr}"
        assert "no issues found in" in done.stdout
