"""``HeuristicAgent``: a competent scripted player, the yardstick above JEN.

It prices everything in points of final score:
- a collection is worth its score, plus a little for every distinct card held
  (future runs) and for duplicates (they pay for things);
- a coin is worth ``COIN_VALUE`` points early on, falling towards the end of the
  deck, when money only breaks ties;
- drawing is a one-card lookahead with the exact odds of the cards left in the
  deck: for each card it could draw, the value of then stopping (or of busting),
  weighted by how many copies are left; it draws when that beats stopping now;
- a wildcard or a market card is worth what it adds to the collection; it bids
  (the lowest legal bid) or buys when that beats the money it costs, spending
  only what it can pay with coins, bust tokens and duplicates.
"""

from __future__ import annotations

import numpy as np

from ten_env import cards as C
from ten_env import payment
from ten_env.actions import (
    BID_BASE,
    DRAW,
    FIRST_BUY,
    PASS,
    STOP_CURRENCY,
    STOP_NUMBERS,
)
from ten_env.game import bust_by, coins_after, totals_after
from ten_env.payment import BUST_TOKEN_VALUE
from ten_env.scoring import score_counts

from .base import Agent, automatic_payment_move, bid_range, hand_counts, observation_parts, snapshot_of, wealth

COIN_VALUE = 0.35  # points a coin is worth with most of the deck to come
DISTINCT_BONUS = 0.35  # a card type held for the first time: future runs
DUPLICATE_BONUS = 0.15  # an extra copy: it can pay one currency
WILD_BONUS = 0.6  # wildcards stay flexible until the end
END_OF_GAME_DECK = 30  # below this many cards left, money loses value


def worth(hand: list[int]) -> float:
    """Points a collection is worth: its score plus its promise."""
    bonus = 0.0
    for card, k in enumerate(hand):
        if k:
            bonus += (WILD_BONUS if card >= C.NUM_NUMBER_CARDS else DISTINCT_BONUS) + DUPLICATE_BONUS * (k - 1)
    return score_counts(hand) + bonus


class HeuristicAgent(Agent):
    name = "heuristic"

    def act(self, observation: dict, info: dict) -> int:
        snap = snapshot_of(info)
        _, mask = observation_parts(observation, info, self.name)
        seat = snap["current_player"]
        me = snap["players"][seat]
        hand = hand_counts(me)
        coin = COIN_VALUE * min(1.0, snap["deck_size"] / END_OF_GAME_DECK) + 0.02
        phase = snap["phase"]
        if phase == "draw":
            return self._draw_or_stop(snap, me, hand, mask, coin)
        if phase == "auction":
            return self._bid(snap, me, hand, mask, coin)
        if phase == "pay":
            return self._pay(snap, me, hand)
        return self._buy(snap, me, hand, mask, coin)

    # ------------------------------------------------------------------ draw phase

    def _draw_or_stop(self, snap: dict, me: dict, hand: list[int], mask: np.ndarray, coin: float) -> int:
        if not (mask[STOP_NUMBERS] or mask[STOP_CURRENCY]):
            return DRAW
        numbers = [card for card in map(C.parse, snap["tableau"]) if C.is_number(card)]
        currency = snap["currency_total"]
        net = snap["net_total"]
        others = snap["num_players"] - 1
        base = worth(hand)
        number_cache: dict[int | None, float] = {}

        def take_numbers(extra: int | None) -> float:
            if extra not in number_cache:
                new = list(hand)
                for card in numbers + ([extra] if extra is not None else []):
                    new[card] += 1
                number_cache[extra] = worth(new) - base
            return number_cache[extra]

        def stop_value(extra_number: int | None, cur: int, legal_n: bool, legal_c: bool) -> float:
            # Giving coins to the others matters less the more of them there are.
            give = cur * coin / max(1, others) ** 0.5
            options = []
            if legal_n:
                options.append(take_numbers(extra_number) - give)
            if legal_c:
                options.append((coins_after(me["coins"], cur) - me["coins"]) * coin)
            return max(options)

        stops = {}
        if mask[STOP_NUMBERS]:
            stops[STOP_NUMBERS] = stop_value(None, currency, True, False)
        if mask[STOP_CURRENCY]:
            stops[STOP_CURRENCY] = stop_value(None, currency, False, True)
        best_stop = max(stops, key=stops.__getitem__)
        now = stops[best_stop]
        if not mask[DRAW]:
            return best_stop
        deck = snap["deck"]
        total = sum(deck.values())
        expected = 0.0
        for name, count in deck.items():
            card = C.parse(name)
            bust = bust_by(net, currency, card)
            if C.is_wild(card):
                value = now
            elif bust == "numbers":
                value = BUST_TOKEN_VALUE * coin - currency * coin / max(1, others) ** 0.5
            elif bust == "currency":
                value = BUST_TOKEN_VALUE * coin
            elif C.is_number(card):
                value = stop_value(card, currency, True, currency > 0)
            else:
                value = stop_value(None, totals_after(net, currency, card)[1], bool(numbers), True)
            expected += count * value
        return DRAW if expected / total > now else best_stop

    # ------------------------------------------------------------------ auctions and buys

    def _bid(self, snap: dict, me: dict, hand: list[int], mask: np.ndarray, coin: float) -> int:
        lowest, highest = bid_range(mask)
        if lowest > highest:
            return PASS
        wild = C.parse(snap["auction"]["card"])
        new = list(hand)
        new[wild] += 1
        gain = worth(new) - worth(hand)
        if lowest <= wealth(me, duplicates_only=True) and lowest * coin < gain:
            return BID_BASE + lowest
        return PASS

    def _buy(self, snap: dict, me: dict, hand: list[int], mask: np.ndarray, coin: float) -> int:
        money = wealth(me, duplicates_only=True)
        base = worth(hand)
        best, best_gain = PASS, 0.0
        if snap["phase"] == "bust":
            best_gain = BUST_TOKEN_VALUE * coin  # passing takes the bust token
        for action in np.flatnonzero(mask[FIRST_BUY : FIRST_BUY + C.NUM_NUMBER_CARDS]):
            card = int(action)
            price = payment.price(card)
            if price > money:
                continue
            new = list(hand)
            new[card] += 1
            gain = worth(new) - base - price * coin
            if gain > best_gain:
                best, best_gain = FIRST_BUY + card, gain
        return best

    # ------------------------------------------------------------------ manual payment

    def _pay(self, snap: dict, me: dict, hand: list[int]) -> int:
        """Pay as automatic payment would (:func:`ten_env.payment.automatic`), one item at a time:
        a bust token first (the plan's waste is already counted), then cards, then coins."""
        owed = snap["payment"]
        return automatic_payment_move(hand, me["coins"], me["bust_tokens"], owed["remaining"], C.parse(owed["card"]),
                                      owed["duplicates_only"], final_buy=owed["for"] == "final_buy")
