"""``info["snapshot"]`` (``LazySnapshot``): plain data when read, nothing built when not."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import ten_env
from ten_env import Game, Rules
from ten_env.snapshot import LazySnapshot


class _CountingGame:
    """Stands in for the game copy a LazySnapshot keeps: counts the builds."""

    def __init__(self, game):
        self.game, self.builds = game, 0

    def snapshot(self):
        self.builds += 1
        return self.game.snapshot()


def _pair(seed=3, moves=7):
    game = Game(Rules(num_players=3), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        game.act(int(rng.choice(game.legal_actions())))
    return game.lazy_snapshot(), game.snapshot()


def test_nothing_is_built_until_read_and_then_once():
    source = _CountingGame(Game(seed=1))
    lazy = LazySnapshot(source)
    assert source.builds == 0
    assert lazy["phase"] == source.game.phase and len(lazy) > 10 and "deck" in lazy and list(lazy)[0] == "rules"
    assert dict(lazy) == lazy and json.dumps(lazy)
    assert source.builds == 1


@pytest.mark.parametrize("dumps", [
    json.dumps,
    lambda x: json.dumps(x, indent=2),  # the pure-Python encoder
    lambda x: json.dumps(x, sort_keys=True),
    lambda x: json.dumps(x, separators=(",", ":")),
])
def test_json_serialises_it_as_it_is_even_unread(dumps):
    lazy, plain = _pair()
    assert json.loads(dumps(lazy)) == json.loads(dumps(plain))
    lazy, plain = _pair()  # nested in an info dict, never read before
    info = {"snapshot": lazy, "legal_actions": plain["legal_actions"]}
    assert json.loads(dumps(info)) == json.loads(dumps({"snapshot": plain, "legal_actions": plain["legal_actions"]}))
    assert json.loads(dumps([_pair()[0]]))[0] == json.loads(dumps(plain))


def test_it_is_a_dict_equal_to_the_snapshot():
    lazy, plain = _pair()
    assert isinstance(lazy, dict)
    assert lazy == plain and plain == lazy and not (lazy != plain) and not (plain != lazy)
    other, _ = _pair()
    assert lazy == other and other == lazy  # two unread snapshots
    different, _ = _pair(seed=4)
    assert lazy != different
    copied = dict(_pair()[0])
    assert type(copied) is dict and copied == plain
    assert {**_pair()[0]} == plain
    lazy, _ = _pair()
    assert lazy.to_dict() == plain and type(lazy.to_dict()) is dict and lazy.to_dict() is not lazy.to_dict()
    lazy, _ = _pair()
    assert list(lazy.keys()) == list(plain) and list(lazy.values()) == list(plain.values())
    assert list(lazy.items()) == list(plain.items()) and lazy.get("turn") == plain["turn"]
    assert lazy.get("nope", 7) == 7 and list(reversed(lazy)) == list(reversed(plain))
    assert repr(_pair()[0]) == repr(plain)
    assert (_pair()[0] | {"x": 1}) == {**plain, "x": 1} and ({"x": 1} | _pair()[0]) == {"x": 1, **plain}


def test_copies_and_pickles_are_plain_dicts():
    for make_copy in (copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x)), lambda x: x.copy()):
        lazy, plain = _pair()
        copied = make_copy(lazy)
        assert type(copied) is dict and copied == plain
    lazy, plain = _pair()
    info = copy.deepcopy({"snapshot": lazy})
    info["snapshot"]["players"][0]["coins"] = 99  # a deep copy: the original is untouched
    assert lazy == plain
    lazy, plain = _pair()
    assert pickle.loads(pickle.dumps({"snapshot": lazy}, protocol=2)) == {"snapshot": plain}


def test_it_is_read_only():
    lazy, plain = _pair()
    for change in (lambda s: s.__setitem__("turn", 9), lambda s: s.__delitem__("turn"), lambda s: s.clear(),
                   lambda s: s.pop("turn"), lambda s: s.popitem(), lambda s: s.setdefault("x", 1),
                   lambda s: s.update(x=1)):
        with pytest.raises(TypeError, match="read-only"):
            change(lazy)
    with pytest.raises(TypeError, match="read-only"):
        lazy |= {"x": 1}
    assert lazy == plain


def test_env_infos_serialise_with_json():
    env = ten_env.env(num_players=3)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for step, agent in enumerate(env.agent_iter()):
        observation, reward, termination, truncation, info = env.last()
        if step % 5 == 0 or termination:
            data = json.loads(json.dumps(info))
            assert data["snapshot"] == env.unwrapped.game.snapshot()
            assert data["snapshot"]["legal_actions"] == info["legal_actions"]
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
