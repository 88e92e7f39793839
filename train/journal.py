"""The journal of a long run of games: the chunks played so far, so that an interrupted
``ten eval``, ``ten league`` or ``ten distill generate`` can go on.

``ten eval`` and ``ten league`` write ``progress.jsonl`` in their ``--out`` folder as they
play (``ten distill generate -o DATA.npz`` in ``DATA.parts/``, beside its chunks' arrays): a
first line that says which run this is (the agents, the levels or opponents or table size,
the rules, the games, the first deck seed, the digests of the files it reads and of the code
that plays them) and how its
games are cut into chunks, then one line per chunk played, with what that chunk gave (its
tallies, its games' records, or the file of its arrays). When the report (the data) is saved the journal is
removed. If the run stops first (Ctrl-C, a closed terminal, a machine taken back), the
same command with ``--resume`` reads the journal, plays only the chunks it lacks, on as
many ``--jobs`` as it is given, and writes what an unbroken run would have written:
game ``i`` of a matchup is always deck seed ``seed + i``, and each chunk's games are
played as they would have been.

A line cut short by the run being killed while writing it is dropped (its chunk is
played again); any other damage is an error that says so, before any game: a line that is
not what its chunk's games give (each codec's ``fits``), or chunks that no longer cover the
games.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import time
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, NamedTuple

import agents
import ten_env
from agents import Results
from agents.base import AgentFailed
from agents.policy import PRETRAINED_DIR
from agents.registry import entry_point_file, network_of
from agents.tournament import AGENT_SEEDS
from ten_env.record import write_atomically
from ten_env.rules import ENGINE_VERSION, ends_as_engine_1

from .options import is_whole
from .runner import Chunk

JOURNAL = "progress.jsonl"
FORMAT = 1  # the journal's layout, written in its first line


def _plain(value: object) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), for comparing settings."""
    return json.loads(json.dumps(value))


def results_to_json(results: Results) -> dict:
    return asdict(results)


def results_from_json(data: dict) -> Results:
    fields = dict(data)
    fields["per_game"] = [(seed, tuple(outcomes), tuple(margins)) for seed, outcomes, margins in data["per_game"]]
    return Results(**fields)


class Codec(NamedTuple):
    """How a chunk's result is kept: ``encode(chunk, result)`` gives what its line holds (and may
    write files beside the journal), ``decode(entry)`` reads the result back from that line
    (``None``: it is lost, a file of it gone or damaged, and the chunk is played again), and
    ``fits(chunk, result)`` says whether a result read back is one that chunk's games could give
    (a line edited by hand or damaged is not: the journal is refused)."""

    encode: Callable
    decode: Callable
    fits: Callable = lambda chunk, result: True


def tallies_fit(chunk: Chunk, result: tuple[int, Results]) -> bool:
    """Whether ``(matchup index, Results)`` is what ``chunk``'s games give: one game per deck seed
    of the chunk, in order, each with an outcome and a whole margin per agent, and tallies that
    add up to them."""
    index, r = result
    n = len(chunk.specs)
    seeds = list(range(chunk.first_seed, chunk.first_seed + chunk.games))
    if index != chunk.index or r.games != chunk.games or [game[0] for game in r.per_game] != seeds:
        return False
    if any(not isinstance(outcomes, tuple) or len(outcomes) != n or not set(outcomes) <= set("WTL")
           or not isinstance(margins, tuple) or len(margins) != n or not all(map(is_whole, margins))
           for _, outcomes, margins in r.per_game):
        return False
    tallies = (r.wins, r.shared_wins, r.total_scores, r.margins, r.decisions, r.seconds)
    if any(not isinstance(t, list) or len(t) != n for t in tallies) or not all(
            is_whole(x) for t in tallies[:5] for x in t) or not all(isinstance(x, (int, float)) for x in r.seconds):
        return False
    return all(r.wins[a] == sum(game[1][a] == "W" for game in r.per_game)
               and r.shared_wins[a] == sum(game[1][a] == "T" for game in r.per_game)
               and r.margins[a] == sum(game[2][a] for game in r.per_game) for a in range(n))


