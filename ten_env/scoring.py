"""Final scoring: the longest run in each colour, wildcards placed where they help most.

A colour scores the length of its longest run of consecutive numbers, or 10 for a
complete 1-9. Every wildcard fills at most one gap: a numbered wildcard (``W3``)
a gap of its number in any colour, a colour wildcard (``B#``) any gap in its
colour, the super wildcard (``W#``) any gap anywhere.

The search is exact. Colour wildcards and super wildcards are interchangeable
"free" gap-fillers within a colour, so a colour's best run depends only on the
set of numbers it holds and how many free fillers it gets: ``_BEST_RUN`` tables
that for all 512 number sets. What remains is sharing the numbered wildcards and
super wildcards between the colours, done by a memoised search over colours.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from . import cards as C

FULL = (1 << 9) - 1


def _best_run(mask: int, free: int) -> int:
    best = 0
    for lo in range(9):
        gaps = 0
        for hi in range(lo, 9):
            if not mask >> hi & 1:
                gaps += 1
                if gaps > free:
                    break
            best = max(best, hi - lo + 1)
    return 10 if best == 9 else best


# _BEST_RUN[free][mask]: best score of one colour holding numbers `mask` (bit n-1 for n)
# with `free` gap-fillers to place.
_BEST_RUN = tuple(tuple(_best_run(m, f) for m in range(512)) for f in range(10))


def _run_score(mask: int, free: int) -> int:
    return _BEST_RUN[min(free, 9)][mask]


def score_counts(counts) -> int:
    """Score of a collection given as counts per card id (see :mod:`ten_env.cards`)."""
    masks = [0, 0, 0, 0]
    for card in range(C.NUM_NUMBER_CARDS):
        if counts[card]:
            masks[card // 9] |= 1 << (card % 9)
    free = list(counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD])
    supers = counts[C.SUPER_WILD]
    numbered = tuple(counts[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD])
    if not supers and not any(numbered):
        return sum(_BEST_RUN[min(f, 9)][m] for m, f in zip(masks, free))
    return _share_wilds(tuple(masks), tuple(free), numbered, supers)


@lru_cache(maxsize=65536)
def _share_wilds(masks, free, numbered, supers) -> int:
    return _best_from(0, masks, free, numbered, supers)


def _best_from(colour: int, masks, free, numbered, supers) -> int:
    """Best total for colours ``colour``..3 with the numbered/super wildcards still unplaced."""
    if colour == 4:
        return 0
    mask = masks[colour]
    # Numbered wildcards whose number this colour lacks are the only ones worth placing here.
    useful = 0
    for n in range(9):
        if numbered[n] and not mask >> n & 1:
            useful |= 1 << n
    best = 0
    subset = useful
    while True:  # every subset of `useful`, including the empty one
        rest = numbered
        if subset:
            rest = tuple(k - (subset >> n & 1) for n, k in enumerate(numbered))
        for s in range(supers + 1):
            here = _run_score(mask | subset, free[colour] + s)
            best = max(best, here + _best_from(colour + 1, masks, free, rest, supers - s))
        if not subset:
            break
        subset = (subset - 1) & useful
    return best


def score(cards: Iterable[str | int]) -> int:
    """Score of a collection of cards, given as notation strings (or card ids).

    >>> score(["B1", "B2", "W3", "G#", "G7"])
    5
    """
    counts = [0] * C.NUM_CARD_TYPES
    for card in cards:
        counts[C.parse(card) if isinstance(card, str) else card] += 1
    return score_counts(counts)
