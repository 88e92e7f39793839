"""Automatic payment written from RULES.md's words ("Automatic payment"), to hold the engine to them.

Slow and plain on purpose: the arrangement is found by searching every hand-out of the shared
wildcards, afresh for every judgement of the hand. ``score()`` gives the totals;
tests/test_scoring.py holds it to a brute force of its own.
"""

from __future__ import annotations

import functools
from collections import Counter

from ten_env import score

COLOURS = "BGOP"
NUMBER_CARDS = [c + str(n) for c in COLOURS for n in range(1, 10)]
NUMBERED_WILDS = ["W" + str(n) for n in range(1, 10)]
COLOUR_WILDS = [c + "#" for c in COLOURS]
SUPER_WILD = "W#"
ORDER = NUMBER_CARDS + NUMBERED_WILDS + COLOUR_WILDS + [SUPER_WILD]  # "the lowest card first"
BUST_TOKEN = 3


@functools.lru_cache(maxsize=None)
def _run_with_fillers(bits: int, fillers: int) -> tuple[int, int]:
    """(lo, hi), 0-based, of the lowest-numbered longest run of the numbers ``bits`` with ``fillers``
    gaps to fill; (0, -1) for no run."""
    best, where = 0, (0, -1)
    for lo in range(9):
        for hi in range(lo, 9):
            gaps = sum(not bits >> n & 1 for n in range(lo, hi + 1))
            if gaps <= fillers and hi - lo + 1 > best:
                best, where = hi - lo + 1, (lo, hi)
    return where


def rules_arrangement(cards: list[str]) -> dict[str, int]:
    """How many copies of each card the best arrangement of ``cards`` uses, fixed as RULES.md
    ("Automatic payment") says when there are several: numbered and super wildcards handed out
    colour by colour, each colour taking, of those left whose number it lacks, the set that
    keeps the total best with the highest-numbered wildcard first, then as few super wildcards
    as keep it best; each colour's lowest-numbered longest run, colour wildcards filling gaps
    before super wildcards. The totals are searched here by brute force over those hand-outs."""
    held, colour_wilds = [0, 0, 0, 0], [0, 0, 0, 0]
    numbered, supers = [], 0
    for card in cards:
        if card in NUMBER_CARDS:
            held[COLOURS.index(card[0])] |= 1 << (int(card[1]) - 1)
        elif card in COLOUR_WILDS:
            colour_wilds[COLOURS.index(card[0])] += 1
        elif card == SUPER_WILD:
            supers += 1
        elif card in NUMBERED_WILDS:
            numbered.append(int(card[1]))

    def colour_score(colour, taken, t):
        bits = held[colour] | sum({1 << (n - 1) for n in taken})
        lo, hi = _run_with_fillers(bits, colour_wilds[colour] + t)
        return 10 if hi - lo == 8 else hi - lo + 1

    def choices(colour, left, supers_left):
        """Every (wildcards taken, supers taken) open to ``colour``: sub-multisets of ``left``."""
        useful = [n for n in left if not held[colour] >> (n - 1) & 1]
        sets = {tuple(sorted((useful[i] for i in range(len(useful)) if pick >> i & 1), reverse=True))
                for pick in range(1 << len(useful))}
        return [(taken, t) for taken in sets for t in range(supers_left + 1)]

    def rest(left, taken):
        left = list(left)
        for n in taken:
            left.remove(n)
        return tuple(left)

    memo = {}

    def best_from(colour, left, supers_left):
        if colour == 4:
            return 0
        key = colour, left, supers_left
        if key not in memo:
            memo[key] = max(colour_score(colour, taken, t) + best_from(colour + 1, rest(left, taken), supers_left - t)
                            for taken, t in choices(colour, left, supers_left))
        return memo[key]

    left, supers_left = tuple(sorted(numbered)), supers
    total = best_from(0, left, supers_left)
    assert total == score(cards), cards  # the hand-outs reach the best total (score() is held to a brute force)
    used: dict[str, int] = {}
    for colour in range(4):
        goal = best_from(colour, left, supers_left)
        taken, t = max(((taken, t) for taken, t in choices(colour, left, supers_left)
                        if colour_score(colour, taken, t) + best_from(colour + 1, rest(left, taken), supers_left - t)
                        == goal), key=lambda choice: (choice[0], -choice[1]))
        left, supers_left = rest(left, taken), supers_left - t
        bits = sum({1 << (n - 1) for n in taken})
        lo, hi = _run_with_fillers(held[colour] | bits, colour_wilds[colour] + t)
        gaps = 0
        for n in range(lo, hi + 1):
            if held[colour] >> n & 1:
                name = COLOURS[colour] + str(n + 1)
            elif bits >> n & 1:
                name = "W" + str(n + 1)
            else:
                gaps += 1
                continue
            used[name] = used.get(name, 0) + 1
        for name, k in ((COLOUR_WILDS[colour], min(gaps, colour_wilds[colour])),
                        (SUPER_WILD, gaps - min(gaps, colour_wilds[colour]))):
            if k:
                used[name] = used.get(name, 0) + k
    return used


