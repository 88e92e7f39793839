"""Agents by name, as the command line spells them: ``random``, ``heuristic``,
``jen:7``, ``search``, ``search:<budget>``, ``search:<model>:<budget>``, any of those
with ``:chance=stratified`` after it (:class:`agents.SearchAgent`'s ``chance``),
``oracle[:<model>][:<budget>]`` (cheats), a pretrained model's name (``ppo-jen``), a
model file path or an RLlib checkpoint folder (:mod:`agents.rllib_policy`, loaded only
when trusted), or your own code: ``<module>:<name>`` or ``<file.py>:<name>``
(:func:`load_entry_point`)."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ten_env.env import check_seed
from ten_env.rules import JEN_LEVELS

from .base import Player
from .heuristic import HeuristicAgent
from .jen import JenAgent
from .policy import PRETRAINED_DIR, PolicyAgent, shipped_models
from .random_agent import RandomAgent
from .search import CHANCE, DEFAULT_BUDGET, MAX_BUDGET, OracleAgent, SearchAgent

BUILT_IN_NAMES = ("random, heuristic, jen:4 .. jen:10, search[:<model>][:<budget>][:chance=stratified], "
                  "oracle[:<model>][:<budget>] (cheats: sees the deck order), a pretrained model name, "
                  "a model .zip path, an RLlib checkpoint folder (with --trust-model)")
NAMES_HELP = f"{BUILT_IN_NAMES}, or your own agent as <module>:<name> or <file.py>:<name>"

# ``mypackage.bots:Greedy`` (a module that Python can import, or one in the current folder) and
# ``path/to/bots.py:Greedy``: the name after the colon may reach into the module (``Bots.greedy``).
_MODULE_ENTRY = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
_FILE_ENTRY = re.compile(r"(.+\.py):([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


# What a search's name may set after its model and budget (``search:ppo-jen:256:chance=stratified``):
# keyword of SearchAgent -> the values allowed.
SEARCH_OPTIONS = {"chance": CHANCE}


def make_agent(spec: str, seed: int | None = None, trust: bool = False) -> Player:
    """The agent named by ``spec``; ``ValueError`` naming the allowed forms otherwise.

    ``trust=True`` lets a model file that only unpickling can load be loaded that way
    (running any code it holds; see :class:`agents.policy.PolicyAgent`).
    """
    if not isinstance(spec, str):
        raise ValueError(f"an agent name must be a string, got {spec!r}; use {NAMES_HELP}")
    spec = spec.strip()
    if not spec:
        raise ValueError(f"an agent name is empty; use {NAMES_HELP}")
    seed = check_seed(seed)
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent()
    if spec == "jen" or spec.startswith("jen:"):
        level = spec.partition(":")[2]
        if not (level.isascii() and level.isdigit()) or int(level) not in JEN_LEVELS:
            raise ValueError(f"agent {spec!r}: JEN needs a level from {JEN_LEVELS[0]} to {JEN_LEVELS[-1]}, "
                             f"as in jen:7")
        return JenAgent(int(level))
    kind = spec.partition(":")[0]
    if kind in ("search", "oracle"):
        return _search_agent(spec, kind, seed, trust)
    if _on_disk(PRETRAINED_DIR / f"{spec}.zip", Path.is_file):
        return PolicyAgent.pretrained(spec, trust=trust)
    if _on_disk(spec, Path.is_dir):
        from .rllib_policy import RLlibPolicyAgent, is_checkpoint  # Ray only for an RLlib checkpoint

        model = Path(spec) / "model.zip"
        if not is_checkpoint(Path(spec)) and model.is_file():  # the folder of a ten train run
            raise ValueError(f"{spec!r} is a training run's folder: give its model file, {str(model)!r}")
        return RLlibPolicyAgent(spec, trust=trust)
    if spec.endswith(".zip") or _on_disk(spec):
        return PolicyAgent(spec, trust=trust)
    if _FILE_ENTRY.fullmatch(spec) or _MODULE_ENTRY.fullmatch(spec):
        return load_entry_point(spec, seed)
    close = difflib.get_close_matches(spec.lower(), ["random", "heuristic", "search", "oracle", *shipped_models()],
                                      n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(f"unknown agent {spec!r}; {hint}use {NAMES_HELP} (the pretrained models: "
                     f"{', '.join(shipped_models())})")


def is_entry_point(spec: object) -> bool:
    """Whether :func:`make_agent` reads ``spec`` as your own agent's ``<module>:<name>`` or
    ``<file.py>:<name>`` (every other kind of name is tried first)."""
    if not isinstance(spec, str):
        return False
    spec = spec.strip()
    if spec.partition(":")[0] in ("jen", "search", "oracle") or spec.endswith(".zip") or _on_disk(spec):
        return False
    return bool(_FILE_ENTRY.fullmatch(spec) or _MODULE_ENTRY.fullmatch(spec))


def load_entry_point(spec: str, seed: int | None = None) -> Player:
    """Your own agent, named ``<module>:<name>`` or ``<file.py>:<name>``, as Gymnasium names an
    env's entry point. The module is imported as Python imports it, the current folder first (as
    ``python -m`` would; so ``ten`` finds a ``bots.py`` beside you, and so does each worker of
    ``ten eval --jobs``); a file is run as a script would be, its folder first on the path. This
    runs that code, as importing it would: name only code you trust.

    ``<name>`` is then a class (made with no arguments), a function that takes no arguments and
    returns the agent, an agent (anything with ``act(observation, info)``), or a policy function
    ``(observation, info) -> action`` itself. The agent sees what any agent sees (:mod:`agents.base`):
    the PettingZoo observation dict and the info with its ``"snapshot"``; it is reset with a seed of
    its own before each game if it has ``reset(seed=...)``, and with ``seed`` now if one is given.
    ``ValueError`` in one line if the module, the file or the name cannot be found, or the code
    raises while it is loaded (its error and the line it came from are named)."""
    match = _FILE_ENTRY.fullmatch(spec)
    if match and not Path(match[1]).is_file():
        raise ValueError(f"agent {spec!r}: there is no file {match[1]!r} (your own agent is <module>:<name> "
                         f"or <file.py>:<name>)")
    if match:
        file, attr = Path(match[1]).resolve(), match[2]
        where = f"the file {match[1]!r}"
        module_name = f"_ten_agent_{file.stem}_{hashlib.sha256(str(file).encode()).hexdigest()[:12]}"

        def load() -> ModuleType:
            module = sys.modules.get(module_name)
            if module is None:
                _put_first_on_path(str(file.parent))  # as a script: its neighbours can be imported
                found = importlib.util.spec_from_file_location(module_name, file)
                assert found is not None and found.loader is not None  # a .py file has a source loader
                module = importlib.util.module_from_spec(found)
                sys.modules[module_name] = module  # before running it, as import does (dataclasses, pickle)
                try:
                    found.loader.exec_module(module)
                except BaseException:
                    del sys.modules[module_name]
                    raise
            return module
    else:
        entry = _MODULE_ENTRY.fullmatch(spec)
        if entry is None:
            raise ValueError(f"agent {spec!r}: your own agent is <module>:<name> or <file.py>:<name>")
        module_name, attr = entry.groups()
        where = f"the module {module_name!r}"

        def load() -> ModuleType:
            _put_first_on_path(str(Path.cwd()))
            return importlib.import_module(module_name)

    try:
        module = load()
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name) and module_name[len(exc.name):][:1] in ("", "."):
            raise ValueError(f"agent {spec!r}: no module {exc.name!r} can be imported from the current folder "
                             f"or Python's path (your own agent is <module>:<name> or <file.py>:<name>; the "
                             f"other names: {BUILT_IN_NAMES})") from None
        raise ValueError(f"agent {spec!r}: importing {where} failed: {_said(exc)}") from None
    except SyntaxError as exc:
        raise ValueError(f"agent {spec!r}: {where} is not valid Python: {exc.msg} "
                         f"({Path(exc.filename or '?').name}, line {exc.lineno})") from None
    except Exception as exc:
        raise ValueError(f"agent {spec!r}: importing {where} failed: {_said(exc)}") from None
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent {spec!r}: {where} has no {attr!r}")
        target = getattr(target, part)
    try:
        agent = as_agent(target, attr)
    except ValueError as exc:
        raise ValueError(f"agent {spec!r}: {exc}") from None
    if seed is not None and hasattr(agent, "reset"):
        try:
            agent.reset(seed=seed)
        except Exception as exc:
            raise ValueError(f"agent {spec!r}: its reset(seed={seed}) failed: {_said(exc)}") from None
    return agent


def as_agent(target: Any, what: str) -> Player:
    """The agent ``target`` stands for: a class made with no arguments, a function that takes none
    called (a factory), an agent (with ``act(observation, info)``) or a policy function
    ``(observation, info) -> action`` as it is; ``ValueError`` saying why not, naming it ``what``."""
    made = inspect.isclass(target) or (callable(target) and not hasattr(target, "act") and _factory(target))
    if made:
        try:
            target = target()
        except Exception as exc:
            raise ValueError(f"making it with {what}() failed: {_said(exc)}") from None
        what = f"{what}()"
    if hasattr(target, "act"):
        return target
    if not callable(target):
        raise ValueError(f"{what} gave {target!r}, not an agent: {_AGENT_KINDS}")
    if not _binds(target, None, None):  # Greedy.act, say: (self, observation, info)
        raise ValueError(f"{what} gave a function {_signature(target)}, neither a policy (observation, info) nor a "
                         f"factory taking no arguments: {_AGENT_KINDS}")
    return target


_AGENT_KINDS = ("give a class, a function that returns an agent, an object with act(observation, info), or a "
                "policy function (observation, info) -> action")


def _put_first_on_path(folder: str) -> None:
    if folder not in sys.path:
        sys.path.insert(0, folder)


def _binds(function: Callable[..., object], *args: object) -> bool:
    """Whether ``function`` can be called with ``args``; true where no signature can be read."""
    try:
        inspect.signature(function).bind(*args)
    except TypeError:
        return False
    except ValueError:  # no signature to read (some built-ins): let the call say
        return True
    return True


def _signature(function: Callable[..., object]) -> str:
    try:
        return str(inspect.signature(function))
    except ValueError:
        return "(...)"


def _factory(function: Callable[..., object]) -> bool:
    """Whether ``function`` is a factory (called with no arguments) rather than a policy
    ``(observation, info)``: one that takes both arguments is a policy, even with defaults."""
    try:
        inspect.signature(function)
    except ValueError:  # no signature to read (some built-ins): not a factory we can tell
        return False
    return _binds(function) and not _binds(function, None, None)


def _said(exc: BaseException) -> str:
    """An error raised by the user's code, in one line: its type, message and where it came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}, line {frames[-1].lineno})" if frames else ""
    message = str(exc).strip().replace("\n", " ")
    return f"{type(exc).__name__}{': ' + message if message else ''}{where}"


