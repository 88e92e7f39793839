"""``Rules``: which game of TEN is played. Frozen and checked on creation."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .actions import is_index

PLAYER_COUNTS = range(2, 6)
JEN_LEVELS = range(4, 11)
MAX_BIDS = range(5, 201)
PAYMENTS = ("auto", "manual")
#: How the engine plays a game out, raised whenever the same rules, deck and moves would give
#: another game. 2: automatic payment at the final buy spends the cards that score nothing before
#: coins (RULES.md); nothing else changed, so only such games differ from 1's.
ENGINE_VERSION = 2

_T = TypeVar("_T")


def is_jen_level(level: object) -> bool:
    """Whether ``level`` is one of JEN's (4-10). ``Rules`` also takes ``None``, a normal game, which
    an env or agent that plays JEN must refuse."""
    return level is not None and is_index(level) and int(level) in JEN_LEVELS


def plays_as_engine_1(rules: dict) -> bool:
    """Whether a game under ``rules`` (a dict of :class:`Rules` fields) plays out as engine 1
    played it, step by step: a game with manual payment, at a normal table or against JEN."""
    return rules.get("payment", "auto") != "auto"


def ends_as_engine_1(rules: dict) -> bool:
    """Whether a game under ``rules`` ends as engine 1 ended it, given the same moves: the same
    scores, winners and decisions (an agent whose code changed may move otherwise). Besides the games that play out the same (:func:`plays_as_engine_1`), the solitaire
    game: its final buy may spend a card the best arrangement leaves out, where engine 1 spent
    coins, but that card scores nothing, a tie goes to JEN whatever the money, and the person's
    final buy is the game's last decision (JEN never buys)."""
    return plays_as_engine_1(rules) or rules.get("jen_level") is not None


@dataclass(frozen=True)
class Rules:
    """The settings of one game.

    Attributes:
        num_players: seats at the table, 2-5.
        bust_buy: the busting variant: after busting, a player may take a buy
            phase instead of the bust token.
        jen_level: ``None`` for a normal game, or 4-10 for the solitaire game
            against JEN (then ``num_players`` must be 2; seat 0 is the person,
            seat 1 is JEN, played by the engine).
        payment: ``"auto"``: the engine pays prices and winning bids by a fixed
            rule (see RULES.md); ``"manual"``: the payer picks each coin, bust
            token or card with ``pay_*`` actions.
        max_bid: the highest bid anyone may make; it fixes the number of
            ``bid_N`` actions. No bid is ever above what the bidder can pay.
        deck_file: path of a deck file, or ``None`` for the bundled deck.
    """

    num_players: int = 2
    bust_buy: bool = False
    jen_level: int | None = None
    payment: str = "auto"
    max_bid: int = 40
    deck_file: str | None = None

    def __post_init__(self) -> None:
        def plain(field: str, value: object) -> None:  # stored as Python's own type: records and reports are JSON
            object.__setattr__(self, field, value)

        plain("num_players", _check(self.num_players, int, "num_players",
                                    f"an integer from {PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]}", PLAYER_COUNTS))
        plain("bust_buy", _check(self.bust_buy, bool, "bust_buy", "True or False"))
        if self.jen_level is not None:
            plain("jen_level", _check(self.jen_level, int, "jen_level",
                                      f"None or an integer from {JEN_LEVELS[0]} to {JEN_LEVELS[-1]}", JEN_LEVELS))
            if self.num_players != 2:
                raise ValueError(
                    f"jen_level={self.jen_level} is the solitaire game, which needs "
                    f"num_players=2 (you and JEN), got num_players={self.num_players}"
                )
        if self.payment not in PAYMENTS:
            raise ValueError(f"payment must be 'auto' or 'manual', got {self.payment!r}")
        plain("max_bid", _check(self.max_bid, int, "max_bid", f"an integer from {MAX_BIDS[0]} to {MAX_BIDS[-1]}",
                                MAX_BIDS))
        if self.deck_file is not None:
            if not isinstance(self.deck_file, (str, Path)):
                raise ValueError(f"deck_file must be None or a path, got {self.deck_file!r}")
            object.__setattr__(self, "deck_file", str(self.deck_file))

    @property
    def solitaire(self) -> bool:
        return self.jen_level is not None

    @property
    def num_agents(self) -> int:
        """Seats that agents play: every seat, or only seat 0 in the solitaire game."""
        return 1 if self.solitaire else self.num_players

    @property
    def min_bid(self) -> int:
        """Lowest bid allowed: 5 in the solitaire game, else 1."""
        return 5 if self.solitaire else 1

    @property
    def auction_duplicates_only(self) -> bool:
        """Whether only duplicate cards are money in an auction: :func:`auction_duplicates_only`."""
        return auction_duplicates_only(self.jen_level)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


def as_rules(rules: Rules | Mapping[str, Any] | None) -> Rules:
    """``rules`` as a :class:`Rules`: a ``Rules``, a dict of its fields, or ``None`` (the defaults);
    ``ValueError`` naming what is wrong otherwise."""
    if rules is None:
        return Rules()
    if isinstance(rules, Mapping):
        unknown = sorted(map(str, set(rules) - set(Rules.field_names())))
        if unknown:
            raise ValueError(f"unknown rules field(s) {', '.join(unknown)}; allowed: {', '.join(Rules.field_names())}")
        return Rules(**rules)
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a ten_env.Rules or a dict of its fields, got {rules!r}")
    return rules


def auction_duplicates_only(jen_level: int | None) -> bool:
    """Whether only duplicate cards are money in an auction (what a bidder can bid and pay with):
    in the solitaire game (a JEN level is set), where a player's last copy of a card is never spent.
    A function of the level alone, so an agent can ask it of a snapshot without rebuilding ``Rules``."""
    return jen_level is not None


def first_bidder(active_player: int, num_players: int) -> int:
    """The seat that opens an auction: the one to the active player's left."""
    return (active_player + 1) % num_players


def _check(value: object, kind: Callable[[Any], _T], field: str, allowed: str,
           values: Container[_T] | None = None) -> _T:
    """``value`` as a plain ``kind`` (NumPy's integers and bools too, as a loop over ``np.arange``
    gives them), or ``ValueError`` naming the field and what is ``allowed``."""
    if kind is bool:
        ok = isinstance(value, (bool, np.bool_))
    else:  # a whole number, one that can index (not 7.0); a count given as True is a mistake, not a 1
        ok = is_index(value)
    if not ok or (values is not None and kind(value) not in values):
        raise ValueError(f"{field} must be {allowed}, got {value!r}")
    return kind(value)
