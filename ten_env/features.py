"""Derived features: facts a player works out from the observation, given to a network ready-made.

Everything here is a function of one observation vector (:mod:`ten_env.observation`)
and the rules, so it adds no information; it saves a network from having to learn
arithmetic an MLP does badly: the odds that the next draw busts (a sum over the
deck's counts with a threshold set by the tableau's total), and what one more card
of each kind would add to a player's score (the longest runs, wildcards placed
where they help most). A network trained on the search's decisions with them wins
about a point more at JEN 8 than the same recipe without them (see docs/research.md,
"Distilling the search into a network").

The environments' observations are unchanged. A model whose observation has
``EXTENDED_SIZE`` floats takes :func:`extend` of the environment's observation;
:class:`agents.PolicyAgent` does that itself. ``ten distill train --features`` makes such a
model, and ``ten train`` trains one with ``train.derived_features: true`` (through
:class:`DerivedFeatures`). The pieces, declared once in ``PIECES``:

{table}
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np

from . import cards as C
from . import observation as O
from .game import bust_by, totals_after
from .scoring import gains, hand_key, score_counts

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

GAIN_SCALE = 10  # a card adds at most 10 to a score (it completes a 1-9 run)

# (name, size, meaning, (low, high))
PIECES = (
    ("bust_numbers", 1, "chance that the next card drawn busts the tableau on numbers "
     "(as if its player could bust: JEN cannot)", (0, 1)),
    ("bust_currency", 1, "chance that the next card drawn busts the tableau on currency", (0, 1)),
    ("wildcard", 1, "chance that the next card drawn is a wildcard (an auction)", (0, 1)),
    ("bust_second", 1, "chance that the next card neither busts nor is a wildcard and the one after "
     "it busts", (0, 1)),
    ("safe", 1, "chance that the next card is a number or currency card that does not bust", (0, 1)),
    ("gain", C.NUM_OWNABLE, "what one more copy of each ownable card (B1..P9, W1..W9, B#..P#, W#) "
     f"would add to the observer's score / {GAIN_SCALE}", (0, 1)),
    ("rival_gain", C.NUM_OWNABLE, "the same for relative seat 1, the next player (JEN in the solitaire "
     "game)", (0, 1)),
    ("take_gain", 1, f"what taking the tableau's number cards would add to the observer's score / {GAIN_SCALE} "
     "(up to 4: a tableau of several cards can complete several colours)", (0, 4 * 10 / GAIN_SCALE)),
)

OFFSET, SIZE = {}, 0
for _name, _size, *_ in PIECES:
    OFFSET[_name], SIZE = SIZE, SIZE + _size
EXTENDED_SIZE = O.SIZE + SIZE  # an observation with the derived features appended


def piece(name: str) -> slice:
    """The slice of the derived features that holds piece ``name`` (see ``PIECES``)."""
    size = next(size for n, size, *_ in PIECES if n == name)
    return slice(OFFSET[name], OFFSET[name] + size)


__doc__ = __doc__.format(table=O.piece_table(PIECES, OFFSET, "index"))

_VALUE = np.array(C.NET_VALUE, dtype=np.float32)
_NUMBER = _VALUE > 0
_CURRENCY = _VALUE < 0
_DRAWN = np.flatnonzero(_NUMBER | _CURRENCY)
_DRAWN_IDS = _DRAWN.tolist()
_WILD = np.array([C.is_wild(c) for c in range(C.NUM_CARD_TYPES)])
_DECK, _TABLEAU = O.piece("deck"), O.piece("tableau")
_HAND = [slice(O.seat_block(k).start + O.SEAT["hand"], O.seat_block(k).start + O.SEAT["hand"] + C.NUM_OWNABLE)
         for k in (0, 1)]


_GAIN, _RIVAL_GAIN = piece("gain"), piece("rival_gain")


def space_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Bounds of an extended observation: the observation's, then the derived features'."""
    low, high = O.space_bounds()
    extra_low, extra_high = np.zeros(SIZE, dtype=np.float32), np.ones(SIZE, dtype=np.float32)
    for name, _, _, (lo, hi) in PIECES:
        extra_low[piece(name)], extra_high[piece(name)] = lo, hi
    return np.concatenate([low, extra_low]), np.concatenate([high, extra_high])


@lru_cache(maxsize=1 << 16)
def _gains(hand: bytes | tuple) -> np.ndarray:
    """What one more copy of each ownable card adds to the score of ``hand`` (counts per card, as
    :func:`ten_env.scoring.hand_key` gives them)."""
    out = np.array(gains(hand), dtype=np.float32)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=1024)