def entry_point_file(spec: str) -> str | None:
    """The file that defines the agent ``spec`` names, if it is your own (:func:`load_entry_point`)
    and has been loaded; ``None`` otherwise. A journal keeps its digest, so that a run resumed
    after the agent's code changed is refused. A file is named as the spec names it (a module's,
    from the current folder where it lies under it), so that a run moved with the agent's file
    beside it (another checkout, another machine) resumes there, and one that names it by its
    whole path resumes from any folder."""
    if not is_entry_point(spec):
        return None
    spec = spec.strip()
    match = _FILE_ENTRY.fullmatch(spec)
    if match:
        return Path(os.path.normpath(match[1])).as_posix() if Path(match[1]).is_file() else None
    match = _MODULE_ENTRY.fullmatch(spec)
    file = getattr(sys.modules.get(match[1]) if match else None, "__file__", None)
    if file is None:
        return None
    file = Path(file).resolve()
    try:
        return file.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(file)


def _on_disk(path: str | Path, check: Callable[[Path], bool] = Path.exists) -> bool:
    """``check(Path(path))``, false for a name no file can have (too long, a NUL in it): such a
    name is then refused as an unknown agent, not with the file system's error."""
    try:
        return check(Path(path))
    except (OSError, ValueError):
        return False


def network_of(agent: object) -> object:
    """What holds the network an agent plays or searches with, as its ``model``: the agent itself, or
    a search's network (``None`` for a search with rollouts only)."""
    return agent.model if isinstance(agent, SearchAgent) else agent