#: ``ten eval``'s chunks: ``(matchup index, Results)``, the tallies on the line itself.
TALLIES = Codec(lambda chunk, result: {"results": results_to_json(result[1])},
                lambda entry: (entry["chunk"][0], results_from_json(entry["results"])), tallies_fit)


def _shipped(file: Path) -> str:
    """The name a journal gives a model shipped in the package, wherever the package lies."""
    return f"agents/pretrained/{file.name}"


def _portable(path: str) -> str:
    """``path``, but a model shipped in this package's ``agents/pretrained/`` named by its place
    in the package (``agents/pretrained/ppo-jen.zip``), wherever the package lies: a run then
    resumes in another checkout or on another machine (its contents must still match)."""
    file = Path(path)
    try:
        shipped = file.resolve().parent == PRETRAINED_DIR.resolve()
    except OSError:
        shipped = False
    return _shipped(file) if shipped else path


def _journal_files(files: dict, wanted: dict) -> dict:
    """A journal's ``files``, a shipped model that an older journal names by its whole path
    (``/home/.../agents/pretrained/ppo-jen.zip``) renamed as :func:`_portable` names it now,
    where that is the name asked for and the whole path is not."""
    renamed = {}
    for path, digest in files.items():
        file = Path(path)
        short = _shipped(file)
        moved = file.parent.name == "pretrained" and file.parent.parent.name == "agents"
        renamed[short if moved and short in wanted and path not in wanted and short not in files else path] = digest
    return renamed


def file_digests(agents: Iterable[object], deck_file: str | None, specs: Iterable[str] = ()) -> dict:
    """The SHA-256 of each model file (or checkpoint folder) the ``agents`` play, of the file that
    defines each of the agents named ``specs`` that is your own code (``<module>:<name>``,
    :func:`agents.registry.entry_point_file`), and of the deck file, by path (:func:`_portable`):
    a model retrained in place, an agent's code edited, or an edited deck, is another evaluation."""
    paths = [getattr(network_of(agent), "path", None) for agent in agents] + [deck_file]
    paths += [entry_point_file(spec) for spec in specs]
    digests = {}
    for path in sorted({str(path) for path in paths if path is not None}):
        root = Path(path)
        files = sorted(file for file in root.rglob("*") if file.is_file()) if root.is_dir() else [root]
        digest = hashlib.sha256()
        for file in files:  # a folder's files by name and contents: a file renamed is a change too
            digest.update(file.relative_to(root).as_posix().encode())
            digest.update(file.read_bytes())
        digests[_portable(path)] = digest.hexdigest()
    return digests


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with the docstring of its module, classes and functions removed (in place)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _canonical(node: object) -> str:
    """``node`` as text that the same code gives under every Python this project runs on:
    ``ast.dump`` does not (3.12 added ``type_params=[]`` to every function and class, 3.13 leaves
    out empty and ``None`` fields), so fields are listed here, and empty ones left out."""
    if isinstance(node, ast.AST):
        fields = (f"{name}={_canonical(value)}" for name in node._fields
                  if (value := getattr(node, name, None)) is not None and value != [])
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return f"[{','.join(map(_canonical, node))}]"
    return repr(node)


def code_digests(roots: tuple[Path, ...] | None = None) -> dict:
    """A digest of each source file of the code that decides games (the packages ``ten_env`` and
    ``agents``, or the folders ``roots``), by its path under its package's parent: of a module its
    syntax tree without docstrings, so that comments, docstrings and layout do not count; of a data
    file (the bundled deck) its bytes. The networks an agent plays are digested apart
    (:func:`file_digests`)."""
    if roots is None:
        return dict(_installed_code())
    digests = {}
    for root in roots:
        root = Path(root)
        for file in sorted(root.rglob("*")):
            if not file.is_file() or (file.suffix != ".py" and file.parent.name != "data") or (
                    "__pycache__" in file.parts):
                continue  # a model's card or bytecode decides no game
            data = file.read_bytes()
            if file.suffix == ".py":
                data = _canonical(_without_docstrings(ast.parse(data, filename=str(file)))).encode()
            digests[file.relative_to(root.parent).as_posix()] = hashlib.sha256(data).hexdigest()[:16]
    return digests


