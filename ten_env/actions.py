"""The action table: stable names and ids, the same in every state.

========================  =================  ==========================================
id                        name               meaning
========================  =================  ==========================================
0                         ``draw``           draw the top card of the deck
1                         ``stop_numbers``   stop; take the number cards in the tableau
2                         ``stop_currency``  stop; take the currency in the tableau
3                         ``pass``           decline: no bid, no buy, or (busting
                                             variant) take the bust token, not a buy
4-39                      ``buy_B1``..       buy that number card from the market
                          ``buy_P9``         (id = 4 + card id)
40                        ``pay_coin``       manual payment: one coin
41                        ``pay_bust``       manual payment: one bust token (worth 3)
42-91                     ``pay_B1``..       manual payment: discard one of your cards
                          ``pay_W#``         (id = 42 + card id)
92..91+max_bid            ``bid_1``..        bid N in an auction (id = 91 + N)
========================  =================  ==========================================

Bids come last so that every other id is the same whatever ``max_bid`` is.
"""

from __future__ import annotations

import operator
from typing import Any, SupportsIndex, TypeGuard

import numpy as np

from . import cards as C

DRAW, STOP_NUMBERS, STOP_CURRENCY, PASS = 0, 1, 2, 3
FIRST_BUY = 4
PAY_COIN = FIRST_BUY + C.NUM_NUMBER_CARDS  # 40
PAY_BUST = PAY_COIN + 1
FIRST_PAY_CARD = PAY_BUST + 1  # 42
BID_BASE = FIRST_PAY_CARD + C.NUM_OWNABLE - 1  # 91: bid_N has id BID_BASE + N


def action_names(max_bid: int) -> tuple[str, ...]:
    """Every action name, indexed by id."""
    names = ["draw", "stop_numbers", "stop_currency", "pass"]
    names += ["buy_" + C.NAMES[c] for c in range(C.NUM_NUMBER_CARDS)]
    names += ["pay_coin", "pay_bust"]
    names += ["pay_" + C.NAMES[c] for c in range(C.NUM_OWNABLE)]
    names += [f"bid_{n}" for n in range(1, max_bid + 1)]
    return tuple(names)


def num_actions(max_bid: int) -> int:
    return BID_BASE + 1 + max_bid


def max_bid_for(n_actions: int) -> int:
    """The ``max_bid`` of a game with ``n_actions`` actions (the inverse of :func:`num_actions`)."""
    return n_actions - BID_BASE - 1


def is_index(value: Any) -> TypeGuard[SupportsIndex]:
    """Whether ``value`` is a whole number that can index (an int, a NumPy integer or a 0-d integer
    array), not a bool (Python's or NumPy's, each an integer to ``int``): an action id, a seat, a
    card id, a count."""
    if isinstance(value, (bool, np.bool_)):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def as_action_id(action: object, n_actions: int) -> int | None:
    """``action`` as a plain int if it is an action id of an action space of ``n_actions``: an int,
    a NumPy integer or a 0-d integer array from 0 to ``n_actions - 1`` (what a policy or
    ``action_space.sample()`` gives); ``None`` for anything else (a bool, a float, a one-element
    array, an id out of range), which the envs refuse rather than read as a move."""
    if not is_index(action):
        return None
    action = operator.index(action)
    return action if 0 <= action < n_actions else None
