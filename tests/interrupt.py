"""A helper for tests of runs that stop and resume (imported by the test files)."""


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