@lru_cache(maxsize=1)
def _installed_code() -> tuple:
    return tuple(code_digests((Path(ten_env.__file__).parent, Path(agents.__file__).parent)).items())


def code_digest(digests: dict | None = None) -> str:
    """One digest of :func:`code_digests` (of the installed code when ``None``), for a report to
    say which code played its games."""
    digests = code_digests() if digests is None else digests
    return hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()[:16]


#: The last commit of each former agent seeding (:data:`agents.tournament.AGENT_SEEDS`).
SEEDING_COMMITS = {1: " (commit ed8c282 or earlier)"}


def identity(plan: dict) -> dict:
    """What makes two evaluations the same one, each part by its name: the agent, the JEN levels
    or the opponents, games, seed, the rules (``max_bid`` ...), and the files they read."""
    specs, rules = plan["matchups"][0]
    fields = {"agent": plan["agent"], "games": plan["games"], "seed": plan["seed"]}
    if plan["mode"] == "ladder":
        fields["levels"] = [matchup_rules["jen_level"] for _, matchup_rules in plan["matchups"]]
    else:
        fields["opponents"] = list(specs[1:])
    return with_rules_and_files(fields, plan)


def with_rules_and_files(fields: dict, plan: dict) -> dict:
    """``fields`` and the rules of ``plan``'s matchups (but the JEN level) and the digests of its files;
    for games whose results the engine's version decides otherwise (:func:`ten_env.rules.ends_as_engine_1`),
    the engine's version too, so that a run begun by another is not finished by this one; how agents
    are seeded, and the digests of the code that plays the games (:func:`code_digests`), for the same
    reason."""
    rules = plan["matchups"][0][1]
    fields = {**fields, **{key: value for key, value in rules.items() if key != "jen_level"}, "files": plan["files"]}
    if not ends_as_engine_1(rules):
        fields["engine"] = ENGINE_VERSION
    fields["agent_seeds"] = AGENT_SEEDS
    fields["code"] = code_digests()
    return _plain(fields)


def _same_deck(journal: dict, wanted: dict) -> dict:
    """``wanted``, its deck file named as the journal names it where the two hold the same bytes:
    a deck named by another path (relative or whole, from another folder, moved) is the same deck."""
    old, new = journal.get("deck_file"), wanted.get("deck_file")
    old_files, new_files = journal.get("files") or {}, wanted.get("files") or {}
    if old is None or new is None or old == new or old_files.get(old) != new_files.get(new) or old in new_files:
        return wanted
    return {**wanted, "deck_file": old,
            "files": {old if path == new else path: digest for path, digest in new_files.items()}}


def _differences(journal: dict, wanted: dict) -> list[str]:
    """What differs between a journal's evaluation and the one asked for, each said with both values."""
    wanted = _same_deck(journal, wanted)
    said = []
    for key in dict.fromkeys([*journal, *wanted]):
        if key in ("format", "chunks", "code") or journal.get(key) == wanted.get(key):
            continue
        if key == "files":
            new = wanted.get(key) or {}
            old = _journal_files(journal.get(key) or {}, new)
            if old == new:
                continue
            said += [f"{path!r} (its contents changed since the run began)" for path in old
                     if path in new and old[path] != new[path]]
            if set(old) != set(new):
                said.append(f"the files read ({', '.join(sorted(old)) or 'none'} then, "
                            f"{', '.join(sorted(new)) or 'none'} now)")
        else:
            said.append(f"{key} (the journal has {_show(journal.get(key))}, given {_show(wanted.get(key))})")
    return said