def rules_payment(hand: list[str], coins: int, bust_tokens: int, price: int, incoming: str,
                  duplicates_only: bool, final_buy: bool = False) -> dict:
    """What automatic payment spends, as RULES.md words it: ``{"coins", "bust_tokens", "cards"}``
    (the cards sorted by name). The payer can afford ``price``."""
    held = Counter(hand)
    held[incoming] += 1  # judged with the card being bought already in hand

    def spendable(card):  # never the card being bought; in a solitaire auction never a last copy
        return held[card] - (card == incoming) - (1 if duplicates_only else 0)

    spent, due = [], price
    used = rules_arrangement(list(held.elements()))
    for card in ORDER:  # idle duplicates, the lowest first
        if held[card] > 1 and due:
            extra = held[card] - 1 if card in NUMBER_CARDS else min(held[card] - 1, held[card] - used.get(card, 0))
            n = max(0, min(extra, spendable(card), due))
            spent += [card] * n
            held[card] -= n
            due -= n
    if final_buy and due:  # then the cards the best arrangement leaves out, the lowest first
        used = rules_arrangement(list(held.elements()))
        for card in ORDER:
            n = max(0, min(held[card] - used.get(card, 0), spendable(card), due))
            spent += [card] * n
            held[card] -= n
            due -= n
    paid_coins = paid_tokens = 0
    if due:  # coins; then as few bust tokens as cover the rest, with coins beside them to waste least
        if coins >= due:
            paid_coins = due
        else:
            paid_tokens = next((t for t in range(bust_tokens + 1) if coins + BUST_TOKEN * t >= due), bust_tokens)
            paid_coins = min(coins, max(0, due - BUST_TOKEN * paid_tokens))
        due = max(0, due - paid_coins - BUST_TOKEN * paid_tokens)
    while due > 0:  # cards: what the best arrangement leaves out, else the cheapest loss; then judged again
        may_go = [card for card in ORDER if spendable(card) > 0]
        if due >= sum(spendable(card) for card in may_go):
            for card in may_go:
                spent += [card] * spendable(card)
            break
        used = rules_arrangement(list(held.elements()))
        left_out = [card for card in may_go for _ in range(min(spendable(card), held[card] - used.get(card, 0)))]
        if not left_out:
            before = score(list(held.elements()))

            def loss(card):
                held[card] -= 1
                lost = before - score(list(held.elements()))
                held[card] += 1
                return lost

            left_out = [min(may_go, key=lambda card: (loss(card), ORDER.index(card)))]
        for card in left_out[:due]:  # as many as are due, the lowest first
            spent.append(card)
            held[card] -= 1
            due -= 1
    return {"coins": paid_coins, "bust_tokens": paid_tokens, "cards": sorted(spent)}
