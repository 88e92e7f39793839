"""The agent of the value-ensemble screen (docs/research.md, "A value ensemble: a screen").

``search:ppo-jen-tuned-j9:256`` with one change: a leaf's value is the mean of three networks'
values (``ppo-jen-tuned-j9``, ``ppo-jen-tuned-outcome`` and the candidate ``tuned-j10.zip``, all
three on the search's scale), where the search took ``ppo-jen-tuned-j9``'s alone. The prior is
still ``ppo-jen-tuned-j9``'s policy. Honest as the search is: every network sees only the
observation. Played by name from the repository root, as any agent of yours::

    ten eval results/candidates/value_ensemble.py:make --levels 9 --games 1000 --seed 477000 --jobs 2

It did not pass its screen (-0.2 points, -2.6 to +2.2, against a bar of +1), so the search has no
such option; this file is kept so that the screen can be played again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents import PolicyAgent, SearchAgent

HERE = Path(__file__).resolve().parent
BUDGET = 256


class ValueEnsemble:
    """The model a :class:`agents.SearchAgent` asks: ``prior``'s probabilities, and the mean of
    its value and ``others``' values."""

    def __init__(self, prior: PolicyAgent, others: list[PolicyAgent]):
        self.prior, self.others = prior, others
        self.name = "+".join(model.name for model in (prior, *others))

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probs, value = self.prior.evaluate(observations, masks)
        values = [value] + [model.evaluate(observations, masks)[1] for model in self.others]
        return probs, np.mean(values, axis=0)


def make() -> SearchAgent:
    models = [PolicyAgent.pretrained("ppo-jen-tuned-j9"), PolicyAgent.pretrained("ppo-jen-tuned-outcome"),
              PolicyAgent(str(HERE / "tuned-j10.zip"))]
    return SearchAgent(budget=BUDGET, model=ValueEnsemble(models[0], models[1:]),  # type: ignore[arg-type]
                       name=f"search:ensemble3:{BUDGET}")
