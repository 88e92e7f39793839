"""Players for TEN: scripted agents (and, later, trained policies) behind one interface."""

from .random_agent import RandomAgent

__all__ = ["RandomAgent"]
