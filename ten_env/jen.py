"""JEN's decisions: the scripted opponent of the rulebook's solitaire game.

One pure function serves both the engine (which plays JEN itself in the
solitaire game) and any agent that wants to play like her in a normal game, so
her behaviour is written down once. The caller gathers the few numbers she looks
at into a :class:`JenView`.

How she plays:
- she draws until the net total of the tableau reaches her level, then takes the
  number cards; she never takes the currency and never buys;
- bidding first in an auction (nobody has acted before her), she offers the
  wealth of her rival (coins, bust tokens at 3, and the cards that are money in an
  auction: duplicates in the solitaire game, any card at a normal table) or the minimum
  bid if that is higher, as far as she can pay; below the minimum she passes;
- bidding after others, she offers one more than the high bid, or the minimum
  bid when everybody passed, as far as she can pay;
- she pays with coins, then bust tokens, then duplicate cards (then, in a normal
  game where any card is money, other cards): :func:`ten_env.payment.jen_next`.
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import BID_BASE, DRAW, PASS, STOP_NUMBERS


class JenView(NamedTuple):
    """What she looks at. ``first_to_bid``, the wealths and the bids matter only in an
    auction (the engine leaves the wealths at 0 elsewhere). A named tuple: the engine
    builds one for every decision of hers, hundreds of thousands in a search."""

    phase: str  # "draw", "auction", "buy", "final_buy", "bust"
    level: int = 10
    net_total: int = 0
    can_draw: bool = True
    first_to_bid: bool = False
    rival_wealth: int = 0
    own_wealth: int = 0
    high_bid: int = 0
    min_bid: int = 1
    max_bid: int = 40


def decide(view: JenView) -> int:
    """The action id JEN takes in the situation ``view`` describes."""
    if view.phase == "draw":
        if view.can_draw and view.net_total < view.level:
            return DRAW
        return STOP_NUMBERS
    if view.phase == "auction":
        if view.first_to_bid:
            wanted = max(view.min_bid, view.rival_wealth)
        else:
            wanted = view.high_bid + 1 if view.high_bid else view.min_bid
        bid = min(wanted, view.own_wealth, view.max_bid)
        if bid < view.min_bid or bid <= view.high_bid:
            return PASS
        return BID_BASE + bid
    return PASS  # she never buys