def _show(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "none"
    return str(value)


def _key(chunk: Chunk) -> tuple[int, int, int]:
    return chunk.index, chunk.first_seed, chunk.games


def _covers(chunks: list[Chunk], plan: dict) -> bool:
    """Whether ``chunks`` play every game of every matchup of ``plan`` once (deck seeds ``seed`` to
    ``seed + games - 1``), each chunk starting at a multiple of its table size, as :func:`chunks`
    cuts them (so that the seats rotate as in one run)."""
    for index, (specs, _) in enumerate(plan["matchups"]):
        mine = sorted((c.first_seed, c.games) for c in chunks if c.index == index)
        start = plan["seed"]
        for first_seed, games in mine:
            if first_seed != start or games < 1 or (first_seed - plan["seed"]) % len(specs):
                return False
            start += games
        if start != plan["seed"] + plan["games"]:
            return False
    return all(0 <= c.index < len(plan["matchups"]) for c in chunks)


def check_resumable(folder: Path, what: str = "evaluation", finished: Path | None = None) -> None:
    """``ValueError`` if ``folder`` holds no journal to resume; ``finished`` is the file a finished
    run leaves, named when it is there. Cheap: callers check it before loading any agent."""
    if not (Path(folder) / JOURNAL).is_file():
        done = f" ({str(finished)!r} is that of a finished one)" if finished and finished.is_file() else ""
        raise ValueError(f"--resume: {str(folder)!r} holds no {what} to resume (no {JOURNAL}){done}")


class Journal:
    """``progress.jsonl`` of one run: :meth:`start` a new one or :meth:`resume` one, :meth:`record`
    each chunk as it ends, :meth:`finish` once what the run makes is saved."""

    def __init__(self, path: Path, chunks: list[Chunk], done: dict, codec: Codec, seconds_before: float = 0.0):
        self.path = path
        self.chunks = chunks
        self.done = done  # chunk key -> result (as the codec reads it back)
        self.codec = codec
        self.seconds_before = seconds_before  # the wall time of the chunks kept by earlier sessions
        self.started = time.perf_counter()

    @property
    def remaining(self) -> list[Chunk]:
        return [chunk for chunk in self.chunks if _key(chunk) not in self.done]

    def kept(self) -> list[tuple[Chunk, object]]:
        """The chunks done, each with its result, in the order of the plan."""
        return [(chunk, self.done[_key(chunk)]) for chunk in self.chunks if _key(chunk) in self.done]

    @property
    def played(self) -> int:
        """The games of the chunks done."""
        return sum(games for _, _, games in self.done)

    @property
    def seconds(self) -> float:
        """The wall time spent on the run, earlier sessions' up to their last chunk kept included."""
        return self.seconds_before + time.perf_counter() - self.started

    @classmethod
    def start(cls, folder: Path, identity: dict, chunks: list[Chunk], codec: Codec = TALLIES) -> "Journal":
        """A new journal of the run ``identity`` names, played as ``chunks`` (an older one in ``folder``
        is replaced)."""
        path = Path(folder) / JOURNAL
        header = {"format": FORMAT, **identity, "chunks": [list(_key(c)) for c in chunks]}
        try:  # whole or not at all: a header cut short would block both the retry and --resume
            write_atomically(path, lambda tmp: tmp.write_text(json.dumps(header) + "\n"))
        except OSError as exc:
            raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return cls(path, chunks, {}, codec)

    @classmethod
    def resume(cls, folder: Path, identity: dict, plan: dict, codec: Codec = TALLIES, what: str = "evaluation",
               finished: Path | None = None, same: str = "the same agent and options as that run, or another --out"
               ) -> "Journal":
        """The journal in ``folder``, checked to be of the run ``identity`` names, its chunks those of
        ``plan``'s matchups; ``ValueError`` saying what is wrong. ``what`` names the kind of run in
        the messages, ``same`` what to give instead of other settings; ``finished``: see
        :func:`check_resumable`."""
        check_resumable(folder, what, finished)
        path = Path(folder) / JOURNAL
        try:
            text = path.read_text()
            lines = text.splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"--resume: cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
        entries, cut_short = [], False
        for number, line in enumerate(lines, 1):
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                if number == len(lines) and number > 1:
                    cut_short = True  # by the run being killed mid-write: that chunk is played again
                    break
                raise ValueError(f"--resume: {str(path)!r} is damaged (line {number}); "
                                 f"start again with --overwrite") from None
        header = entries[0] if entries else None
        if not isinstance(header, dict) or header.get("format") != FORMAT or "chunks" not in header:
            raise ValueError(f"--resume: {str(path)!r} is not a ten-env journal of this version; "
                             f"start again with --overwrite")
        damaged = ValueError(f"--resume: {str(path)!r} is damaged; start again with --overwrite")
        differ = _differences(header, identity)
        article = "an" if what[0] in "aeiou" else "a"
        seeding = header.get("agent_seeds", 1)  # journals before it seeded agents the first way
        if seeding != identity.get("agent_seeds"):  # no option of today's code matches it
            raise ValueError(f"--resume: {str(folder)!r} holds {article} {what} begun by code that seeded its "
                             f"agents otherwise (agents.tournament.AGENT_SEEDS {seeding}, now "
                             f"{identity.get('agent_seeds')}): finish it with that code"
                             f"{SEEDING_COMMITS.get(seeding, '')}, or start again with --overwrite")
        code, now = header.get("code"), identity["code"]  # journals before it did not keep it
        if code is not None and not (isinstance(code, dict) and all(isinstance(v, str) for v in code.values())):
            raise damaged
        if code is not None and code != now:
            changed = sorted(name for name in {*code, *now} if code.get(name) != now.get(name))
            raise ValueError(f"--resume: {str(folder)!r} holds {article} {what} begun by other code (changed "
                             f"since: {', '.join(changed)}): the games still to play would not be played as "
                             f"those before; finish it with that code, or start again with --overwrite")
        if differ:
            raise ValueError(f"--resume: {str(folder)!r} holds {article} {what} with other settings "
                             f"(differs in: {'; '.join(differ)}); give {same}")
        try:
            if not all(isinstance(key, list) and len(key) == 3 and all(map(is_whole, key)) for key in header["chunks"]):
                raise damaged
            chunks = [Chunk(index, tuple(plan["matchups"][index][0]), plan["matchups"][index][1], first_seed, games,
                            plan.get("trust", False)) for index, first_seed, games in header["chunks"]]
            planned = {_key(c): c for c in chunks}
            done = {tuple(entry["chunk"]): codec.decode(entry) for entry in entries[1:]}
            done = {key: result for key, result in done.items() if result is not None}
            seconds = float(entries[-1].get("seconds", 0.0)) if len(entries) > 1 else 0.0
            fits = all(codec.fits(planned[key], result) for key, result in done.items() if key in planned)
            covers = _covers(chunks, plan)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OSError, zipfile.BadZipFile):
            raise damaged from None
        if not set(done) <= set(planned):
            raise ValueError(f"--resume: {str(path)!r} is damaged (a chunk it does not plan); "
                             f"start again with --overwrite")
        if not fits or not covers:
            raise damaged
        # Rewritten without a line cut short, or with the newline a whole last line lacks, so that
        # the next line starts on a line of its own.
        kept = lines[:-1] if cut_short else lines if not text.endswith("\n") else None
        if kept is not None:
            try:
                path.write_text("".join(line + "\n" for line in kept))
            except OSError as exc:
                raise ValueError(f"--resume: cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return cls(path, chunks, done, codec, seconds)

    def let_go(self) -> None:
        """Forget the chunks' results, keeping which are done: a caller that holds them can then free
        each as it uses it (``ten distill generate``'s arrays, gigabytes)."""
        self.done = dict.fromkeys(self.done)

    def record(self, chunk: Chunk, result: object) -> None:
        """Add a chunk just played (written at once: a run stopped next loses no more than the chunks under way)."""
        self.done[_key(chunk)] = result
        try:
            kept = self.codec.encode(chunk, result)
        except OSError as exc:
            raise ValueError(f"cannot write beside {str(self.path)!r}: {exc.strerror or exc}") from None
        line = json.dumps({"chunk": list(_key(chunk)), "seconds": round(self.seconds, 3), **kept})
        try:
            # "r+", not "a": a journal removed meanwhile (another run on this --out finished) is not
            # silently begun again without its first line.
            with open(self.path, "r+") as file:
                file.seek(0, 2)
                file.write(line + "\n")
        except OSError as exc:
            raise ValueError(f"cannot write {str(self.path)!r}: {exc.strerror or exc}; the chunks that ended "
                             f"before are kept there, if it is") from None

    def finish(self) -> None:
        """What the run makes is saved: the journal has served."""
        self.path.unlink(missing_ok=True)


class Resumable:
    """What ``ten eval``, ``ten league`` and ``ten distill generate`` share about ``--resume`` and ``--overwrite``,
    in the order a command meets it: the options checked against ``folder`` (built before any
    agent loads), :meth:`open` the journal once the run is planned, play inside
    :meth:`playing`, save what the run makes inside :meth:`saving`, then ``journal.finish()``.

    ``what`` names the run in messages ("evaluation"), ``of`` says whose ("in 'runs/x'"),
    ``place`` how they name the folder ("--out 'runs/x'"), ``option`` is the command's output
    option (``--out``, ``-o``), ``same`` what a resume must be given again ("the same agent and
    options"), ``product`` what the run saves ("the report"), ``finished`` the file a finished
    run leaves, ``save_errors`` the exceptions by which saving it fails."""

    def __init__(self, folder: Path, resume: bool, overwrite: bool, *, what: str, of: str, place: str,
                 option: str, same: str, product: str, finished: Path, save_errors: tuple[type[Exception], ...]):
        self.folder, self.resume = Path(folder), resume
        self.what, self.option, self.same, self.product, self.finished = what, option, same, product, finished
        self.save_errors = save_errors
        if resume and overwrite:
            raise ValueError(f"--resume goes on with the {what} {of} and --overwrite starts it again: "
                             f"give one of them")
        if resume:
            check_resumable(self.folder, what, finished)
        elif not overwrite and (self.folder / JOURNAL).exists():
            raise ValueError(f"{place} holds an unfinished {what} ({JOURNAL}): use --resume to go on "
                             f"with it ({same}), --overwrite to start again, or another {option}")

    def open(self, identity: dict, plan: dict, chunks: list[Chunk], codec: Codec = TALLIES,
             prepare: Callable[[], object] = lambda: None) -> Journal:
        """The journal of the run ``identity`` names: the one in the folder, checked, with ``--resume``
        (``prepare()`` after the check), else a new one played as ``chunks`` (``prepare()`` before it:
        what ``--overwrite`` clears, and the folder made)."""
        if not self.resume:
            prepare()
            return Journal.start(self.folder, identity, chunks, codec)
        journal = Journal.resume(self.folder, identity, plan, codec, self.what, self.finished,
                                 same=f"{self.same} as that run, or another {self.option}")
        prepare()
        total = sum(chunk.games for chunk in journal.chunks)
        print(f"resuming {str(journal.path)!r}: {journal.played} of {total} games already played")
        return journal

    @contextmanager
    def playing(self) -> Iterator[None]:
        """Ctrl-C while the games are played says where they are kept and how to go on, and so does
        the one line of an agent of yours that failed (the same command was then refused, the
        folder holding an unfinished run, and a --resume after mending the agent's file too)."""
        try:
            yield
        except KeyboardInterrupt:
            print(f"\nthe games played so far are kept in {str(self.folder)!r}: run the same command with "
                  f"--resume to go on", file=sys.stderr)
            raise
        except AgentFailed as exc:
            exc.args = (f"{exc}; the run is kept in {str(self.folder)!r}: once the agent is mended, the same "
                        f"command with --overwrite plays it again from the start",)
            raise

    @contextmanager
    def saving(self) -> Iterator[None]:
        """A save that fails (one of ``save_errors``) is a ``ValueError`` that says the games are
        kept for ``--resume``; any other error is not one that a resume would get past."""
        try:
            yield
        except self.save_errors as exc:
            reason = (f"cannot save {self.product} in {str(self.folder)!r}: {exc.strerror or exc}"
                      if isinstance(exc, OSError) else str(exc))
            raise ValueError(f"{reason}; the games are kept in {str(self.folder)!r}: --resume saves "
                             f"{self.product} once it can be written") from None
