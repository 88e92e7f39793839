"""``LazySnapshot``: the environments' ``info["snapshot"]``, built only when read."""

from __future__ import annotations

from collections.abc import Mapping


class LazySnapshot(Mapping):
    """A read-only mapping equal to ``Game.snapshot()`` at the moment it was made.

    The environments hand one out at every step; it keeps a private copy of the
    game and builds the snapshot on first use, so agents that never read it pay
    almost nothing. ``dict(lazy)`` or ``lazy.to_dict()`` gives the plain dict.
    """

    __slots__ = ("_game", "_data")

    def __init__(self, game):
        self._game = game
        self._data = None

    def to_dict(self) -> dict:
        if self._data is None:
            self._data = self._game.snapshot()
            self._game = None
        return self._data

    def __getitem__(self, key):
        return self.to_dict()[key]

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self):
        return len(self.to_dict())

    def __repr__(self):
        return f"LazySnapshot({self.to_dict()!r})"
