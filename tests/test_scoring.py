"""``ten_env.score``: exact final scoring, checked against an independent brute force.

The rule (English rulebook, "Scoring"): per colour, one point per card in the longest
run of consecutive numbers, 10 for a complete 1-9; every wildcard is assigned to one
place of the player's choosing (so the best placement counts), and each wildcard is in
one place only. ``W3`` is a 3 of any colour, ``B#`` any number in blue, ``W#`` any
number in any colour. Currency cards are not part of any run.
"""

from __future__ import annotations

import random
import re

import pytest

from ten_env import cards as C
from ten_env import score
from ten_env.scoring import colour_losses, gains

from oracles import rules_arrangement

COLOURS = "BGOP"
NUMBER_CARDS = [c + str(n) for c in COLOURS for n in range(1, 10)]
NUMBERED_WILDS = ["W" + str(n) for n in range(1, 10)]
COLOUR_WILDS = [c + "#" for c in COLOURS]
SUPER_WILD = "W#"
WILDS = NUMBERED_WILDS + COLOUR_WILDS + [SUPER_WILD]
CURRENCY = ["$" + str(v) for v in range(1, 6)]


# ---------------------------------------------------------------- the brute force


def _longest_run(numbers) -> int:
    """Longest run of consecutive numbers in a set of 1-9, 10 for all nine."""
    best = run = 0
    for n in range(1, 10):
        run = run + 1 if n in numbers else 0
        best = max(best, run)
    return 10 if best == 9 else best


# A colour's numbers as a 9-bit set (bit n-1 for n); its score for every such set.
_RUN = [_longest_run({n for n in range(1, 10) if bits >> (n - 1) & 1}) for bits in range(512)]


def _places(wild: str) -> list[tuple[int, int] | None]:
    """Every place a wildcard can take: (colour index, bit of its number), or None (unused)."""
    if wild == SUPER_WILD:
        return [(c, 1 << (n - 1)) for c in range(4) for n in range(1, 10)] + [None]
    if wild[0] == "W":  # numbered wildcard: its number, any colour
        return [(c, 1 << (int(wild[1]) - 1)) for c in range(4)] + [None]
    colour = COLOURS.index(wild[0])  # colour wildcard: any number of its colour
    return [(colour, 1 << (n - 1)) for n in range(1, 10)] + [None]


def brute_score(cards: list[str]) -> int:
    """Try every assignment of every wildcard copy; the best plain-run total wins.

    The wildcards are placed one after another, each in every place it can take
    (or left unused). The table after each step is the numbers held per colour;
    assignments that lead to the same table are kept once (they score the same
    whatever comes next), which keeps this fast without choosing anything: every
    assignment's outcome is still reached.
    """
    held = [0, 0, 0, 0]
    wilds = []
    for card in cards:
        if card in NUMBER_CARDS:
            held[COLOURS.index(card[0])] |= 1 << (int(card[1]) - 1)
        elif card in WILDS:
            wilds.append(card)
        else:
            assert card in CURRENCY, card  # currency: part of no run
    tables = {tuple(held)}
    for wild in wilds:
        following = set()
        for table in tables:
            for place in _places(wild):
                if place is None:
                    following.add(table)
                else:
                    colour, bit = place
                    grown = list(table)
                    grown[colour] |= bit
                    following.add(tuple(grown))
        tables = following
    return max(sum(_RUN[bits] for bits in table) for table in tables)


def test_brute_force_itself_on_known_cases():
    # The oracle must be right before it can judge: a few cases worked out by hand.
    assert brute_score([]) == 0
    assert brute_score(["B1", "B2", "B3", "G5"]) == 4
    assert brute_score([f"G{n}" for n in range(1, 10)]) == 10
    assert brute_score(["B1", "B3", "W2"]) == 3  # W2 fills blue's gap
    assert brute_score(["B1", "B3", "W5"]) == 2  # W5 cannot: a lone 5 somewhere is 1, plus 1
    assert brute_score(["B1", "B3", "G#"]) == 2  # G# cannot go in blue: 1 + 1
    assert brute_score(["W#", "W#"]) == 2  # a run of two anywhere
    assert brute_score(["$5", "B4"]) == 1


# ---------------------------------------------------------------- exhaustive random comparison


