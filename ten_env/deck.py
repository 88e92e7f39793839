"""The deck file: every card, its count and its player-count mark.

The bundled file ``data/deck.json`` is the deck as far as it is known (see the
``about`` lines inside it: some of it is inferred). A user who owns the game can
correct it or pass their own through ``Rules(deck_file=...)``. The loader checks
every entry and the published totals, and says exactly what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from . import cards as C

MARKS = ("", "3", "4+")
# Cards in the deck per player count, as printed in the rulebook's set-up.
PUBLISHED_TOTALS = {"": 91, "3": 17, "4+": 21}
BUNDLED = "bundled"


@dataclass(frozen=True)
class DeckSpec:
    """Counts per card id for each mark: ``counts[mark][card]``."""

    counts: dict

    def for_players(self, num_players: int) -> list[int]:
        """Count per card id of the deck for ``num_players`` (cards out of the game excluded)."""
        marks = marks_for(num_players)
        return [sum(self.counts[m][c] for m in marks) for c in range(C.NUM_CARD_TYPES)]

    def full(self) -> list[int]:
        return self.for_players(5)


def marks_for(num_players: int) -> tuple[str, ...]:
    """The marks of the cards a table of ``num_players`` plays with."""
    return ("",) + (("3",) if num_players >= 3 else ()) + (("4+",) if num_players >= 4 else ())


def cards_in_play(num_players: int) -> int:
    """How many cards a table of ``num_players`` plays with: the rulebook's totals, which every
    deck file matches."""
    return sum(PUBLISHED_TOTALS[mark] for mark in marks_for(num_players))


class DeckFileError(ValueError):
    """A deck file that cannot be used; the message says which entry and why."""


def load(path: str | Path | None = None) -> DeckSpec:
    """Load and check a deck file (``None``: the bundled one). A file is read again on every call
    (a game reads it once, when dealt), so an edit counts from the next game on; only the checking
    of the same text is cached. The bundled deck is read once."""
    if path is None or str(path) == BUNDLED:
        return _bundled()
    path = str(path)
    if not path:  # Path("") is the current folder: "cannot be read: Is a directory"
        raise DeckFileError("the deck file's name is empty: give a JSON deck file, or leave it out for the "
                            "bundled deck")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DeckFileError(f"deck file {path!r} cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DeckFileError(f"deck file {path!r} is not text: a deck file is JSON") from None
    return _parse(path, text)


@lru_cache(maxsize=1)
def _bundled() -> DeckSpec:  # part of the package: read once
    return _parse(BUNDLED, resources.files("ten_env").joinpath("data/deck.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=16)
def _parse(path: str, text: str) -> DeckSpec:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckFileError(f"deck file {path!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise DeckFileError(f"deck file {path!r} is not a deck: its JSON is nested too deeply") from None
    return parse_deck(data, source=path)


def parse_deck(data: object, source: str = "deck") -> DeckSpec:
    """Check a deck document (the parsed JSON) and return its counts."""
    where = f"deck file {source!r}"
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise DeckFileError(f"{where}: expected an object with a 'cards' list of entries")
    counts = {m: [0] * C.NUM_CARD_TYPES for m in MARKS}
    seen = set()
    for i, entry in enumerate(data["cards"]):
        at = f"{where}, entry {i}"
        if not isinstance(entry, dict):
            raise DeckFileError(f"{at}: expected an object with 'card', 'count' and 'mark'")
        unknown = set(entry) - {"card", "count", "mark", "source"}
        if unknown:
            raise DeckFileError(
                f"{at}: unknown key(s) {sorted(unknown)}; allowed: card, count, mark, source"
            )
        try:
            card = C.parse(entry.get("card"))
        except ValueError as exc:
            raise DeckFileError(f"{at}: {exc}") from None
        count = entry.get("count")
        if type(count) is not int or count < 0:
            raise DeckFileError(f"{at} ({entry.get('card')}): count must be an integer >= 0, got {count!r}")
        mark = entry.get("mark", "")
        if mark not in MARKS:
            raise DeckFileError(
                f"{at} ({entry.get('card')}): mark must be one of '', '3', '4+', got {mark!r}"
            )
        if (card, mark) in seen:
            raise DeckFileError(f"{at}: {entry['card']} with mark {mark!r} is listed twice")
        seen.add((card, mark))
        counts[mark][card] = count
    for mark, expected in PUBLISHED_TOTALS.items():
        got = sum(counts[mark])
        if got != expected:
            label = {"": "unmarked", "3": "marked '3'", "4+": "marked '4+'"}[mark]
            raise DeckFileError(
                f"{where}: {got} cards are {label}, the rulebook says {expected} "
                f"({cards_in_play(2)} for 1-2 players, {cards_in_play(3)} for 3, {cards_in_play(5)} for 4-5)"
            )
    return DeckSpec(counts)
