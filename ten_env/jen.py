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
    """What she looks at. ``first_to_bid``, ``rival_wealth`` and the bids matter only in an
    auction (outside one the engine leaves the wealth and the bids at 0). The bids she may make, from
    ``lowest_bid`` to ``highest_bid``, are the game's to say (the minimum bid, above the
    high bid, within her wealth and the bid cap): none when the lowest is above the
    highest. A named tuple: the engine builds one for every decision of hers, hundreds
    of thousands in a search."""

    phase: str  # "draw", "auction", "buy", "final_buy", "bust"
    level: int
    net_total: int
    can_draw: bool
    first_to_bid: bool
    rival_wealth: int
    lowest_bid: int
    highest_bid: int


def decide(view: JenView) -> int:
    """The action id JEN takes in the situation ``view`` describes."""
    if view.phase == "draw":
        if view.can_draw and view.net_total < view.level:
            return DRAW
        return STOP_NUMBERS
    if view.phase == "auction":
        # First to bid, nobody has bid yet; after others, the lowest bid allowed is one more
        # than the high bid, or the minimum bid when everybody passed.
        wanted = max(view.lowest_bid, view.rival_wealth) if view.first_to_bid else view.lowest_bid
        bid = min(wanted, view.highest_bid)
        return BID_BASE + bid if bid >= view.lowest_bid else PASS
    return PASS  # she never buys
