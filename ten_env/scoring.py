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
from typing import Iterable, Iterator, Sequence

from . import cards as C
from .cards import NUMBERS


def run_score(length: int) -> int:
    """What a colour's longest run of ``length`` numbers scores: its length, or 10 for a complete 1-9."""
    return 10 if length == NUMBERS else length


MAX_SCORE = len(C.COLOURS) * run_score(NUMBERS)  # every colour complete: 40


def _window(mask: int, free: int) -> tuple[int, int]:
    """(lo, hi) bit positions of a longest run of ``mask`` with ``free`` fillers."""
    best, where = 0, (0, -1)
    for lo in range(NUMBERS):
        gaps = 0
        for hi in range(lo, NUMBERS):
            if not mask >> hi & 1:
                gaps += 1
                if gaps > free:
                    break
            if hi - lo + 1 > best:
                best, where = hi - lo + 1, (lo, hi)
    return where


# _WINDOW[free][mask]: where a longest run lies for a colour holding numbers `mask`
# (bit n-1 for n) with `free` gap-fillers; _BEST_RUN[free][mask]: what it scores.
_WINDOW = tuple(tuple(_window(m, f) for m in range(1 << NUMBERS)) for f in range(NUMBERS + 1))
_BEST_RUN = tuple(tuple(run_score(hi - lo + 1) for lo, hi in row) for row in _WINDOW)


def _masks(counts: Sequence[int]) -> list[int]:
    """Per colour, the numbers held as a 9-bit set (bit n-1 for n)."""
    masks = [0] * len(C.COLOURS)
    for card in range(C.NUM_NUMBER_CARDS):
        if counts[card]:
            masks[card // NUMBERS] |= _BIT[card]
    return masks


_BIT = tuple(1 << (card % NUMBERS) for card in range(C.NUM_NUMBER_CARDS))


def score_counts(counts: Sequence[int]) -> int:
    """Score of a collection given as counts per card id (see :mod:`ten_env.cards`)."""
    masks = _masks(counts)
    free = counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD]
    supers = counts[C.SUPER_WILD]
    numbered = counts[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD]
    if not supers and not any(numbered):
        return sum(_BEST_RUN[min(f, NUMBERS)][m] for m, f in zip(masks, free))
    return _shared_best(tuple(masks), tuple(free), tuple(numbered), supers)


@lru_cache(maxsize=65536)
def _shared_best(masks: tuple[int, ...], free: tuple[int, ...], numbered: tuple[int, ...], supers: int) -> int:
    """The best total when numbered wildcards and super wildcards are shared between colours.

    A numbered wildcard with a copy for every colour that lacks its number is
    given to all of them: there is nothing to share. Each other one (one copy,
    in the published deck) and the super wildcard are items that go to one
    colour each: a search over subsets of items, colour by colour, finds the
    best split. Other decks (several copies to share, several super wildcards)
    use the general search of :func:`_arrange`.
    """
    given = [0, 0, 0, 0]  # numbered wildcards given to every colour that lacks them
    items = []  # the bit of each contested numbered wildcard
    for n, copies in enumerate(numbered):
        if copies:
            bit = 1 << n
            lacking = [c for c in range(4) if not masks[c] & bit]
            if copies >= len(lacking):
                for c in lacking:
                    given[c] |= bit
            elif copies == 1:
                items.append(bit)
            else:
                return _arrange(masks, free, numbered, supers)[0]
    if supers > 1:
        return _arrange(masks, free, numbered, supers)[0]
    if len(items) + supers == 1:  # one item: it goes where it adds most
        bit = items[0] if items else 0
        base = [_BEST_RUN[min(f, NUMBERS)][m | g] for m, g, f in zip(masks, given, free)]
        return sum(base) + max(_BEST_RUN[min(f + supers, NUMBERS)][m | g | bit] - b
                               for m, g, f, b in zip(masks, given, free, base))
    covers = _covers(items)
    # value[colour][subset]: that colour's best run with those items given to it (the super,
    # if any, is the highest item)
    value = [_colour_values(mask | extra, f, covers, supers) for mask, extra, f in zip(masks, given, free)]
    upto = value[0]
    for colour in (1, 2):
        upto = _merge(upto, value[colour])
    everything = len(upto) - 1
    return max(upto[everything ^ sub] + mine for sub, mine in enumerate(value[3]))


def _covers(items: list[int]) -> list[int]:
    """The numbers covered by each subset of the numbered wildcards ``items`` (one bit each)."""
    covers = [0] * (1 << len(items))
    for subset in range(1, len(covers)):
        low = subset & -subset
        covers[subset] = covers[subset ^ low] | items[low.bit_length() - 1]
    return covers


