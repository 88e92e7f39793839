"""The packages type-check: ``mypy`` with the settings of pyproject.toml ([tool.mypy]).

``ten_env`` and ``agents`` ship ``py.typed``, so a user's type checker reads their annotations:
they must be true. mypy comes with the ``test`` extra, pinned to a minor version (a new one may
add checks).
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error_in_the_packages():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mypy (the settings of pyproject.toml) says:\n{done.stdout}{done.stderr}"
    assert "no issues found in" in done.stdout
