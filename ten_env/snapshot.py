"""``LazySnapshot``: the environments' ``info["snapshot"]``, built only when read."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

    from .game import Game

# The one key a LazySnapshot holds in its dict storage until it is built: C code that
# looks at a dict's storage directly (json's encoder checks that it is not empty before
# calling ``items()``) must not see an empty dict. No Python-level access can see it.
_PENDING = object()
_store = dict.__setitem__


def _read_only(self: LazySnapshot, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError("a LazySnapshot is read-only; dict(snapshot) gives a plain copy to change")


class LazySnapshot(dict):
    """A read-only ``dict`` equal to ``Game.snapshot()`` at the moment it was made.

    The environments hand one out at every step; it keeps a private copy of the
    game and builds the snapshot on first use, so agents that never read it pay
    almost nothing. Once read it is plain data in every way that matters:
    ``json.dumps`` (alone or nested in an info dict), ``==`` with a dict,
    ``dict(lazy)`` / ``lazy.to_dict()`` (a plain shallow copy), ``copy.copy``,
    ``copy.deepcopy`` and ``pickle`` (which give a plain ``dict``). It cannot be
    changed in place (``TypeError``).

    Serialisers that read a dict's storage without calling its methods (orjson)
    see an unread snapshot as one non-string key and refuse it: give them
    ``dict(snapshot)`` (or orjson's ``OPT_PASSTHROUGH_SUBCLASS`` with
    ``default=dict``). ``yaml.safe_dump`` refuses every dict subclass: give it
    ``dict(snapshot)`` too.

    The copy it keeps has its deck sorted: nothing in it tells the deck's order.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        _store(self, _PENDING, None)
        self._game: Game | None = game

    def _build(self) -> None:
        if self._game is not None:
            data = self._game.snapshot()
            dict.clear(self)
            dict.update(self, data)
            self._game = None

    def to_dict(self) -> dict:
        """The snapshot as a plain ``dict`` (a new one each call, sharing the values)."""
        self._build()
        return dict.copy(self)

    # Reading: build first, then answer as a dict.

    def __getitem__(self, key: str) -> Any:
        self._build()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self._build()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._build()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        self._build()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[str]:
        self._build()
        return dict.__reversed__(self)

    def __len__(self) -> int:
        self._build()
        return dict.__len__(self)

    def keys(self) -> dict_keys[str, Any]:
        self._build()
        return dict.keys(self)

    def values(self) -> dict_values[str, Any]:
        self._build()
        return dict.values(self)

    def items(self) -> dict_items[str, Any]:
        self._build()
        return dict.items(self)

    def __eq__(self, other: object) -> bool:
        self._build()
        if isinstance(other, LazySnapshot):
            other._build()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __repr__(self) -> str:
        self._build()
        return dict.__repr__(self)

    def __or__(self, other: dict[Any, Any]) -> dict[Any, Any]:
        return self.to_dict() | other

    def __ror__(self, other: object) -> dict[Any, Any]:
        if not isinstance(other, dict):
            return NotImplemented
        return other | self.to_dict()

    # Copies are plain dicts.

    def copy(self) -> dict:
        return self.to_dict()

    def __copy__(self) -> dict:
        return self.to_dict()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict:
        return copy.deepcopy(self.to_dict(), memo)

    def __reduce__(self) -> tuple[type[dict], tuple[dict]]:
        return dict, (self.to_dict(),)

    # Read-only.

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