def _draw_tables(net: int, currency: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a tableau of these totals (560 pairs within the observation's bounds, 145 of them met in
    640 games of random play): per card type, whether drawing it busts (:func:`ten_env.game.bust_by`);
    per first card drawn (number or currency) and second, whether the second then busts; and that
    table's diagonal (the same card twice)."""
    busts = np.array([bust_by(net, currency, card) is not None for card in range(C.NUM_CARD_TYPES)])
    then = np.array([[bust_by(*totals_after(net, currency, first), second) is not None for second in _DRAWN_IDS]
                     for first in _DRAWN_IDS], dtype=np.float32)
    tables = busts, then, np.diagonal(then).copy()
    for table in tables:
        table.flags.writeable = False
    return tables


def _vectors(observations: ArrayLike | dict[str, Any], name: str) -> np.ndarray:
    """``observations`` as float32: vectors, or the AEC env's observation dict (its vector is taken)."""
    if isinstance(observations, dict):
        if "observation" not in observations:
            raise ValueError(f"{name} takes observation vectors or the AEC env's observation dict, got a dict with "
                             f"keys {sorted(map(str, observations))}")
        observations = observations["observation"]
    try:
        obs = np.asarray(observations, dtype=np.float32)
    except (TypeError, ValueError):
        raise ValueError(f"{name} takes observations of {O.SIZE} floats, one or a batch, "
                         f"got {type(observations).__name__}") from None
    if obs.shape[-1:] != (O.SIZE,) or obs.ndim not in (1, 2):
        raise ValueError(f"{name} takes observations of {O.SIZE} floats, one or a batch, got shape {obs.shape}")
    return obs


def derive(observations: ArrayLike | dict[str, Any]) -> np.ndarray:
    """The derived features of a batch of observations, shape (n, ``SIZE``) (or (``SIZE``,) for one).
    The AEC env's observation dict may be given as it is: its ``"observation"`` is used."""
    obs = _vectors(observations, "derive")
    single = obs.ndim == 1
    obs = obs.reshape(-1, O.SIZE)
    out = np.zeros((len(obs), SIZE), dtype=np.float32)
    deck = np.rint(obs[:, _DECK])
    size = np.maximum(deck.sum(1), 1)
    net = np.rint(obs[:, O.NET_TOTAL] * O.SCALE["net_total"]).astype(np.int64)
    currency = np.rint(obs[:, O.CURRENCY_TOTAL] * O.SCALE["currency_total"]).astype(np.int64)
    tables = [_draw_tables(n, c) for n, c in zip(net.tolist(), currency.tolist())]
    busts = np.stack([t[0] for t in tables])
    out[:, OFFSET["bust_numbers"]] = (deck * (busts & _NUMBER)).sum(1) / size
    out[:, OFFSET["bust_currency"]] = (deck * (busts & _CURRENCY)).sum(1) / size
    out[:, OFFSET["wildcard"]] = (deck * _WILD).sum(1) / size
    safe = (_NUMBER | _CURRENCY) & ~busts
    out[:, OFFSET["safe"]] = (deck * safe).sum(1) / size
    # The second draw, for every first card at once (only number and currency cards can come first
    # without ending the turn): whether each second card busts the tableau each first card leaves,
    # shape (rows, first, second), a function of the two totals alone.
    deck_drawn, first = deck[:, _DRAWN], (deck * safe)[:, _DRAWN]
    then = np.stack([t[1] for t in tables])
    # what is left once the first card is drawn: the deck less one copy of it
    left_busting = (then @ deck_drawn[:, :, None])[:, :, 0] - (first > 0) * np.stack([t[2] for t in tables])
    second = (first * left_busting).sum(1) / (size * np.maximum(size - 1, 1))
    out[:, OFFSET["bust_second"]] = second
    hands = [np.rint(obs[:, block]).astype(np.int64) for block in _HAND]
    tableau = np.rint(obs[:, _TABLEAU]).astype(np.int64)
    gain, rival_gain = _GAIN, _RIVAL_GAIN
    for i in range(len(obs)):
        mine = hand_key(hands[0][i].tolist())
        out[i, gain] = _gains(mine) / GAIN_SCALE
        out[i, rival_gain] = _gains(hand_key(hands[1][i].tolist())) / GAIN_SCALE
        if tableau[i].any():
            taken = list(mine)
            for card in np.flatnonzero(tableau[i]):
                taken[card] += int(tableau[i, card])
            out[i, OFFSET["take_gain"]] = (score_counts(taken) - score_counts(mine)) / GAIN_SCALE
    return out[0] if single else out


def extend(observations: ArrayLike | dict[str, Any]) -> np.ndarray:
    """The observations with their derived features appended: ``EXTENDED_SIZE`` floats each (of the
    AEC env's observation dict, its ``"observation"``)."""
    obs = _vectors(observations, "extend")
    return np.concatenate([obs, derive(obs)], axis=-1)


class DerivedFeatures(gymnasium.ObservationWrapper):
    """A Gymnasium env (``SoloEnv``, ``SingleAgentEnv``) whose observations carry the derived
    features after them: ``EXTENDED_SIZE`` floats, bounds from :func:`space_bounds`. The action
    masks (``action_masks()``, what MaskablePPO asks for) are the wrapped env's.

    ``DerivedFeatures(SoloEnv(jen_level=8))`` trains a model that takes them, which
    :class:`agents.PolicyAgent` then plays like any other.
    """

    def __init__(self, env: gymnasium.Env):
        if not isinstance(env, gymnasium.Env):
            raise ValueError(f"DerivedFeatures wraps a Gymnasium env (ten_env.SoloEnv, SingleAgentEnv), "
                             f"got a {type(env).__name__}")
        if getattr(env.observation_space, "shape", None) != (O.SIZE,):
            raise ValueError(f"DerivedFeatures wraps an env with ten_env's observations of {O.SIZE} floats, "
                             f"got observation space {env.observation_space}")
        super().__init__(env)
        low, high = space_bounds()
        self.observation_space = gymnasium.spaces.Box(low=low, high=high, dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return extend(observation)

    def action_masks(self) -> np.ndarray:
        # Through the wrappers in between, as sb3-contrib finds it, so that one narrowing the mask
        # (an ActionMasker under this one) is not skipped.
        return self.env.get_wrapper_attr("action_masks")()
