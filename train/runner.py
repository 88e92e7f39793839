"""Playing the games of an evaluation: seeded chunks of games, in this process or on worker processes.

A *matchup* is ``(specs, rules)``: the agent specs of a table (the evaluated agent
first) and the game, as a :class:`ten_env.Rules` or a dict of its fields. Its
games are cut into :class:`Chunk` s; game ``i`` always uses deck seed
``seed + i`` and the seats rotate as in one :func:`agents.play_games` call, so
the totals do not depend on the number of workers.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from agents import Results, play_games
from agents.registry import make_agent
from ten_env import Rules
from agents.rllib_policy import TRUSTED_WARNING

if TYPE_CHECKING:
    from types import FrameType

    from agents.base import Player

    from .journal import Journal

_R = TypeVar("_R")


def load_agent(spec: str, seed: int | None = None, trust: bool = False) -> Player:
    """The agent named by ``spec``; ``trust`` lets a model file be loaded by unpickling."""
    # ``trust`` is only passed when asked for, so make_agent without the keyword keeps working.
    return make_agent(spec, seed=seed, **({"trust": True} if trust else {}))


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


class Chunk(NamedTuple):
    """Games ``first_seed`` to ``first_seed + games - 1`` of matchup ``index``."""

    index: int  # type: ignore[assignment]  # a field named like tuple.index, which it shadows
    specs: tuple
    rules: Rules | dict[str, Any]  # a Rules, or a dict of its fields (what evaluate() sends)
    first_seed: int
    games: int
    trust: bool = False


def seat_agents(specs: tuple, cache: dict, trust: bool = False) -> list:
    """The agents for a table of ``specs``, one instance per seat, reused from ``cache``."""
    agents = []
    for position, spec in enumerate(specs):
        key = (position, spec, trust)
        if key not in cache:
            cache[key] = load_agent(spec, seed=position, trust=trust)
        agents.append(cache[key])
    return agents


def play_chunk(chunk: Chunk, cache: dict) -> tuple[int, Results]:
    """``(matchup index, results)`` of the games of ``chunk``, with agents from ``cache``."""
    agents = seat_agents(chunk.specs, cache, chunk.trust)
    return chunk.index, play_games(agents, chunk.rules, n=chunk.games, seed=chunk.first_seed)


_WORKER_CACHE: dict = {}


def _worker_init() -> None:
    # The parent handles Ctrl-C and a closed terminal (both reach the whole process group) and
    # stops its workers; one thread per worker since the workers fill the cores.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # The parent said it once when it loaded the agents to check them; a worker's copy would repeat it.
    warnings.filterwarnings("ignore", message=TRUSTED_WARNING)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def _play_in_worker(play: Callable[[Chunk, dict], _R], chunk: Chunk) -> _R:
    """``play(chunk, cache)`` in a worker process, its agents kept for the worker's next chunks."""
    result = play(chunk, _WORKER_CACHE)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return result


#: A chunk's games at most (rounded down to whole seat rotations): a chunk is what a stopped
#: evaluation loses (``ten eval --resume`` goes on from the chunks that ended), and a search's
#: chunk of this size already takes minutes.
MAX_CHUNK_GAMES = 24


