"""Card notation, the deck file and its loader, ``Rules`` and ``Game`` argument checks."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter

import numpy as np
import pytest

import ten_env
from ten_env import Game, Rules
from ten_env import cards as C
from ten_env import deck as D

COLOURS = "BGOP"

# ---------------------------------------------------------------- card notation


def test_there_are_55_card_names_in_the_documented_order():
    expected = (
        [c + str(n) for c in COLOURS for n in range(1, 10)]  # ids 0-35
        + ["W" + str(n) for n in range(1, 10)]  # 36-44
        + [c + "#" for c in COLOURS]  # 45-48
        + ["W#"]  # 49
        + ["$" + str(v) for v in range(1, 6)]  # 50-54
    )
    assert list(C.NAMES) == expected
    assert len(set(C.NAMES)) == 55


@pytest.mark.parametrize("card", range(55))
def test_notation_round_trip(card):
    text = C.NAMES[card]
    assert C.parse(text) == card
    assert ten_env.parse_card(text) == card


def test_card_kinds_follow_the_notation():
    for card, text in enumerate(C.NAMES):
        assert C.is_number(card) == (text[0] in COLOURS and text[1] != "#")
        assert C.is_wild(card) == (text[0] == "W" or text[1] == "#")
        assert C.is_currency(card) == (text[0] == "$")
        if C.is_number(card):
            assert C.COLOURS[C.colour(card)] == text[0]
            assert C.number(card) == int(text[1])
        if C.is_currency(card):
            assert C.currency_value(card) == int(text[1])


GRAMMAR_WORDS = ["B, G, O, P or W", "1-9", "#", "$", "1-5"]


@pytest.mark.parametrize(
    "bad", ["B0", "X3", "b3", "$6", "", "B10", None, 3, "W0", "$0", "$#", "w#", "B3 ", "#3", 3.0, ["B3"]]
)
def test_malformed_card_raises_value_error_quoting_it_and_stating_the_grammar(bad):
    with pytest.raises(ValueError) as info:
        C.parse(bad)
    message = str(info.value)
    assert repr(bad) in message
    for words in GRAMMAR_WORDS:
        assert words in message, (words, message)


# ---------------------------------------------------------------- the bundled deck


@pytest.fixture(scope="module")
def bundled():
    return D.load()


@pytest.mark.parametrize("players, total", [(2, 91), (3, 108), (4, 129), (5, 129)])
def test_deck_totals_per_player_count(bundled, players, total):
    assert sum(bundled.for_players(players)) == total
    assert sum(bundled.full()) == 129


def test_full_deck_has_the_known_composition(bundled):
    full = bundled.full()
    by_name = {C.NAMES[c]: k for c, k in enumerate(full)}
    for colour in COLOURS:
        for n in range(1, 7):
            assert by_name[f"{colour}{n}"] == 3, f"{colour}{n}"
        for n in range(7, 10):
            assert by_name[f"{colour}{n}"] == 1, f"{colour}{n}"
    assert sum(by_name[c + str(n)] for c in COLOURS for n in range(1, 10)) == 84
    for n in range(1, 10):
        assert by_name[f"W{n}"] == 1  # 9 numbered wildcards, one of each
    for colour in COLOURS:
        assert by_name[f"{colour}#"] == 2  # 8 colour wildcards, two per colour
    assert by_name["W#"] == 1
    assert sum(by_name["$" + str(v)] for v in range(1, 6)) == 27
    assert 84 + 9 + 8 + 1 + 27 == 129 == sum(full)


def test_smaller_decks_are_subsets_of_larger_ones(bundled):
    two, three, four, five = (bundled.for_players(n) for n in (2, 3, 4, 5))
    assert all(a <= b <= c for a, b, c in zip(two, three, four))
    assert four == five == bundled.full()
    # the 7-9s, the numbered wildcards and W# are in every game (one copy each overall)
    for text in ["B7", "G8", "O9", "P7", "W1", "W9", "W#"]:
        assert two[C.parse(text)] == 1


def test_two_player_deck_matches_the_documented_inference(bundled):
    # /work/shared/rulebook/README.md: the 2-player deck is inferred to hold 60 number
    # cards, 14 wildcards (9 numbered, 4 colour, 1 super) and 17 currency cards
    # (4 x 1, 4 x 2, 4 x 3, 3 x 4, 2 x 5).
    two = bundled.for_players(2)
    assert sum(two[c] for c in range(36)) == 60
    assert sum(two[c] for c in range(36, 45)) == 9
    assert sum(two[c] for c in range(45, 49)) == 4
    assert two[49] == 1
    assert [two[C.parse("$" + str(v))] for v in range(1, 6)] == [4, 4, 4, 3, 2]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_shuffled_game_uses_the_deck_for_its_player_count(bundled, players):
    game = Game(Rules(num_players=players), seed=11)
    places = game.card_locations()
    in_game = [sum(v[c] for k, v in places.items() if k != "out_of_game") for c in range(55)]
    assert in_game == bundled.for_players(players)
    assert [a + b for a, b in zip(in_game, places["out_of_game"])] == bundled.full()


# ---------------------------------------------------------------- deck file errors


def _bundled_document() -> dict:
    from importlib import resources

    return json.loads(resources.files("ten_env").joinpath("data/deck.json").read_text())


def _write(tmp_path, document, name="deck.json") -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def _load_error(path) -> str:
    with pytest.raises(ValueError) as info:
        D.load(path)
    return str(info.value)


def test_a_copy_of_the_bundled_file_loads(tmp_path, bundled):
    path = _write(tmp_path, _bundled_document())
    assert D.load(path).counts == bundled.counts


def test_unreadable_deck_file(tmp_path):
    missing = str(tmp_path / "no_such_deck.json")
    message = _load_error(missing)
    assert missing in message and "cannot be read" in message
    message = _load_error(str(tmp_path))  # a directory
    assert "cannot be read" in message


def test_deck_file_that_is_not_json(tmp_path):
    path = _write(tmp_path, '{"cards": [')
    message = _load_error(path)
    assert "not valid JSON" in message and path in message
    binary = tmp_path / "deck.bin"
    binary.write_bytes(bytes([0xD0, 0xFF, 0x00]))
    assert _load_error(str(binary)) == f"deck file {str(binary)!r} is not text: a deck file is JSON"
    deep = _write(tmp_path, "[" * 100_000, name="deep.json")
    assert _load_error(deep) == f"deck file {deep!r} is not a deck: its JSON is nested too deeply"


@pytest.mark.parametrize("document", [{}, {"deck": []}, [], {"cards": {"B1": 3}}, {"cards": "B1"}])
def test_deck_file_without_a_cards_list(tmp_path, document):
    assert "'cards'" in _load_error(_write(tmp_path, document))


def _with_entry(index, entry):
    document = _bundled_document()
    document["cards"][index] = entry
    return document


def test_unknown_card_string(tmp_path):
    message = _load_error(_write(tmp_path, _with_entry(0, {"card": "X3", "count": 2, "mark": ""})))
    assert "entry 0" in message and "'X3'" in message and "malformed card" in message


def test_missing_card(tmp_path):
    message = _load_error(_write(tmp_path, _with_entry(4, {"count": 2, "mark": ""})))
    assert "entry 4" in message and "malformed card" in message


@pytest.mark.parametrize("count", [-1, "2", 2.0, None, True])
def test_bad_count(tmp_path, count):
    document = _with_entry(2, {"card": "B2", "count": count, "mark": ""})
    message = _load_error(_write(tmp_path, document))
    assert "entry 2" in message and "count" in message and repr(count) in message


@pytest.mark.parametrize("mark", ["5", "4", 3, None, "2"])
def test_bad_mark(tmp_path, mark):
    document = _with_entry(1, {"card": "B1", "count": 1, "mark": mark})
    message = _load_error(_write(tmp_path, document))
    assert "entry 1" in message and "mark" in message and repr(mark) in message


def test_unknown_key(tmp_path):
    document = _with_entry(0, {"card": "B1", "count": 2, "mark": "", "colour": "blue"})
    message = _load_error(_write(tmp_path, document))
    assert "entry 0" in message and "colour" in message


def test_entry_that_is_not_an_object(tmp_path):
    message = _load_error(_write(tmp_path, _with_entry(3, ["B2", 1, "3"])))
    assert "entry 3" in message


def test_duplicate_entry(tmp_path):
    document = _bundled_document()
    document["cards"].append({"card": "B1", "count": 0, "mark": "3"})  # B1 '3' again
    message = _load_error(_write(tmp_path, document))
    assert "B1" in message and "twice" in message


@pytest.mark.parametrize("mark, change, expected", [("", +1, 91), ("3", -1, 17), ("4+", +2, 21)])
def test_wrong_totals(tmp_path, mark, change, expected):
    document = _bundled_document()
    entry = next(e for e in document["cards"] if e.get("mark", "") == mark)
    entry["count"] += change
    message = _load_error(_write(tmp_path, document))
    assert str(expected) in message and str(expected + change) in message
    assert "rulebook" in message


def test_deck_file_errors_reach_game_as_value_error(tmp_path):
    path = _write(tmp_path, '{"cards": 5}')
    with pytest.raises(ValueError, match="'cards'"):
        Game(Rules(deck_file=path), seed=0)


def _rllib_env(config):
    from ten_env.rllib import TenMultiAgentEnv  # imports Ray: only where it is used

    return TenMultiAgentEnv(config)


@pytest.mark.parametrize("make", ["aec", "solo", "single", "rllib"])
def test_every_environment_refuses_a_bad_deck_file_when_made(tmp_path, make):
    """Not at the first reset, far from the line that named the file."""
    path = str(tmp_path / "missing.json")
    builders = {
        "aec": lambda: ten_env.raw_env(num_players=3, deck_file=path),
        "solo": lambda: ten_env.SoloEnv(jen_level=6, deck_file=path),
        "single": lambda: ten_env.SingleAgentEnv({"num_players": 2, "deck_file": path}, opponents=[lambda obs, info: 0]),
        "rllib": lambda: _rllib_env({"deck_file": path}),
    }
    with pytest.raises(ValueError, match=rf"^deck file {re.escape(repr(path))} cannot be read: No such file or directory$"):
        builders[make]()


def test_game_uses_a_custom_deck_file(tmp_path):
    # Every currency card turned into a $1 (same counts per mark, so the totals hold).
    document = _bundled_document()
    ones = Counter()
    kept = []
    for entry in document["cards"]:
        if entry["card"].startswith("$"):
            ones[entry.get("mark", "")] += entry["count"]
        else:
            kept.append(entry)
    kept += [{"card": "$1", "count": k, "mark": m} for m, k in ones.items()]
    document["cards"] = kept
    path = _write(tmp_path, document, name="all_ones.json")

    for players, expected_ones in [(2, 17), (3, 22), (5, 27)]:
        game = Game(Rules(num_players=players, deck_file=path), seed=1)
        places = game.card_locations()
        everywhere = [sum(v[c] for v in places.values()) for c in range(55)]
        assert everywhere[C.parse("$1")] == 27
        in_game = [sum(v[c] for k, v in places.items() if k != "out_of_game") for c in range(55)]
        assert in_game[C.parse("$1")] == expected_ones
        assert all(everywhere[C.parse("$" + str(v))] == 0 for v in range(2, 6))
        assert sum(everywhere) == 129
        assert game.snapshot()["rules"]["deck_file"] == path
    # and the bundled game really is different
    default = Game(Rules(), seed=1).card_locations()
    assert sum(v[C.parse("$5")] for k, v in default.items() if k != "out_of_game") == 2


def test_an_edited_deck_file_counts_from_the_next_game(tmp_path):
    document = _bundled_document()
    path = _write(tmp_path, document)
    rules = Rules(deck_file=path)

    def in_game() -> int:  # the $5s a new game deals
        places = Game(rules, seed=1).card_locations()
        return sum(v[C.parse("$5")] for k, v in places.items() if k != "out_of_game")

    assert in_game() == 2
    for entry in document["cards"]:  # every $5 becomes a $4: the totals hold
        if entry["card"] == "$5":
            entry["card"] = "$4"
    merged = Counter()
    for entry in document["cards"]:
        merged[(entry["card"], entry.get("mark", ""))] += entry["count"]
    document["cards"] = [{"card": card, "count": n, **({"mark": m} if m else {})} for (card, m), n in merged.items()]
    _write(tmp_path, document)
    assert in_game() == 0
    _write(tmp_path, "not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        Game(rules, seed=1)


def test_deck_file_may_be_a_path_object(tmp_path):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(_bundled_document()))
    rules = Rules(deck_file=path)
    assert rules.deck_file == str(path)
    places = Game(rules, seed=0).card_locations()
    assert sum(sum(v) for k, v in places.items() if k != "out_of_game") == 91


# ---------------------------------------------------------------- Rules


def test_default_rules():
    rules = Rules()
    assert (rules.num_players, rules.bust_buy, rules.jen_level, rules.payment, rules.max_bid,
            rules.deck_file) == (2, False, None, "auto", 40, None)


@pytest.mark.parametrize(
    "kwargs, field, allowed",
    [
        (dict(num_players=1), "num_players", "2 to 5"),
        (dict(num_players=6), "num_players", "2 to 5"),
        (dict(num_players="2"), "num_players", "2 to 5"),
        (dict(num_players=True), "num_players", "2 to 5"),
        (dict(num_players=2.0), "num_players", "2 to 5"),
        (dict(num_players=np.int64(6)), "num_players", "2 to 5"),
        (dict(num_players=np.bool_(True)), "num_players", "2 to 5"),
        (dict(bust_buy=np.int64(1)), "bust_buy", "True or False"),
        (dict(jen_level=np.float64(7)), "jen_level", "4 to 10"),
        (dict(bust_buy="yes"), "bust_buy", "True or False"),
        (dict(bust_buy=1), "bust_buy", "True or False"),
        (dict(jen_level=3), "jen_level", "4 to 10"),
        (dict(jen_level=11), "jen_level", "4 to 10"),
        (dict(jen_level="7"), "jen_level", "4 to 10"),
        (dict(jen_level=True), "jen_level", "4 to 10"),
        (dict(jen_level=7, num_players=3), "num_players", "num_players=2"),
        (dict(jen_level=4, num_players=5), "num_players", "num_players=2"),
        (dict(payment="cash"), "payment", "'auto' or 'manual'"),
        (dict(payment=None), "payment", "'auto' or 'manual'"),
        (dict(max_bid=0), "max_bid", "5 to 200"),
        (dict(max_bid=1000), "max_bid", "5 to 200"),
        (dict(max_bid=4), "max_bid", "5 to 200"),
        (dict(max_bid="40"), "max_bid", "5 to 200"),
        (dict(deck_file=5), "deck_file", "path"),
    ],
)
def test_rules_validation(kwargs, field, allowed):
    with pytest.raises(ValueError) as info:
        Rules(**kwargs)
    message = str(info.value)
    assert field in message and allowed in message, message
    bad = kwargs.get(field, kwargs.get("jen_level"))
    assert re.search(rf"got ({field}=)?{re.escape(repr(bad))}$", message), message  # the value given, last


@pytest.mark.parametrize(
    "kwargs",
    [dict(num_players=n) for n in range(2, 6)]
    + [dict(jen_level=level) for level in range(4, 11)]
    + [dict(bust_buy=True, payment="manual", max_bid=5), dict(max_bid=200)],
)
def test_valid_rules_are_accepted(kwargs):
    rules = Rules(**kwargs)
    for key, value in kwargs.items():
        assert getattr(rules, key) == value


def test_numpy_values_make_the_rules_their_plain_values_do():
    # as a loop over np.arange or a config read into an array gives them; stored plain, for JSON
    rules = Rules(num_players=np.int64(2), bust_buy=np.bool_(True), jen_level=np.int32(7), max_bid=np.uint8(40))
    assert rules == Rules(bust_buy=True, jen_level=7) and hash(rules) == hash(Rules(bust_buy=True, jen_level=7))
    assert [type(getattr(rules, f)) for f in ("num_players", "bust_buy", "jen_level", "max_bid")] == \
        [int, bool, int, int]
    assert json.loads(json.dumps(dataclasses.asdict(rules)))["jen_level"] == 7
    assert [Game(Rules(), seed=np.int64(5)).deck, Game(Rules(), seed=5).clone(shuffle_unseen=np.int64(2)).deck] == \
        [Game(Rules(), seed=5).deck, Game(Rules(), seed=5).clone(shuffle_unseen=2).deck]


def test_rules_are_frozen():
    rules = Rules(num_players=3)
    for field in Rules.field_names():
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rules, field, getattr(rules, field))
    assert rules.num_players == 3
    assert Rules(num_players=3) == rules
    assert hash(Rules(num_players=3)) == hash(rules)


# ---------------------------------------------------------------- Game arguments


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(deck=[]), "^deck must hold at least one card$"),
        (dict(deck="B3"), r"^deck must be a list of card strings, top first, e\.g\. \['B3', '\$2'\]$"),
        (dict(deck=5), "^deck must be a list of card strings"),
        (dict(deck=["B3", "X9"]), "^malformed card 'X9': a card is B, G, O, P or W followed by 1-9 or #"),
        (dict(deck=["B3", None]), "^malformed card None: "),
        (dict(seed="x"), "^seed must be an int or None, got 'x'$"),
        (dict(seed=1.5), "^seed must be an int or None, got 1.5$"),
        (dict(seed=True), "^seed must be an int or None, got True$"),
    ],
)
def test_bad_game_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Game(Rules(), **kwargs)


def test_game_needs_rules():
    with pytest.raises(ValueError, match="Rules"):
        Game({"num_players": 2})


def test_stacked_deck_is_drawn_top_first():
    game = Game(Rules(), deck=["B3", "$2", "G9"])
    # The first draw of a turn is forced (the only legal action), so B3 is already out.
    assert game.tableau == [C.parse("B3")]
    assert sum(game.card_locations()["deck"]) == 2
    game.act("draw")
    assert game.tableau == [C.parse("B3"), C.parse("$2")]