def _colour_values(held: int, free: int, covers: list[int], supers: int) -> list[int]:
    """A colour's best run for each subset of the shared items given to it: the numbered
    wildcards' subsets (``covers``), then, with a super wildcard, the same with it added."""
    row = _BEST_RUN[min(free, NUMBERS)]
    mine = [row[held | cover] for cover in covers]
    if supers:
        row = _BEST_RUN[min(free + 1, NUMBERS)]
        mine += [row[held | cover] for cover in covers]
    return mine


def _merge(first: list[int], second: list[int]) -> list[int]:
    """Two groups of colours sharing items: for each set of items ``have``, the best total when
    ``second`` takes some subset of them and ``first`` the rest."""
    out = []
    for have in range(len(first)):
        top, sub = 0, have
        while True:
            total = first[have ^ sub] + second[sub]
            if total > top:
                top = total
            if not sub:
                break
            sub = (sub - 1) & have
        out.append(top)
    return out


def gains(counts: Iterable[int]) -> list[int]:
    """What one more copy of each ownable card (ids below ``cards.NUM_OWNABLE``) would add to the
    score of ``counts``."""
    counts = list(counts)
    base = score_counts(counts)
    out = [0] * C.NUM_OWNABLE
    masks, free = _masks(counts), counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD]
    numbered, supers = counts[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD], counts[C.SUPER_WILD]
    if supers > 1 or max(numbered) > 1:  # copies to share: each card is scored with it added
        for card in (*range(C.NUM_NUMBER_CARDS), *range(C.FIRST_COLOUR_WILD, C.SUPER_WILD)):
            if card < C.NUM_NUMBER_CARDS and counts[card]:
                continue  # a number held already adds nothing
            counts[card] += 1
            out[card] = score_counts(counts) - base
            counts[card] -= 1
    else:
        # A number card or a colour wildcard changes its own colour's table and nothing else:
        # the best total is that table merged with the best of the other three colours sharing
        # the wildcards that may go anywhere (none, in a hand without them).
        covers = _covers([1 << n for n in range(NUMBERS) if numbered[n]])
        rows = [_colour_values(m, f, covers, supers) for m, f in zip(masks, free)]
        before, after = [rows[0]], [rows[3]]  # colours 0..c and 3-c..3 merged
        for colour in (1, 2):
            before.append(_merge(before[-1], rows[colour]))
            after.append(_merge(after[-1], rows[3 - colour]))
        everything = len(rows[0]) - 1
        for colour in range(len(C.COLOURS)):
            if colour in (0, 3):
                others = after[2] if colour == 0 else before[2]
            else:
                others = _merge(before[colour - 1], after[2 - colour])

            def best(row: list[int]) -> int:
                return max(others[everything ^ sub] + mine for sub, mine in enumerate(row))

            for card in range(colour * NUMBERS, colour * NUMBERS + NUMBERS):
                if not masks[colour] & _BIT[card]:  # a number held already adds nothing
                    out[card] = best(_colour_values(masks[colour] | _BIT[card], free[colour], covers, supers)) - base
            out[C.FIRST_COLOUR_WILD + colour] = best(_colour_values(masks[colour], free[colour] + 1, covers,
                                                                    supers)) - base
    # One more numbered wildcard ends up as its number in one colour, one more super wildcard as a
    # colour wildcard of one colour: it adds what the best of those cards adds.
    for n in range(NUMBERS):
        out[C.FIRST_NUMBERED_WILD + n] = max(0, *(out[colour * NUMBERS + n] for colour in range(len(C.COLOURS))))
    out[C.SUPER_WILD] = max(0, *out[C.FIRST_COLOUR_WILD : C.SUPER_WILD])
    return out


def colour_losses(counts: Sequence[int], cards: Iterable[int]) -> Iterator[tuple[int, int]]:
    """For each of ``cards`` (number cards and colour wildcards), ``(card, loss)``: what the
    score of ``counts`` loses when one copy of it is given up, yielded one at a time.

    Only for collections without numbered or super wildcards, where each colour scores on its
    own: a duplicate loses nothing, a number only its colour's run, a colour wildcard one filler.
    """
    masks = _masks(counts)
    free = counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD]
    for card in cards:
        if card < C.NUM_NUMBER_CARDS:
            colour = C.colour(card)
            if counts[card] > 1:
                yield card, 0
                continue
            row = _BEST_RUN[min(free[colour], NUMBERS)]
            yield card, row[masks[colour]] - row[masks[colour] & ~_BIT[card]]
        else:
            colour = card - C.FIRST_COLOUR_WILD
            mask, f = masks[colour], free[colour]
            yield card, _BEST_RUN[min(f, NUMBERS)][mask] - _BEST_RUN[min(f - 1, NUMBERS)][mask]