def _random_collection(rng: random.Random) -> list[str]:
    """0-12 number cards and 0-4 wildcards (duplicates allowed), sometimes currency.

    Numbers come from a random few colours and a narrow band sometimes, so that runs
    and gaps (where wildcards matter) are common, not just scattered singletons.
    """
    colours = rng.sample(COLOURS, rng.randint(1, 4))
    lo = rng.randint(1, 9)
    hi = rng.randint(lo, 9) if rng.random() < 0.5 else 9
    lo = lo if hi != 9 or rng.random() < 0.5 else 1
    pool = [c + str(n) for c in colours for n in range(lo, hi + 1)]
    cards = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
    n_wild = rng.randint(0, 4)
    for _ in range(n_wild):
        kind = rng.random()
        if kind < 0.45:
            cards.append(rng.choice(NUMBERED_WILDS))
        elif kind < 0.8:
            cards.append(rng.choice(COLOUR_WILDS))
        else:
            cards.append(SUPER_WILD)
    if rng.random() < 0.2:
        cards += rng.choices(CURRENCY, k=rng.randint(1, 3))
    rng.shuffle(cards)
    return cards


def test_score_matches_brute_force_on_random_collections():
    rng = random.Random(20240611)
    checked = 0
    for _ in range(3000):
        cards = _random_collection(rng)
        expected = brute_score(cards)
        assert score(cards) == expected, cards
        kinds = {"wild": any(c in WILDS for c in cards), "duplicate": len(set(cards)) < len(cards),
                 "currency": any(c in CURRENCY for c in cards)}
        checked += all(kinds.values())
    assert checked >= 100  # the generator does mix wildcards, duplicates and currency in one collection


def test_score_matches_brute_force_on_wild_heavy_collections():
    # Many wildcards competing for few gaps: the hard part of the search.
    rng = random.Random(7)
    for _ in range(400):
        cards = [rng.choice(NUMBER_CARDS) for _ in range(rng.randint(4, 12))]
        cards += [rng.choice(NUMBERED_WILDS + COLOUR_WILDS) for _ in range(rng.randint(2, 4))]
        if rng.random() < 0.4:
            cards.append(SUPER_WILD)
        assert score(cards) == brute_score(cards), cards


def test_gains_are_what_one_more_card_adds_to_the_score():
    # scoring.gains works three ways: no wildcard shared between colours, one copy of each shared
    # wildcard (colour tables merged), and copies to share (every card scored); all three are met.
    # The reference is score(), which the tests above hold to the brute force.
    rng = random.Random(29)
    kinds = set()
    for i in range(1500):
        cards = _random_collection(rng)
        if i % 3 == 0:  # wild-heavy, as above
            cards += [rng.choice(NUMBERED_WILDS + COLOUR_WILDS + [SUPER_WILD]) for _ in range(rng.randint(1, 4))]
        counts = [0] * C.NUM_CARD_TYPES
        for card in cards:
            counts[C.parse(card)] += 1
        shared = [counts[C.parse(w)] for w in NUMBERED_WILDS + [SUPER_WILD]]
        kinds.add("copies" if max(shared) > 1 else "one each" if any(shared) else "none")
        before = score(cards)
        assert gains(counts) == [score(cards + [C.NAMES[card]]) - before for card in range(C.NUM_OWNABLE)], cards
    assert kinds == {"none", "one each", "copies"}


def test_colour_losses_are_what_giving_up_one_copy_costs():
    # Against score() on collections with no numbered or super wildcard (the only ones it takes),
    # for every number card and colour wildcard held; then the rulebook-sized case by hand.
    rng = random.Random(31)
    for _ in range(1000):
        cards = [c for c in _random_collection(rng) if c not in NUMBERED_WILDS + [SUPER_WILD]]
        cards += [rng.choice(COLOUR_WILDS) for _ in range(rng.randint(0, 2))]
        counts = [0] * C.NUM_CARD_TYPES
        for card in cards:
            counts[C.parse(card)] += 1
        held = [c for c in range(C.SUPER_WILD) if counts[c] and not C.FIRST_NUMBERED_WILD <= c < C.FIRST_COLOUR_WILD]
        before = score(cards)
        for card, loss in colour_losses(counts, held):
            rest = cards[:]
            rest.remove(C.NAMES[card])
            assert loss == before - score(rest), (cards, C.NAMES[card])
    counts = [0] * C.NUM_CARD_TYPES
    for card in ["B1", "B2", "B2", "B3", "B5", "B#"]:
        counts[C.parse(card)] += 1
    assert dict((C.NAMES[c], loss) for c, loss in colour_losses(counts, [C.parse(x) for x in ["B1", "B2", "B5", "B#"]])) \
        == {"B1": 1, "B2": 0, "B5": 1, "B#": 2}  # 1-5 with B# as 4; without B#, 1-3