def chunks(matchups: list[tuple], games: int, seed: int, jobs: int, trust: bool = False) -> list[Chunk]:
    """Chunks covering every game of every matchup once: enough of them to keep ``jobs`` workers
    busy, and none of more than about :data:`MAX_CHUNK_GAMES` games.

    Each chunk starts at a multiple of the table size, so ``play_games`` rotates the
    seats exactly as one call for the whole matchup would.
    """
    per_matchup = max(1, math.ceil(max(8 * jobs, 4 * len(matchups)) / len(matchups)))
    tasks = []
    for index, (specs, rules) in enumerate(matchups):
        k = len(specs)
        size = max(k, math.ceil(math.ceil(games / per_matchup) / k) * k)
        size = min(size, max(k, MAX_CHUNK_GAMES // k * k))
        for offset in range(0, games, size):
            tasks.append(Chunk(index, tuple(specs), rules, seed + offset, min(size, games - offset), trust))
    return tasks


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    """End the workers now, the run being over (Ctrl-C, an error). Their chunks would be lost
    anyway (a journal keeps the chunks that ended), and a search's chunk takes minutes."""
    # Taken first: terminate_workers shuts the executor down, which drops both.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    results = getattr(executor, "_result_queue", None)
    terminate = getattr(executor, "terminate_workers", None)  # Python 3.14 on
    if terminate is not None:
        terminate()
    else:
        for process in processes:
            process.terminate()
    # A worker ended while sending its result leaves half a message in the result pipe, and the
    # pool's manager thread waits for the rest for ever (shutdown, and the interpreter's exit,
    # with it). With the workers gone, closing this end of the pipe is the last writer closed:
    # the manager reads the end of the pipe, finds the pool broken and ends.
    for process in processes:
        process.join(5)
        if process.is_alive():  # SIGTERM caught or ignored: the worker would go on with the pending chunks
            process.kill()
            process.join()
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()


@contextmanager
def interrupted_once() -> Iterator[None]:
    """Ctrl-C raises ``KeyboardInterrupt``; the next one, while the first is handled (the workers
    stopped, the bar closed), is ignored, and a third interrupts that handling too. Two come
    together from a double press, and from ``timeout -s INT``, which signals the command and
    then its whole process group: the second, landing inside the pool's lock bookkeeping, ended
    the run in Python's "release unlocked lock" traceback, or kept it waiting minutes for its
    workers' chunks. Only in the main thread, and only where Ctrl-C is Python's own (a
    caller's handler is left alone: ``ten``'s commands run inside one already,
    :func:`train.options.run_command`, and a library caller's games inside this one)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    presses = 0

    def interrupt(signum: int, frame: FrameType | None) -> None:
        nonlocal presses
        presses += 1
        if presses == 2:
            return
        if presses > 2:  # meant: whatever the clean-up is doing, stop it
            signal.signal(signal.SIGINT, signal.default_int_handler)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a ``kill``, a scheduler taking the machine back, a closed terminal), raised
    where Ctrl-C's ``KeyboardInterrupt`` is, so that it is handled the same way: a run keeps what it
    has done (a training checkpoint, an evaluation's journal) and stops its workers."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """While it lasts (in the main thread), SIGTERM and SIGHUP raise :class:`Stopped`, each once:
    the ones that follow while it is handled are ignored. Their handlers before are restored after.
    A signal ignored when it starts stays ignored: ``nohup`` ignores SIGHUP so that a run outlives
    its terminal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [sig for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
              if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN]
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if stopping:
            return
        stopping = True
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_chunks(tasks: list[Chunk], play: Callable[[Chunk, dict], Any], jobs: int, cache: dict,
               on_done: Callable[[Chunk, Any], object], progress: bool = False, desc: str = "evaluating",
               journal: Journal | None = None) -> None:
    """Call ``play(chunk, cache)`` for every chunk and ``on_done(chunk, result)`` as each ends.

    ``jobs == 1`` plays here, with agents from ``cache``; more start that many worker
    processes (spawned: a parent that has loaded torch must not be forked), each
    loading its own agents; ``play`` must then be a module-level function. ``progress``
    shows a bar of the games played on stderr.

    With a ``journal`` (:class:`train.journal.Journal`), ``tasks`` are its chunks (those of a
    resumed run may be cut otherwise than ``tasks``): each one it holds goes to ``on_done``
    from it, the others are played and recorded in it as they end, and the bar starts from
    the games it holds.
    """
    played = 0
    if journal is not None:
        for task, result in journal.kept():
            on_done(task, result)
        tasks, played = journal.remaining, journal.played
    if not tasks:
        return
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=played + sum(task.games for task in tasks), initial=played, unit="game",
                       file=sys.stderr, leave=False, desc=desc, dynamic_ncols=True)
        except ImportError:  # pragma: no cover - tqdm comes with the training extra
            bar = None

    def done(task: Chunk, result: Any) -> None:
        on_done(task, result)
        if journal is not None:
            journal.record(task, result)
        if bar is not None:
            bar.update(task.games)

    try:
        with interrupted_once():
            _run(tasks, play, jobs, cache, done)
    finally:
        if bar is not None:
            bar.close()


WORKER_LOST = ("a worker process ended before its games were played: the machine may have ended it (out of "
               "memory? try fewer jobs), or a script calls evaluate (or the league, or distill) with more than one "
               "job outside 'if __name__ == \"__main__\":', which it must, since each worker imports the script")


def _start_resource_tracker() -> None:
    """multiprocessing's resource tracker, started (if it is not yet) deaf to SIGHUP, as it is to
    SIGINT and SIGTERM: a closed terminal sends SIGHUP to the whole process group, and a tracker
    killed by it is started again, to print a traceback for each resource the workers free."""
    from multiprocessing import resource_tracker

    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited by the tracker's process
    try:
        resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, previous)


def _run(tasks: list[Chunk], play: Callable[[Chunk, dict], Any], jobs: int, cache: dict,
         done: Callable[[Chunk, Any], object]) -> None:
    """:func:`run_chunks`'s games, here or on ``jobs`` workers."""
    if jobs == 1:
        for task in tasks:
            done(task, play(task, cache))
    else:
        import multiprocessing
        from concurrent.futures.process import BrokenProcessPool

        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # A worker importing the script that started the evaluation, which starts it again at
            # import: it ends here, quietly, and the script's own process says why (below).
            raise SystemExit(1)
        _start_resource_tracker()
        context = multiprocessing.get_context("spawn")
        executor = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context,
                                       initializer=_worker_init)
        try:
            pending = {executor.submit(_play_in_worker, play, task): task for task in tasks}
            while pending:
                # A timeout, so that Ctrl-C is seen at once on Windows too (a lock's wait
                # cannot be interrupted there before Python 3.14).
                finished, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in finished:
                    done(pending.pop(future), future.result())
        except BrokenProcessPool:
            _stop_workers(executor)
            from .options import RunStopped

            raise RunStopped(WORKER_LOST) from None
        except BaseException:  # Ctrl-C, a chunk that failed, a journal that cannot be written
            _stop_workers(executor)
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)


def play_matchups(matchups: list[tuple], games: int, seed: int, jobs: int, progress: bool = False,
                  cache: dict | None = None, trust: bool = False, journal: Journal | None = None) -> list[Results]:
    """The results of ``games`` games of each matchup, game ``i`` on deck seed ``seed + i``,
    here or on ``jobs`` worker processes (:func:`run_chunks`); the same whatever ``jobs``.

    With a ``journal`` (:class:`train.journal.Journal`), its chunks are played but for
    those it holds already, and each is recorded in it as it ends.
    """
    parts: list[list[Results]] = [[] for _ in matchups]  # merged once at the end: each merge sorts the games

    def add(task: Chunk, result: tuple[int, Results]) -> None:
        index, part = result
        parts[index].append(part)

    run_chunks(chunks(matchups, games, seed, jobs, trust), play_chunk, jobs, {} if cache is None else cache, add,
               progress, journal=journal)
    return [Results().merge(*matchup_parts) for matchup_parts in parts]