_hand_scores: dict = {}


def hand_key(counts: Sequence[int]) -> bytes | tuple:
    """A hand's counts (a list or tuple of ints; not a NumPy array, whose bytes are its buffer) as a
    memo key: bytes, a fifth of a tuple's size (memos of hands fill to hundreds of thousands in a
    few thousand games), or a tuple for a count beyond 255, which only a stacked deck can give (a
    deck file holds at most 129 cards)."""
    try:
        return bytes(counts)
    except ValueError:
        return tuple(counts)


def hand_score(counts: Sequence[int]) -> int:
    """``score_counts`` remembered by collection: hands change far less often than they are scored."""
    key = hand_key(counts)
    value = _hand_scores.get(key)
    if value is None:
        if len(_hand_scores) > 200_000:
            _hand_scores.clear()
        value = _hand_scores[key] = score_counts(counts)
    return value


def score(cards: Iterable[str | int]) -> int:
    """Score of a collection of cards, given as notation strings (or card ids).

    >>> score(["B1", "B2", "W3", "G#", "G7"])
    5
    """
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"score() takes a list of cards, got {cards!r}; e.g. score(['B1', 'B2', 'W3'])")
    counts = [0] * C.NUM_CARD_TYPES
    for card in cards:
        if isinstance(card, str):
            card = C.parse(card)
        elif isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < C.NUM_CARD_TYPES:
            raise ValueError(f"not a card: {card!r}; give notation strings ({C.GRAMMAR}) or ids 0-54")
        counts[card] += 1
    return score_counts(counts)


def used_in_best(counts: Sequence[int]) -> list[int]:
    """Counts per card id of the cards that one best arrangement of ``counts`` uses.

    Every other card can be given away without lowering the score.
    """
    masks = tuple(_masks(counts))
    used = list(_used(masks, tuple(counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD]),
                      tuple(counts[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD]), counts[C.SUPER_WILD]))
    return used + [0] * (len(counts) - len(used))


def best_layout(counts: Sequence[int]) -> tuple[tuple[int, int, int, int, int], ...]:
    """Where the best arrangement that :func:`used_in_best` counts (the one RULES.md fixes for
    automatic payment) puts things: per colour ``(lo, hi, mask, wild_bits, supers)``: the
    run's first and last position (0-8; ``lo > hi`` for no run), the numbers held, the
    numbers of the numbered wildcards handed to that colour (only those inside the run fill
    it), and the super wildcards placed there."""
    return _layout(tuple(_masks(counts)), tuple(counts[C.FIRST_COLOUR_WILD : C.SUPER_WILD]),
                   tuple(counts[C.FIRST_NUMBERED_WILD : C.FIRST_COLOUR_WILD]), counts[C.SUPER_WILD])


@lru_cache(maxsize=65536)
def _layout(masks: tuple[int, ...], free: tuple[int, ...], numbered: tuple[int, ...],
            supers: int) -> tuple[tuple[int, int, int, int, int], ...]:
    placed = _placement(masks, free, numbered, supers)
    return tuple(
        (*_WINDOW[min(free[colour] + sup, NUMBERS)][masks[colour] | wild_bits], masks[colour], wild_bits, sup)
        for colour, (wild_bits, sup) in enumerate(placed)
    )


@lru_cache(maxsize=65536)
def _used(masks: tuple[int, ...], free: tuple[int, ...], numbered: tuple[int, ...], supers: int) -> tuple[int, ...]:
    used = [0] * C.NUM_OWNABLE
    for colour, (lo, hi, mask, wild_bits, sup) in enumerate(_layout(masks, free, numbered, supers)):
        gaps = 0
        for n in range(lo, hi + 1):
            if mask >> n & 1:
                used[colour * NUMBERS + n] = 1
            elif wild_bits >> n & 1:
                used[C.FIRST_NUMBERED_WILD + n] += 1
            else:
                gaps += 1
        from_colour = min(gaps, free[colour])
        used[C.FIRST_COLOUR_WILD + colour] += from_colour
        used[C.SUPER_WILD] += gaps - from_colour
    return tuple(used)


