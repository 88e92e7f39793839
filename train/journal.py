"""The journal of an evaluation: the games played so far, so that an interrupted ``ten eval`` can go on.

``ten eval`` writes ``progress.jsonl`` in its ``--out`` folder as it plays: a first
line that says which evaluation this is (the agent, the matchups with their rules,
the games, the first deck seed) and how its games are cut into chunks, then one line
per chunk played, with that chunk's tallies. When the report is saved the journal is
removed. If the run stops first (Ctrl-C, a closed terminal, a machine taken back),
``ten eval ... --resume`` with the same agent and options reads the journal, plays
only the chunks it lacks, on as many ``--jobs`` as it is given, and writes the report
an unbroken run would have written: game ``i`` of a matchup is always deck seed
``seed + i``, and each chunk's games are played as they would have been.

A line cut short by the run being killed while writing it is dropped (its chunk is
played again); any other damage is an error that says so.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from agents import Results
from agents.registry import network_of

from .runner import Chunk

JOURNAL = "progress.jsonl"
FORMAT = 1  # the journal's layout, written in its first line


def _plain(value):
    """``value`` as it reads back from JSON (tuples become lists), for comparing settings."""
    return json.loads(json.dumps(value))


def results_to_json(results: Results) -> dict:
    return asdict(results)


def results_from_json(data: dict) -> Results:
    fields = dict(data)
    fields["per_game"] = [(seed, tuple(outcomes), tuple(margins)) for seed, outcomes, margins in data["per_game"]]
    return Results(**fields)


def file_digests(agents, deck_file) -> dict:
    """The SHA-256 of each model file (or checkpoint folder) the ``agents`` play and of the deck
    file: a model retrained in place, or an edited deck, is another evaluation."""
    paths = [getattr(network_of(agent), "path", None) for agent in agents] + [deck_file]
    digests = {}
    for path in sorted({str(path) for path in paths if path is not None}):
        root = Path(path)
        files = sorted(file for file in root.rglob("*") if file.is_file()) if root.is_dir() else [root]
        digest = hashlib.sha256()
        for file in files:  # a folder's files by name and contents: a file renamed is a change too
            digest.update(file.relative_to(root).as_posix().encode())
            digest.update(file.read_bytes())
        digests[path] = digest.hexdigest()
    return digests


def identity(plan: dict) -> dict:
    """What makes two evaluations the same one, each part by its name: the agent, the JEN levels
    or the opponents, games, seed, the rules (``max_bid`` ...), and the files they read."""
    specs, rules = plan["matchups"][0]
    fields = {"agent": plan["agent"], "games": plan["games"], "seed": plan["seed"]}
    if plan["mode"] == "ladder":
        fields["levels"] = [matchup_rules["jen_level"] for _, matchup_rules in plan["matchups"]]
    else:
        fields["opponents"] = list(specs[1:])
    fields.update((key, value) for key, value in rules.items() if key != "jen_level")
    fields["files"] = plan["files"]
    return _plain(fields)


def _differences(journal: dict, wanted: dict) -> list[str]:
    """What differs between a journal's evaluation and the one asked for, each said with both values."""
    said = []
    for key in dict.fromkeys([*journal, *wanted]):
        if key in ("format", "chunks") or journal.get(key) == wanted.get(key):
            continue
        if key == "files":
            old, new = journal.get(key) or {}, wanted.get(key) or {}
            said += [f"{path!r} (its contents changed since the run began)" for path in old
                     if path in new and old[path] != new[path]]
            if set(old) != set(new):
                said.append(f"the files read ({', '.join(sorted(old)) or 'none'} then, "
                            f"{', '.join(sorted(new)) or 'none'} now)")
        else:
            said.append(f"{key} (the journal has {_show(journal.get(key))}, given {_show(wanted.get(key))})")
    return said


def _show(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "none"
    return str(value)


def _key(chunk: Chunk) -> tuple[int, int, int]:
    return chunk.index, chunk.first_seed, chunk.games


class Journal:
    """``progress.jsonl`` of one evaluation: :meth:`start` a new one or :meth:`resume` one,
    :meth:`record` each chunk as it ends, :meth:`finish` once the report is saved."""

    def __init__(self, path: Path, chunks: list[Chunk], done: dict):
        self.path = path
        self.chunks = chunks
        self.done = done  # chunk key -> (matchup index, Results)

    @property
    def remaining(self) -> list[Chunk]:
        return [chunk for chunk in self.chunks if _key(chunk) not in self.done]

    @classmethod
    def start(cls, folder: Path, plan: dict, chunks: list[Chunk]) -> "Journal":
        """A new journal for ``plan`` played as ``chunks`` (an older one in ``folder`` is replaced)."""
        path = Path(folder) / JOURNAL
        header = {"format": FORMAT, **identity(plan), "chunks": [list(_key(c)) for c in chunks]}
        try:
            path.write_text(json.dumps(header) + "\n")
        except OSError as exc:
            raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return cls(path, chunks, {})

    @classmethod
    def resume(cls, folder: Path, plan: dict) -> "Journal":
        """The journal in ``folder``, checked to be ``plan``'s; ``ValueError`` saying what is wrong."""
        path = Path(folder) / JOURNAL
        if not path.is_file():
            finished = " (its report.json is of a finished one)" if (Path(folder) / "report.json").is_file() else ""
            raise ValueError(f"--resume: {str(folder)!r} holds no evaluation to resume (no {JOURNAL}){finished}")
        try:
            lines = path.read_text().splitlines()
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
            raise ValueError(f"--resume: {str(path)!r} is not a ten eval journal of this version; "
                             f"start again with --overwrite")
        differ = _differences(header, identity(plan))
        if differ:
            raise ValueError(f"--resume: {str(folder)!r} holds an evaluation with other settings "
                             f"(differs in: {'; '.join(differ)}); give the same agent and options as that run, "
                             f"or another --out")
        try:
            chunks = [Chunk(index, tuple(plan["matchups"][index][0]), plan["matchups"][index][1], first_seed, games,
                            plan["trust"]) for index, first_seed, games in header["chunks"]]
            done = {}
            for entry in entries[1:]:
                key = tuple(entry["chunk"])
                done[key] = (key[0], results_from_json(entry["results"]))
        except (KeyError, IndexError, TypeError, ValueError):
            raise ValueError(f"--resume: {str(path)!r} is damaged; start again with --overwrite") from None
        if not set(done) <= {_key(c) for c in chunks}:
            raise ValueError(f"--resume: {str(path)!r} is damaged (a chunk it does not plan); "
                             f"start again with --overwrite")
        if cut_short:  # rewritten without it, so that the next line starts on a line of its own
            try:
                path.write_text("".join(line + "\n" for line in lines[:-1]))
            except OSError as exc:
                raise ValueError(f"--resume: cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return cls(path, chunks, done)

    def record(self, chunk: Chunk, result: tuple[int, Results]) -> None:
        """Add a chunk just played (written at once: a run stopped next loses no more than the chunks under way)."""
        self.done[_key(chunk)] = result
        line = json.dumps({"chunk": list(_key(chunk)), "results": results_to_json(result[1])})
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
        """The report is saved: the journal has served."""
        self.path.unlink(missing_ok=True)