# ---------------------------------------------------------------- the arrangement automatic payment judges


def _tied_hand(rng, extra_wilds):
    """A random collection with ``extra_wilds`` more wildcards, which could serve several colours
    (so best arrangements tie): its cards, and its counts per card id."""
    cards = _random_collection(rng)
    cards += [rng.choice(NUMBERED_WILDS[2:6] + COLOUR_WILDS + [SUPER_WILD]) for _ in range(extra_wilds)]
    counts = [0] * C.NUM_CARD_TYPES
    for card in cards:
        counts[C.parse(card)] += 1
    return cards, counts


def test_the_arrangement_payment_judges_is_the_one_rules_md_fixes():
    # used_in_best (which cards automatic payment may spend at no cost) against RULES.md's words,
    # (tests/oracles.py) on hands with ties: equal runs, wildcards that could serve several colours,
    # copies to share.
    from ten_env.scoring import used_in_best

    assert rules_arrangement(["B3", "B5"]) == {"B3": 1}
    assert rules_arrangement(["B2", "B4", "G2", "G4", "W3"]) == {"B2": 1, "W3": 1, "B4": 1, "G2": 1}
    rng = random.Random(41)
    paths = set()
    for i in range(600):
        cards, counts = _tied_hand(rng, extra_wilds=i % 4)
        shared = [counts[C.parse(w)] for w in NUMBERED_WILDS + [SUPER_WILD]]
        paths.add("copies" if max(shared) > 1 else "one each" if any(shared) else "none")
        engine = {C.NAMES[card]: k for card, k in enumerate(used_in_best(counts)) if k}
        assert engine == rules_arrangement(cards), cards
    assert paths == {"none", "one each", "copies"}


def test_copies_of_a_numbered_wildcard_beyond_the_colours_that_lack_it_are_judged_at_once():
    # A deck file may hold many copies of one numbered wildcard (only the published totals are
    # checked). A colour fills a number's gap once, so the arrangement search keeps only as many
    # copies as there are colours lacking the number; before, each copy doubled it (14 copies of
    # W5 took 50 s on the 2-core machine).
    import time

    from ten_env.scoring import used_in_best

    def used(cards):
        counts = [0] * C.NUM_CARD_TYPES
        for card in cards:
            counts[C.parse(card)] += 1
        return {C.NAMES[card]: k for card, k in enumerate(used_in_best(counts)) if k}

    hand = ["B1", "B2", "B5", "G3", "G6", "O4", "P6", "P7", "W7", "W7"]
    for copies in (1, 2, 3, 5):  # three colours lack 5: the last is beyond them
        assert used(hand + ["W5"] * copies) == rules_arrangement(hand + ["W5"] * copies), copies
    start = time.perf_counter()
    many = used(hand + ["W5"] * 40)
    assert time.perf_counter() - start < 2
    assert many == used(hand + ["W5"] * 5)  # the copies beyond are idle, as the rule says


def test_the_runs_a_record_shows_are_the_arrangement_rules_md_fixes():
    # The scoring runs of a game record (and the viewer) are the arrangement payment judges by,
    # checked against RULES.md's words (tests/oracles.py) on hands with ties.
    from ten_env.record import scoring_runs

    rng = random.Random(43)
    for i in range(600):
        cards, counts = _tied_hand(rng, extra_wilds=i % 4)
        runs = scoring_runs(counts)
        shown = {}
        for colour, run in zip("BGOP", runs):
            if run is None:
                continue
            for n in range(run["from"], run["to"] + 1):
                card = run["wild"].get(str(n), f"{colour}{n}")
                shown[card] = shown.get(card, 0) + 1
        assert shown == rules_arrangement(cards), cards
        assert sum(run["score"] for run in runs if run) == score(cards), cards


def test_score_is_order_independent_and_accepts_ids():
    from ten_env.cards import parse

    rng = random.Random(3)
    for _ in range(200):
        cards = _random_collection(rng)
        shuffled = cards[:]
        rng.shuffle(shuffled)
        assert score(shuffled) == score(cards)
        assert score([parse(c) for c in cards]) == score(cards)
        assert score(tuple(cards)) == score(iter(cards)) == score(cards)


