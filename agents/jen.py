"""``JenAgent``: JEN, the rulebook's solitaire opponent, as a player for any seat.

Her decisions come from :func:`ten_env.jen.decide`, the same function the engine
uses to play her in the solitaire game; this agent only gathers what she looks
at from the snapshot. In a normal game she plays the normal rules (she can bust
on numbers) with her habits: draw until the net total reaches her level, take
the numbers, never buy, and bid as she does (bidding first, she offers the
richest other player's money, or the minimum bid; after others, one more than
the high bid). When paying by hand she pays coins, then bust tokens, then
duplicates, then other cards.
"""

from __future__ import annotations

import numpy as np

from ten_env import jen, payment
from ten_env.actions import FIRST_PAY_CARD, PAY_BUST, PAY_COIN, STOP_CURRENCY, STOP_NUMBERS
from ten_env.rules import JEN_LEVELS, auction_duplicates_only, first_bidder, is_jen_level

from .base import Agent, bid_range, hand_counts, observation_parts, snapshot_of, wealth


class JenAgent(Agent):
    def __init__(self, level: int = 4):
        if not is_jen_level(level):  # not 7.0, nor True
            raise ValueError(f"JEN's level must be an integer from {JEN_LEVELS[0]} to {JEN_LEVELS[-1]}, got {level!r}")
        self.level = int(level)
        self.name = f"jen:{level}"

    def __repr__(self) -> str:
        return f"JenAgent({self.level})"

    def view(self, snapshot: dict, mask: np.ndarray) -> jen.JenView:
        """What JEN looks at, read from a snapshot in which she is to act and its action mask
        (the bids she may make)."""
        seat, n = snapshot["current_player"], snapshot["num_players"]
        duplicates_only = auction_duplicates_only(snapshot["jen_level"])  # her rival's wealth matters in auctions only
        players = snapshot["players"]
        lowest, highest = bid_range(mask)
        return jen.JenView(
            phase=snapshot["phase"],
            level=self.level,
            net_total=snapshot["net_total"],
            can_draw=snapshot["deck_size"] > 0,
            first_to_bid=first_bidder(snapshot["active_player"], n) == seat,
            rival_wealth=max(wealth(p, duplicates_only) for s, p in enumerate(players) if s != seat),
            lowest_bid=lowest,
            highest_bid=highest,
        )

    def act(self, observation: dict, info: dict) -> int:
        snapshot = snapshot_of(info)
        _, mask = observation_parts(observation, info, self.name)
        if snapshot["phase"] == "pay":
            return _pay_like_jen(snapshot)
        action = jen.decide(self.view(snapshot, mask))
        if mask[action]:
            return action
        # Normal rules can forbid her choice: no number card to take at the end of the
        # deck (her bids come off the mask). Then the nearest legal habit.
        for fallback in (STOP_NUMBERS, STOP_CURRENCY):
            if mask[fallback]:
                return fallback
        return int(np.flatnonzero(mask)[0])  # pass (buy, auction) or draw


def _pay_like_jen(snapshot: dict) -> int:
    """Her payment order, from :func:`ten_env.payment.jen_next`, as an action id."""
    me = snapshot["players"][snapshot["current_player"]]
    what = payment.jen_next(me["coins"], me["bust_tokens"], hand_counts(me),
                            duplicates_only=snapshot["payment"]["duplicates_only"])
    if what == "coin":
        return PAY_COIN
    if what == "bust":
        return PAY_BUST
    return FIRST_PAY_CARD + what
