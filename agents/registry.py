"""Agents by name, as the command line spells them: ``random``, ``heuristic``,
``jen:7``, ``search``, ``search:<budget>``, ``search:<model>:<budget>``, any of those
with ``:chance=stratified`` after it (:class:`agents.SearchAgent`'s ``chance``),
``oracle[:<model>][:<budget>]`` (cheats), a pretrained model's name (``ppo-jen``), a
model file path or an RLlib checkpoint folder (:mod:`agents.rllib_policy`, loaded only
when trusted)."""

from __future__ import annotations

from pathlib import Path

from ten_env.env import check_seed
from ten_env.rules import JEN_LEVELS

from .heuristic import HeuristicAgent
from .jen import JenAgent
from .policy import PRETRAINED_DIR, PolicyAgent
from .random_agent import RandomAgent
from .search import CHANCE, DEFAULT_BUDGET, MAX_BUDGET, OracleAgent, SearchAgent

NAMES_HELP = ("random, heuristic, jen:4 .. jen:10, search[:<model>][:<budget>][:chance=stratified], "
              "oracle[:<model>][:<budget>] (cheats: sees the deck order), a pretrained model name, "
              "a model .zip path, or an RLlib checkpoint folder (with --trust-model)")


# What a search's name may set after its model and budget (``search:ppo-jen:256:chance=stratified``):
# keyword of SearchAgent -> the values allowed.
SEARCH_OPTIONS = {"chance": CHANCE}


def make_agent(spec: str, seed: int | None = None, trust: bool = False):
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
    raise ValueError(f"unknown agent {spec!r}; use {NAMES_HELP}")


def _on_disk(path, check=Path.exists) -> bool:
    """``check(Path(path))``, false for a name no file can have (too long, a NUL in it): such a
    name is then refused as an unknown agent, not with the file system's error."""
    try:
        return check(Path(path))
    except (OSError, ValueError):
        return False


def network_of(agent):
    """The network an agent plays, or searches with; ``None`` for a scripted agent or a rollout search."""
    return agent.model if isinstance(agent, SearchAgent) else agent


def action_count(agent) -> int | None:
    """The number of actions the network an agent plays, or searches with, was made for (it fixes the
    game's ``max_bid``); ``None`` for a scripted agent or a search with rollouts only."""
    n = getattr(getattr(getattr(network_of(agent), "model", None), "action_space", None), "n", None)
    return None if n is None else int(n)


def _search_agent(spec: str, kind: str, seed: int | None, trust: bool):
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

    options = {}
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
