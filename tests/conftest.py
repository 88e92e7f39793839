"""Shared test settings.

Hypothesis (``test_properties.py``) runs derandomized, always, not only where ``CI`` is set: every
run, on every machine and in a fresh clone with no ``.hypothesis`` database, draws the same
examples (from a hash of each test), as the rest of the suite plays seeded games. A failure so
reproduces on the next run and on any other machine, and a pass means the same checks passed, not
that a new draw happened to miss a fault. Each test keeps its own ``max_examples`` and
``deadline`` (its ``@settings``). To draw new examples on purpose, run
``python -m pytest tests/test_properties.py --hypothesis-profile=explore``.
"""

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("deterministic")
