"""Card notation and the facts about TEN's cards, declared as data.

A card is written as a short string: a colour letter, then a number.

=========  ============================================  =========
notation   card                                          id
=========  ============================================  =========
``B3``     number card: blue 3 (colours ``B G O P``)      0-35
``W3``     numbered wildcard: a 3 of any colour           36-44
``B#``     colour wildcard: any number in blue            45-48
``W#``     the super wildcard: any number, any colour     49
``$4``     currency card worth 4 (``$1`` to ``$5``)       50-54
=========  ============================================  =========

Inside the engine a card is its integer id (the order above); copies of one card
are interchangeable, so collections are counts per id. Ids are part of the
public action table (``buy_*``/``pay_*``), so they never change.
"""

from __future__ import annotations

from collections.abc import Iterable

COLOURS = "BGOP"
NUMBERS = 9  # each colour runs 1-9
CURRENCY_VALUES = 5  # $1..$5

NUM_NUMBER_CARDS = len(COLOURS) * NUMBERS  # ids 0-35: colour * 9 + (number - 1)
FIRST_NUMBERED_WILD = NUM_NUMBER_CARDS  # 36: W1..W9
FIRST_COLOUR_WILD = FIRST_NUMBERED_WILD + NUMBERS  # 45: B#, G#, O#, P#
SUPER_WILD = FIRST_COLOUR_WILD + len(COLOURS)  # 49: W#
FIRST_CURRENCY = SUPER_WILD + 1  # 50: $1..$5
NUM_OWNABLE = FIRST_CURRENCY  # 50: every card a player can hold, numbers and wildcards
NUM_CARD_TYPES = FIRST_CURRENCY + CURRENCY_VALUES  # 55

GRAMMAR = (
    "a card is B, G, O, P or W followed by 1-9 or # (e.g. B3, W3, G#, W#), "
    "or $ followed by 1-5 (e.g. $4); W3 is a numbered wildcard, G# a colour "
    "wildcard, W# the super wildcard"
)


def _notation(card: int) -> str:
    if card < FIRST_NUMBERED_WILD:
        return COLOURS[card // NUMBERS] + str(card % NUMBERS + 1)
    if card < FIRST_COLOUR_WILD:
        return "W" + str(card - FIRST_NUMBERED_WILD + 1)
    if card < SUPER_WILD:
        return COLOURS[card - FIRST_COLOUR_WILD] + "#"
    if card == SUPER_WILD:
        return "W#"
    return "$" + str(card - FIRST_CURRENCY + 1)


NAMES: tuple[str, ...] = tuple(_notation(c) for c in range(NUM_CARD_TYPES))
_IDS = {name: card for card, name in enumerate(NAMES)}


def parse(text: object) -> int:
    """The id of a card written in notation; ``ValueError`` quoting it if malformed."""
    card = _IDS.get(text) if isinstance(text, str) else None
    if card is None:
        raise ValueError(f"malformed card {text!r}: {GRAMMAR}")
    return card


def is_number(card: int) -> bool:
    return card < NUM_NUMBER_CARDS


def is_wild(card: int) -> bool:
    return NUM_NUMBER_CARDS <= card < FIRST_CURRENCY


def is_currency(card: int) -> bool:
    return card >= FIRST_CURRENCY


def colour(card: int) -> int:
    """Colour index (0-3) of a number card."""
    return card // NUMBERS


def number(card: int) -> int:
    """Face value of a number card (1-9) or numbered wildcard."""
    if card < NUM_NUMBER_CARDS:
        return card % NUMBERS + 1
    return card - FIRST_NUMBERED_WILD + 1


def currency_value(card: int) -> int:
    return card - FIRST_CURRENCY + 1


# Value a drawn card adds to the tableau's net total (currency subtracts).
NET_VALUE: tuple[int, ...] = tuple(
    number(c) if is_number(c) else (-currency_value(c) if is_currency(c) else 0)
    for c in range(NUM_CARD_TYPES)
)


def sort_names(cards: Iterable[int]) -> list[str]:
    """Notation strings of card ids in canonical order (B1..P9, W1..W9, B#..P#, W#, $1..$5)."""
    return [NAMES[c] for c in sorted(cards)]


def expand(counts: Iterable[int]) -> list[int]:
    """Card ids of a count vector, one entry per copy, in id order."""
    return [c for c, k in enumerate(counts) for _ in range(k)]


def names_of(counts: Iterable[int]) -> list[str]:
    """Notation strings of a count vector (ids in order), one per copy."""
    return [NAMES[c] for c, k in enumerate(counts) if k for _ in range(k)]