# ---------------------------------------------------------------- hand-written cases


def test_empty_collection_scores_zero():
    assert score([]) == 0


@pytest.mark.parametrize("colour", COLOURS)
def test_complete_colour_scores_ten(colour):
    assert score([f"{colour}{n}" for n in range(1, 10)]) == 10
    # eight in a row is just 8: the bonus is only for the full 1-9
    assert score([f"{colour}{n}" for n in range(1, 9)]) == 8
    assert score([f"{colour}{n}" for n in range(2, 10)]) == 8


def test_four_complete_colours_score_forty():
    assert score(NUMBER_CARDS) == 40


@pytest.mark.parametrize(
    "cards",
    [
        ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "W5"],  # numbered wildcard
        ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "B#"],  # colour wildcard
        ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "W#"],  # super wildcard
        ["B1", "B3", "B5", "B7", "B9", "W2", "W4", "W6", "W8"],  # four numbered wildcards
        ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "W1", "W#"],  # both ends
        ["B#"] * 9,  # nothing but colour wildcards
        NUMBERED_WILDS,  # all nine numbered wildcards in one colour
    ],
)
def test_one_to_nine_completed_by_wildcards_scores_ten(cards):
    assert score(cards) == 10


def test_colour_wildcard_stays_in_its_colour():
    # G# cannot fill blue's gap at 5; alone in green it is a run of 1.
    assert score(["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "G#"]) == 4 + 1
    assert score(["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "G#"]) == 10


def test_numbered_wildcard_keeps_its_number():
    # W3 cannot fill the 5; its best use is a lone 3 in another colour (B3 is held).
    assert score(["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "W3"]) == 4 + 1


def test_each_wildcard_fills_one_place_only():
    # Blue 1 2 _ 4 _ 6: one W# fills one gap (3 -> run 1-4 = 4), not both.
    assert score(["B1", "B2", "B4", "B6", "W#"]) == 4
    assert score(["B1", "B2", "B4", "B6", "W#", "W#"]) == 6
    # One W5 cannot be a 5 in two colours at once.
    assert score(["B4", "B6", "G4", "G6", "W5"]) == 3 + 1
    assert score(["B4", "B6", "G4", "G6", "W5", "W5"]) == 3 + 3


def test_wildcards_split_between_colours_where_a_greedy_fails():
    # Blue holds 1 2 _ 4 _ 6 7 8 9 (gaps at 3 and 5), green holds 1 2 _ 4 5 (gap at 3).
    # Wildcards: W3 and W#.
    #   best: W3 -> blue 3, W# -> blue 5: blue 1-9 = 10, green 2 (1-2 or 4-5): 12.
    # A greedy that places one wildcard at a time where it gains most fails in either
    # order, because blue gains little from one wildcard but a lot from two:
    #   W3 first: green 3 gains 3 (2 -> 5) but blue 3 gains 0 (4 stays 4), so it goes to
    #     green; W# then fills blue 5 (4 -> 6): 6 + 5 = 11.
    #   W# first: green 3 gains 3, blue 5 only 2, so it goes to green; then W3 has no
    #     useful gap (blue 3 gains 0, green 3 is taken) and makes a lone 3: 4 + 5 + 1 = 10.
    cards = ["B1", "B2", "B4", "B6", "B7", "B8", "B9", "G1", "G2", "G4", "G5", "W3", "W#"]
    assert brute_score(cards) == 12
    assert score(cards) == 12


def test_colour_wildcard_and_super_wildcard_must_be_shared_well():
    # Blue 1 2 3 4 _ 6 7 8 9 needs one 5; pink 5 6 _ 8 needs one 7.
    # B# can only go in blue, so W# must go to pink: 10 + 4 = 14. Putting W# in
    # blue instead leaves B# with no blue gap to fill: 10 + 2 = 12.
    cards = ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "P5", "P6", "P8", "B#", "W#"]
    assert score(cards) == 14


def test_duplicates_do_not_extend_runs():
    assert score(["B1", "B1", "B2", "B2"]) == 2
    assert score(["B3", "B3", "B3"]) == 1
    assert score(["G4", "G4", "G5", "G7", "G7"]) == 2
    # two copies of a 1-9 colour are still 10, not more
    assert score([f"O{n}" for n in range(1, 10)] * 2) == 10


def test_colours_score_separately():
    # consecutive numbers in different colours are no run: four runs of length 1
    assert score(["B1", "G2", "O3", "P4"]) == 4
    assert score(["B1", "B2", "G3", "G4", "G5"]) == 2 + 3
    assert score(["B1", "B2", "B3", "B5", "B6"]) == 3  # only the longest run in a colour counts


def test_lone_wildcards_score_a_run_of_one():
    assert score(["G2"]) == 1  # as a lone number card does
    assert score(["W#"]) == 1
    assert score(["B#"]) == 1
    assert score(["W7"]) == 1
    # one in each of four colours
    assert score(["W1", "W1", "W1", "W1"]) == 4
    # a fifth copy has no colour left that lacks a 1
    assert score(["W1"] * 5) == 4


def test_currency_cards_are_accepted_and_add_nothing():
    # score() takes a collection of held cards; a currency card is never part of a
    # run, so with or without it the score is the same.
    assert score(["$3"]) == 0
    assert score(CURRENCY) == 0
    base = ["B1", "B2", "W3", "G#", "G7"]
    assert score(base) == 5  # the README's example: blue 1-3, green 6-7 (or 7-8)
    assert score(base + ["$3", "$5", "$1"]) == score(base)


@pytest.mark.parametrize(
    "bad", ["B0", "X3", "b3", "$6", "", "B10", "W0", "#", "B 3", " B3", "B3 ", "$0", "3B", "WW"]
)
def test_malformed_card_string_raises_value_error_quoting_it(bad):
    with pytest.raises(ValueError, match=rf"^malformed card {re.escape(repr(bad))}: {re.escape(C.GRAMMAR)}$"):
        score(["B1", bad, "B2"])


@pytest.mark.parametrize("bad", [None, 55, -1, 3.0, True])
def test_non_card_entries_raise_value_error(bad):
    # score() accepts notation strings or card ids 0-54. Anything else is a mistake in
    # the input and should be reported as such (ValueError), not crash with a
    # TypeError/IndexError or, worse, be read as some other card (-1 would index $5,
    # True would count as card id 1, B2).
    with pytest.raises(ValueError, match=rf"^not a card: {re.escape(repr(bad))}; give notation strings .* or ids 0-54$"):
        score(["B1", bad])


@pytest.mark.parametrize("bad", ["B1", "B1 B2", b"B1", 7, None])
def test_a_single_string_or_a_non_list_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match=r"score\(\) takes a list of cards, got " + re.escape(repr(bad))):
        score(bad)


def test_remembered_hand_scores_are_small():
    """The engine remembers up to 200,000 hands' scores in each process; keyed by a tuple of 50
    counts an entry took about 470 bytes (94 MB full), keyed by their bytes about 110."""
    import tracemalloc

    from ten_env import scoring

    rng = random.Random(7)
    hands = []
    for _ in range(5000):
        hand = [0] * C.NUM_OWNABLE
        for card in rng.sample(range(C.NUM_NUMBER_CARDS), 12):
            hand[card] = 1
        hands.append(hand)
    saved = dict(scoring._hand_scores)
    scoring._hand_scores.clear()
    try:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for hand in hands:
            assert scoring.hand_score(hand) == scoring.score_counts(hand)
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert len(scoring._hand_scores) > 4900
        assert grown / len(scoring._hand_scores) < 250, f"{grown / len(scoring._hand_scores):.0f} bytes a hand"
    finally:
        scoring._hand_scores.clear()
        scoring._hand_scores.update(saved)


def test_a_stacked_deck_of_hundreds_of_copies_is_scored_and_observed():
    """The memos of hands key a hand by its counts as bytes; a count beyond 255, which only a stacked
    deck can give, is kept by a tuple instead (bytes() refuses it)."""
    import numpy as np

    from ten_env import Game, Rules
    from ten_env import features as F
    from ten_env import observation as O

    game = Game(Rules(num_players=2), deck=["B1"] * 700)
    while not game.is_over:  # take nine B1s a turn
        names = game.legal_action_names()
        game.act("stop_numbers" if "stop_numbers" in names and game.net_total >= 9 else names[0])
        observation = O.encode(game, 0)
    assert game.hands[0][0] > 255 and game.hands[1][0] > 255 and game.scores() == [1, 1]
    assert observation[O.seat_block(0)][O.SEAT["hand"]] == game.hands[0][0]
    assert np.isfinite(F.extend(observation)).all()
