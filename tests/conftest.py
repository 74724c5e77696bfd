"""What used to be here (the service markers, the shared fixtures, the test database's last
clean-up) is in :mod:`tests.plugin`, which every run loads (pyproject's ``addopts``: ``-p
tests.plugin``), also a run of one game's tests under ``games/<game>/tests/`` that never reads
this file; the hypothesis profiles are registered there too."""

from __future__ import annotations

from tests.plugin import _require_services

__all__ = ["_require_services"]
