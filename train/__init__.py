"""Training and evaluation on top of ``ten_env`` and ``agents``; also the ``ten`` command."""
