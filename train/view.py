"""``ten view GAME.json -o GAME.html``: a game record as one page to step through.

The page is a single HTML file with everything inline (its script, its style and
the record itself): it needs no server and no network, and opens from disk in
any browser. Step forward and back with its buttons or the arrow keys (Home and
End jump to the start and the end; a line of the game log jumps to that action).
For each moment it shows every player's cards by colour, the run that scores
highlighted (with the wildcards placed in it), coins, bust tokens and score; the
tableau with its net and currency totals; an auction as it goes (the bids so
far); the market; the deck's size and what is left in it; what the last action
did, in words; and, for a trained policy's decisions, the network's value and
its probability for each legal action. ``ten play --web`` serves the same page
(:mod:`train.webplay`).

Without ``-o`` the page is written beside the record, ending in ``.html``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ten_env import cards as C
from ten_env.actions import FIRST_BUY, action_names
from ten_env.game import BUST_LIMIT
from ten_env.payment import price
from ten_env.record import load_record

from .options import check_writable

if TYPE_CHECKING:
    import argparse

PAGE = Path(__file__).parent / "web" / "page.html"
GENERATOR = '<meta name="generator" content="ten-env">'  # in every page: one ten view may replace
# What the page says of the rules, from the engine's own constants: the cards' colours and
# numbers (its deck and hand tables), what busts, what a buy costs.
RULE_FACTS = {
    "colours": list(C.COLOURS),
    "numbers": C.NUMBERS,
    "currency_values": C.CURRENCY_VALUES,
    "bust_limit": BUST_LIMIT,
    "prices": {action_names(0)[FIRST_BUY + card]: price(card) for card in range(C.NUM_NUMBER_CARDS)},
}


def page(record: dict, live: dict | None = None) -> str:
    """The page for ``record``; ``live`` (``{"you": seat}``) makes it the page of a game being
    played, which sends the person's moves to the server it came from."""
    names = " vs ".join(p["name"] for p in record["players"])
    data = json.dumps({"record": record, "live": live, "rules": RULE_FACTS}, separators=(",", ":"))
    # "<" only ever appears inside JSON strings, where \u003c means the same: no "</script>" can end the block early
    data = data.replace("<", "\\u003c")
    title = names.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    head, tail = PAGE.read_text().split("__DATA__")
    return head.replace("__TITLE__", title) + data + tail


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="GAME.json", help="a game record (ten record, ten eval --save-games, "
                                                            "ten play --save)")
    parser.add_argument("-o", "--out", metavar="GAME.html", help="the page to write (default: beside the record)")
    parser.add_argument("--overwrite", action="store_true",
                        help="the page may replace a file that is not a page of ten view's (those it replaces)")


def is_page(path: Path) -> bool:
    """Whether ``path`` is a page that ``ten view`` (or ``ten play --web``) wrote."""
    try:
        with path.open("rb") as file:
            return GENERATOR.encode() in file.read(1024)
    except OSError:
        return False


def run(args: argparse.Namespace) -> int:
    """``ten view``: read and check the record, write the page (an older page of ten view's
    there is replaced, any other file only with ``--overwrite``); 0."""
    record = load_record(args.record)
    out = Path(args.record).with_suffix(".html") if args.out is None else Path(args.out)
    if out.resolve() == Path(args.record).resolve():
        raise ValueError(f"the page would overwrite the record {args.record!r}: give the page another name "
                         f"with -o, such as {str(Path(args.record).with_name(Path(args.record).stem + '-view.html'))!r}")
    # args.out as given: check_writable refuses an empty -o, which Path() would read as "."
    out = check_writable(args.out if args.out is not None else out, args.overwrite or is_page(out), "-o",
                         example="game.html")
    try:
        out.write_text(page(record))
    except OSError as exc:
        raise ValueError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
    steps = len(record["steps"])
    print(f"saved {out}: open it in a browser ({steps} action{'' if steps == 1 else 's'} to step through)")
    return 0
