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

import json
from dataclasses import asdict
from pathlib import Path

from agents import Results

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


def identity(plan: dict) -> dict:
    """What makes two evaluations the same one: the agent, matchups (agents and rules), games and seed."""
    return _plain({"agent": plan["agent"], "mode": plan["mode"], "matchups": plan["matchups"],
                   "games": plan["games"], "seed": plan["seed"]})


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
            raise ValueError(f"--resume: {str(folder)!r} holds no evaluation to resume (no {JOURNAL})")
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
        wanted = identity(plan)
        differ = [name for name in wanted if header.get(name) != wanted[name]]
        if differ:
            raise ValueError(f"--resume: {str(folder)!r} holds an evaluation with other settings "
                             f"(differs in: {', '.join(differ)}); give the same agent and options as that run, "
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
        with open(self.path, "a") as file:
            file.write(line + "\n")

    def finish(self) -> None:
        """The report is saved: the journal has served."""
        self.path.unlink(missing_ok=True)
