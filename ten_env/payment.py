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

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NamedTuple

from . import cards as C
from .scoring import colour_losses, score_counts, used_in_best

BUST_TOKEN_VALUE = 3


def price(card: int) -> int:
    """What a number card of the market costs: its number."""
    return C.number(card)


MAX_PRICE = max(map(price, range(C.NUM_NUMBER_CARDS)))  # the dearest card a market can hold


class Payment(NamedTuple):
    """What a payer spends: coins, bust tokens, and card ids (one entry per copy)."""

    coins: int = 0
    bust_tokens: int = 0
    cards: tuple[int, ...] = ()


def wealth(coins: int, bust_tokens: int, hand: Iterable[int], duplicates_only: bool = False) -> int:
    """What a player can pay: coins, bust tokens at 3, and cards at 1 each
    (only the extra copies when ``duplicates_only``)."""
    cards = sum(k - 1 for k in hand if k > 1) if duplicates_only else sum(hand)
    return coins + BUST_TOKEN_VALUE * bust_tokens + cards


def automatic(hand: Iterable[int], coins: int, bust_tokens: int, price: int, incoming: int,
              duplicates_only: bool = False, last: bool = False) -> Payment:
    """How automatic payment pays ``price`` for the card ``incoming``.

    Without giving up score where that is possible: idle duplicates first (every
    extra copy of a number card; an extra wildcard only if the best arrangement
    leaves it out), then coins, then bust tokens with the least waste, then cards:
    those the best arrangement leaves out, else the one whose loss costs the least
    score now, the rest judged again on the hand that is left. "The best arrangement" is the one
    :func:`ten_env.scoring.used_in_best` counts, which RULES.md describes, when a
    hand has several. Every judgement is made with ``incoming`` already in hand.
    With ``duplicates_only`` (solitaire auctions) a last copy is never spent, counted
    in ``hand`` as it was: a copy of ``incoming`` already held is not money either.
    ``last`` (the final buy, after which the hand never changes) spends the cards the best
    arrangement leaves out right after the idle duplicates, before coins and tokens: they
    score nothing now or later, and money, then fewer cards, break ties.
    The caller makes sure the player can pay.
    """
    hand = list(hand)
    hand[incoming] += 1  # judged with the card being bought already in hand
    held = [c for c in range(C.NUM_OWNABLE) if hand[c]]
    spent: list[int] = []
    due = price
    keep = 1 if duplicates_only else 0  # a last copy of the hand as it was, before the incoming card
    if any(hand[c] > 1 for c in held if c >= C.NUM_NUMBER_CARDS):
        used = used_in_best(hand)  # wildcard copies can both score: ask the arrangement
    else:
        used = None  # a number card counts once, so extra copies idle
    for card in held:
        k = hand[card]
        if k > 1 and due:
            idle = min(k - 1, k - (used[card] if used else 1), k - (card == incoming) - keep, due)
            if idle > 0:
                spent += [card] * idle
                hand[card] -= idle
                due -= idle
    if last and due:
        for card in _left_out(hand, held, incoming, keep)[:due]:
            spent.append(card)
            hand[card] -= 1
            due -= 1
    if not due:
        return Payment(0, 0, tuple(spent))
    use_tokens = min(bust_tokens, max(0, -(-(due - coins) // BUST_TOKEN_VALUE)))
    use_coins = min(coins, max(0, due - BUST_TOKEN_VALUE * use_tokens))
    due -= use_coins + BUST_TOKEN_VALUE * use_tokens
    spendable = {}  # the cards that may go: never the incoming card, nor a last copy when keeping one
    for card in held:
        k = hand[card] - (card == incoming) - keep
        if k > 0:
            spendable[card] = k
    left, cards = sum(spendable.values()), sum(hand)
    while due > 0:
        if due >= left:  # every card that may go goes: nothing to choose
            for card, k in spendable.items():
                spent += [card] * k
            break
        if cards <= 9 and score_counts(hand) == cards:
            # Every card of a small hand scores, so every best arrangement uses them all.
            chosen = [least_loss(hand, spendable, before=cards)]
        else:
            # all of them at once: the arrangement stays a best one while only unused cards go
            chosen = _left_out(hand, held, incoming, keep)[:due] or [least_loss(hand, spendable)]
        for card in chosen:
            spent.append(card)
            hand[card] -= 1
            spendable[card] -= 1
            if not spendable[card]:
                del spendable[card]
            due -= 1
            left -= 1
            cards -= 1
    return Payment(use_coins, use_tokens, tuple(spent))


def _left_out(hand: Sequence[int], held: Iterable[int], incoming: int, keep: int) -> list[int]:
    """The cards of ``hand`` that its best arrangement (:func:`used_in_best`) leaves out and that
    may be spent (never ``incoming``, nor ``keep`` copies of each), one entry a copy, the lowest first."""
    used = used_in_best(hand)
    return [card for card in held
            for _ in range(max(0, min(hand[card] - used[card], hand[card] - (card == incoming) - keep)))]


def least_loss(hand: Iterable[int], spendable: Mapping[int, int], before: int | None = None) -> int:
    """The card (lowest id among equals) whose loss lowers the score of ``hand`` the least.

    ``spendable`` holds the cards that may go, as a ``{card: count}`` mapping.
    ``before``, if known, is the hand's score.
    """
    candidates = sorted(c for c, k in spendable.items() if k > 0)
    if not candidates:
        raise ValueError(f"least_loss: spendable names no card to spend (a count above 0), got {dict(spendable)!r}")
    hand = list(hand)
    if not any(hand[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD]) and not hand[C.SUPER_WILD]:
        return _least_loss_by_colour(hand, candidates)
    if before is None:
        before = score_counts(hand)
    # With every card of a hand of at most 9 in a run (no complete colour), each loss is at
    # least 1: fewer than 9 cards never score more than their number.
    floor = int(before == sum(hand) <= 9)
    best, best_loss = candidates[0], math.inf
    for card in candidates:
        hand[card] -= 1
        loss = before - score_counts(hand)
        hand[card] += 1
        if loss < best_loss:
            best, best_loss = card, loss
            if loss <= floor:
                break  # nothing costs less
    return best


def _least_loss_by_colour(hand: Sequence[int], candidates: Sequence[int]) -> int:
    """:func:`least_loss` when no wildcard is shared between colours: each colour on its own."""
    best, best_loss = candidates[0], math.inf
    for card, loss in colour_losses(hand, candidates):
        if loss < best_loss:
            best, best_loss = card, loss
            if not loss:
                break
    return best


def jen_next(coins: int, bust_tokens: int, hand: Sequence[int],
             duplicates_only: bool = True) -> int | Literal["coin", "bust"]:
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


def jen(hand: Iterable[int], coins: int, bust_tokens: int, price: int) -> Payment:
    """How JEN pays ``price`` at her own table, the solitaire game (so only duplicates are money),
    item by item in her order (:func:`jen_next`)."""
    hand = list(hand)
    spent: list[int] = []
    paid_coins = paid_tokens = 0
    due = price
    while due > 0:
        what = jen_next(coins - paid_coins, bust_tokens - paid_tokens, hand, duplicates_only=True)
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
