"""Paying a price: what a player spends, as pure functions over plain numbers.

A price comes from a buy (the card's number) or a won auction (the bid). A player
pays with coins (1 each), bust tokens (3 each; no change is given) and cards
from their collection (1 each). In the solitaire game's auctions only
duplicates count as money: a player's last copy of a card never goes.

Nothing here touches a game: each function takes a hand (counts per card id,
see :mod:`ten_env.cards`), coins and bust tokens, and says what to spend. The
engine applies the answer; JEN's payments, automatic payment and the scripted
agents' cost estimates all come from here, so each payment rule is written once.
RULES.md ("Automatic payment", "Her payments") describes them in words.
"""

from __future__ import annotations

from typing import NamedTuple

from . import cards as C
from .scoring import score_counts, used_in_best

BUST_TOKEN_VALUE = 3


class Payment(NamedTuple):
    """What a payer spends: coins, bust tokens, and card ids (one entry per copy)."""

    coins: int = 0
    bust_tokens: int = 0
    cards: tuple[int, ...] = ()


def wealth(coins: int, bust_tokens: int, hand, duplicates_only: bool = False) -> int:
    """What a player can pay: coins, bust tokens at 3, and cards at 1 each
    (only the extra copies when ``duplicates_only``)."""
    cards = sum(k - 1 for k in hand if k > 1) if duplicates_only else sum(hand)
    return coins + BUST_TOKEN_VALUE * bust_tokens + cards


def automatic(hand, coins: int, bust_tokens: int, price: int, incoming: int,
              duplicates_only: bool = False) -> Payment:
    """How automatic payment pays ``price`` for the card ``incoming``.

    Without giving up score where that is possible: idle duplicates first (every
    extra copy of a number card; an extra wildcard only if no best arrangement
    uses it), then coins, then bust tokens with the least waste, then cards one
    by one: one that no best arrangement needs, else the one whose loss costs the
    least score now. Every judgement is made with ``incoming`` already in hand.
    With ``duplicates_only`` (solitaire auctions) a last copy is never spent.
    The caller makes sure the player can pay.
    """
    hand = list(hand)
    hand[incoming] += 1  # judged with the card being bought already in hand
    spent: list[int] = []
    due = price
    if any(hand[c] > 1 for c in range(C.NUM_NUMBER_CARDS, C.NUM_OWNABLE)):
        used = used_in_best(hand)  # wildcard copies can both score: ask the arrangement
    else:
        used = [min(k, 1) for k in hand]  # a number card counts once, so extra copies idle
    for card in range(C.NUM_OWNABLE):
        k = hand[card]
        if k > 1 and due:
            idle = min(k - 1, k - used[card], k - (card == incoming), due)
            if idle > 0:
                spent += [card] * idle
                hand[card] -= idle
                due -= idle
    if not due:
        return Payment(0, 0, tuple(spent))
    use_tokens = min(bust_tokens, max(0, -(-(due - coins) // BUST_TOKEN_VALUE)))
    use_coins = min(coins, max(0, due - BUST_TOKEN_VALUE * use_tokens))
    due -= use_coins + BUST_TOKEN_VALUE * use_tokens
    keep = 1 if duplicates_only else 0
    while due > 0:
        spendable = [max(0, hand[c] - (c == incoming) - keep) for c in range(C.NUM_OWNABLE)]
        if due >= sum(spendable):  # every card that may go goes: nothing to choose
            spent += C.expand(spendable)
            break
        used = used_in_best(hand)  # stays a best arrangement while only unused cards go
        spares = [c for c in range(C.NUM_OWNABLE) for _ in range(min(spendable[c], hand[c] - used[c]))]
        for card in spares[:due] or [least_loss(hand, spendable)]:
            spent.append(card)
            hand[card] -= 1
            due -= 1
    return Payment(use_coins, use_tokens, tuple(spent))


def least_loss(hand, spendable) -> int:
    """The card (lowest id among equals) whose loss lowers the score of ``hand`` the least."""
    hand = list(hand)
    before = score_counts(hand)
    best, best_loss = None, None
    for card in range(C.NUM_OWNABLE):
        if spendable[card]:
            hand[card] -= 1
            loss = before - score_counts(hand)
            hand[card] += 1
            if best is None or loss < best_loss:
                best, best_loss = card, loss
                if not loss:
                    break  # nothing costs less than nothing
    return best


def jen_next(coins: int, bust_tokens: int, hand, duplicates_only: bool = True) -> int | str:
    """What JEN pays with next: ``"coin"``, ``"bust"`` (a token) or a card id.

    Her order is fixed: coins, then bust tokens (even when one wastes money), then
    duplicates; in a normal game, where every card is money, then her other cards.
    """
    if coins:
        return "coin"
    if bust_tokens:
        return "bust"
    for card, k in enumerate(hand):
        if k > 1:
            return card
    if not duplicates_only:
        for card, k in enumerate(hand):
            if k:
                return card
    raise ValueError("JEN has nothing left to pay with")


def jen(hand, coins: int, bust_tokens: int, price: int, duplicates_only: bool = True) -> Payment:
    """How JEN pays ``price``, item by item in her order (:func:`jen_next`)."""
    hand = list(hand)
    spent: list[int] = []
    paid_coins = paid_tokens = 0
    due = price
    while due > 0:
        what = jen_next(coins - paid_coins, bust_tokens - paid_tokens, hand, duplicates_only)
        if what == "coin":
            paid_coins += 1
            due -= 1
        elif what == "bust":
            paid_tokens += 1
            due -= BUST_TOKEN_VALUE
        else:
            spent.append(what)
            hand[what] -= 1
            due -= 1
    return Payment(paid_coins, paid_tokens, tuple(spent))