@lru_cache(maxsize=65536)
def _arrange(masks: tuple[int, ...], free: tuple[int, ...], numbered: tuple[int, ...],
             supers: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """Best total, and per colour the (numbered-wild bits, super count) of one best arrangement.

    Every copy of a numbered wildcard is an item, up to as many copies as colours lack its
    number (a colour fills a number's gap once, so the copies beyond never fill one, and each
    would double the search). Colour by colour, the subsets of the items still free that
    fill gaps of the colour are tried in decreasing order, then the supers in increasing
    order, and the first that reaches the best total of this colour and those after it is
    kept: that choice is the arrangement RULES.md fixes, which :func:`used_in_best` counts
    (automatic payment spends the cards it leaves out, so it never changes) and
    :func:`best_layout` shows. The best totals of the colours still to come are tables
    built from the last colour back. Still exponential in the copies that colours contend
    for (fewer copies than colours lacking the number), which only a deck file with many
    numbered wildcards makes many.
    """
    items = [n for n in range(NUMBERS) for _ in range(min(numbered[n], sum(not m >> n & 1 for m in masks)))]
    k = len(items)
    size = 1 << k
    bits = [0] * size
    for subset in range(1, size):
        low = subset & -subset
        bits[subset] = bits[subset ^ low] | 1 << items[low.bit_length() - 1]
    useful = [sum(1 << i for i, n in enumerate(items) if not mask >> n & 1) for mask in masks]
    rows = [[_BEST_RUN[min(f + s, NUMBERS)] for s in range(supers + 1)] for f in free]
    # after[c][left][sup]: best total of colours c..3 with the wildcards `left` and `sup` supers
    last, use3 = rows[3], useful[3]
    after = {3: [[last[sup][masks[3] | bits[use3 & left]] for sup in range(supers + 1)] for left in range(size)]}
    for colour in (2, 1):
        mine, mask, use, later = rows[colour], masks[colour], useful[colour], after[colour + 1]
        table = []
        for left in range(size):
            cand = use & left
            tops = []
            for sup in range(supers + 1):
                top, sub = -1, cand
                while True:
                    covered, rest = mask | bits[sub], later[left & ~sub]
                    for t in range(sup + 1):
                        total = mine[t][covered] + rest[sup - t]
                        if total > top:
                            top = total
                    if not sub:
                        break
                    sub = (sub - 1) & cand
                tops.append(top)
            table.append(tops)
        after[colour] = table
    placed, left, sup, best = [], size - 1, supers, None
    for colour in range(3):
        mine, mask, later = rows[colour], masks[colour], after[colour + 1]
        cand = useful[colour] & left
        top, choice, sub = -1, None, cand
        while True:
            covered, rest = mask | bits[sub], later[left & ~sub]
            for t in range(sup + 1):
                total = mine[t][covered] + rest[sup - t]
                if total > top:
                    top, choice = total, (sub, t)
            if not sub:
                break
            sub = (sub - 1) & cand
        best = top if best is None else best
        assert choice is not None  # every total beats top's -1 at least once
        sub, t = choice
        placed.append((bits[sub], t))
        left &= ~sub
        sup -= t
    placed.append((bits[useful[3] & left], sup))
    return best, tuple(placed)  # type: ignore[return-value]  # best: set by the first colour's choice, never None


def _placement(masks: tuple[int, ...], free: tuple[int, ...], numbered: tuple[int, ...],
               supers: int) -> tuple[tuple[int, int], ...]:
    """Per colour, the (numbered-wild bits, super count) of the arrangement :func:`_arrange` picks.

    Without numbered wildcards only the supers are split, and the split is
    found directly: colour by colour, the fewest supers that reach the best
    total of this colour and those after it, which is the split the general
    search picks too.
    """
    if any(numbered):
        return _arrange(masks, free, numbered, supers)[1]
    if not supers:
        return ((0, 0),) * 4
    rows = [[_BEST_RUN[min(f + s, NUMBERS)][m] for s in range(supers + 1)] for m, f in zip(masks, free)]
    after = [rows[3]]  # after[0][s]: best of the colours still to come with s supers
    for colour in (2, 1):
        mine, later = rows[colour], after[0]
        after.insert(0, [max(mine[t] + later[s - t] for t in range(s + 1)) for s in range(supers + 1)])
    placed, left = [], supers
    for colour in range(3):
        mine, later = rows[colour], after[colour]
        top, choice = -1, 0
        for t in range(left + 1):
            total = mine[t] + later[left - t]
            if total > top:
                top, choice = total, t
        placed.append((0, choice))
        left -= choice
    placed.append((0, left))
    return tuple(placed)
