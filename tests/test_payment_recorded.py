"""Automatic payment chooses exactly what it chose before engine v2.

``data/auto_payment_cases.json.gz`` holds 14,759 payments recorded with the engine
as it was before its rewrite for speed (every automatic payment of seeded random
games for 2-5 players, the busting variant and the solitaire game, then
wildcard-rich random hands); :func:`ten_env.payment.automatic` must spend the
same coins, bust tokens and cards in every one.
"""

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from ten_env import cards as C
from ten_env import payment

CASES = json.loads(gzip.open(Path(__file__).parent / "data" / "auto_payment_cases.json.gz", "rt").read())["cases"]


def _counts(names):
    counts = [0] * C.NUM_OWNABLE
    for name in names:
        counts[C.parse(name)] += 1
    return counts


def test_the_recording_covers_every_kind_of_payment():
    kinds = Counter((bool(c["spent"]["cards"]), c["spent"]["bust_tokens"] > 0, c["duplicates_only"]) for c in CASES)
    assert len(CASES) > 10_000
    assert all(kinds[(cards, tokens, dup)] > 20 for cards in (True, False) for tokens in (True, False)
               for dup in (True, False))


@pytest.mark.parametrize("part", range(4))
def test_automatic_payment_spends_what_it_spent_before(part):
    wrong = []
    for case in CASES[part::4]:
        hand = _counts(case["hand"])
        paid = payment.automatic(hand, case["coins"], case["bust_tokens"], case["price"],
                                 C.parse(case["incoming"]), case["duplicates_only"])
        got = {"coins": paid.coins, "bust_tokens": paid.bust_tokens,
               "cards": sorted(C.NAMES[c] for c in paid.cards)}
        want = dict(case["spent"], cards=sorted(case["spent"]["cards"]))
        if got != want:
            wrong.append((case, got))
        assert hand == _counts(case["hand"]), "automatic() must not change the hand it is given"
    assert not wrong, f"{len(wrong)} payments differ, first: {wrong[0]}"
