"""How to install an optional part of ten-env (an extra of ``pyproject.toml``): the hint the
"needs the training extra" and "needs Ray RLlib" errors give, for an installed package and for a
clone. (``ten bench`` names its peers' own package, ``pettingzoo[classic]``.)"""

from __future__ import annotations

#: The extras that bring torch, whose default build on Linux is a CUDA one of several GB.
WITH_TORCH = ("train", "rllib")


def install_hint(extra: str) -> str:
    """``pip install 'ten-env[train]' (in a clone: ...)``, with a word on torch where it comes in."""
    torch = "; without a GPU, a CPU build of torch first (README, Set-up)" if extra in WITH_TORCH else ""
    return f"pip install 'ten-env[{extra}]' (in a clone: pip install -e '.[{extra}]'{torch})"