def action_count(agent: object) -> int | None:
    """The number of actions the network an agent plays, or searches with, was made for (it fixes the
    game's ``max_bid``); ``None`` for a scripted agent or a search with rollouts only."""
    n = getattr(getattr(getattr(network_of(agent), "model", None), "action_space", None), "n", None)
    return None if n is None else int(n)


def _search_agent(spec: str, kind: str, seed: int | None, trust: bool) -> SearchAgent:
    """``search``, ``search:<budget>``, ``search:<model>:<budget>``, ``search:<model>`` (and ``oracle...``),
    each optionally followed by ``:<option>=<value>`` parts (``SEARCH_OPTIONS``)."""
    parts = spec.split(":")[1:]
    options_help = " ".join(f"{key}={'|'.join(values)}" for key, values in SEARCH_OPTIONS.items())
    usage = f"{kind}, {kind}:<budget>, {kind}:<model>:<budget> or {kind}:<model> (e.g. {kind}:ppo-jen:200)"
    if kind == "search":
        usage += ", optionally followed by :chance=stratified"
    if any(not p.strip() for p in parts):
        raise ValueError(f"agent {spec!r}: a part is empty; write {usage}")

    def is_option(part: str) -> bool:  # a model file's path may hold "=" too
        return "=" in part and not _on_disk(part)

    # A name is what a report records and compares agents by: one spelling for each agent.
    if any(part != part.strip() or (is_option(part) and " " in part) for part in parts):
        raise ValueError(f"agent {spec!r}: write it without spaces around ':' and '=', as in {kind}:ppo-jen:200"
                         + (":chance=stratified" if kind == "search" else ""))

    def not_an_option(part: str) -> ValueError:
        return ValueError(f"agent {spec!r}: {part!r} is neither an option ({options_help}) nor a model file")

    options: dict[str, Any] = {}
    while parts and is_option(parts[-1]):  # options come last
        part = parts.pop()
        key, _, value = part.partition("=")
        if key not in SEARCH_OPTIONS:
            raise not_an_option(part)
        if value not in SEARCH_OPTIONS[key]:
            raise ValueError(f"agent {spec!r}: {key} must be one of {', '.join(SEARCH_OPTIONS[key])}, got {value!r}")
        if key in options:
            raise ValueError(f"agent {spec!r}: {key} is given twice")
        options[key] = value
    for part in filter(is_option, parts):
        if part.partition("=")[0] in SEARCH_OPTIONS:
            raise ValueError(f"agent {spec!r}: options such as chance=stratified go last, after the model and "
                             f"budget")
        raise not_an_option(part)
    for end in range(2, len(parts) + 1):  # a path that holds ':' (a Windows drive, a folder name) is cut by it
        path = ":".join(parts[:end])
        if _on_disk(path):
            raise ValueError(f"agent {spec!r}: the model path {path!r} holds ':', which separates the parts of "
                             f"a {kind} name; copy or link the model to a path without one")
    if kind == "oracle" and options.get("chance", "sampled") != "sampled":
        raise ValueError(f"agent {spec!r}: the oracle plays the true deck order, so its chance can only be sampled")
    if len(parts) > 2:
        raise ValueError(f"agent {spec!r}: write {usage}")
    model: Player | None
    budget, model = DEFAULT_BUDGET, None
    # With two parts the second can only be the budget; with one, a number is a budget, anything else a model.
    if len(parts) == 2 or (parts and parts[-1].lstrip("+-").isdigit()):
        text = parts.pop()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_BUDGET:
            raise ValueError(f"agent {spec!r}: the budget {text!r} must be a whole number of simulations per "
                             f"decision from 1 to {MAX_BUDGET:,}; write {usage}")
        budget = int(text)
    if parts:
        try:
            model = make_agent(parts[0], seed=seed, trust=trust)
        except ValueError as exc:
            raise ValueError(f"agent {spec!r}: its model: {exc}") from None
        if not isinstance(model, PolicyAgent):
            from .rllib_policy import RLlibPolicyAgent  # no Ray: that module imports it only to load

            if isinstance(model, RLlibPolicyAgent):
                raise ValueError(f"agent {spec!r}: an RLlib checkpoint cannot guide a search, which needs a "
                                 f"network's probabilities and value for a batch of positions; give an SB3 model")
            raise ValueError(f"agent {spec!r}: {parts[0]!r} is not a trained model; write {usage}")
    agent_class = OracleAgent if kind == "oracle" else SearchAgent
    agent = agent_class(budget=budget, model=model, seed=seed, **options)
    if model is not None:  # by the model as named here (a path, not its file's stem), so the name reads back
        agent.name = agent.name.replace(f"{kind}:{model.name}:", f"{kind}:{parts[0]}:", 1)
    return agent
