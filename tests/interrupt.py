"""Helpers for tests of runs that stop and resume (imported by the test files)."""

import os
import struct
import sys
import time


def interrupt_after(monkeypatch, module, name: str, chunks_to_play: int) -> list:
    """Make ``module.name``, the function that plays a chunk of games, stop the run as Ctrl-C would
    once ``chunks_to_play`` chunks are played; the list returned fills with the chunks played."""
    played = []
    real = getattr(module, name)

    def play(chunk, cache):
        if len(played) == chunks_to_play:
            raise KeyboardInterrupt
        played.append(chunk)
        return real(chunk, cache)

    monkeypatch.setattr(module, name, play)
    return played


def half_sent(chunk, cache):
    """A worker's chunk that plays nothing: it writes the start of a result message to the pool's
    result pipe and stops there, as a worker ended while sending its result leaves the pipe.
    (It finds the pipe in the frame of ``concurrent.futures.process._process_worker``, which calls it,
    and makes the file ``$HALF_SENT`` once the half message is written.)"""
    frame = sys._getframe(1)
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(16))
    open(os.environ["HALF_SENT"], "w").close()
    time.sleep(600)
