"""What the bench scripts share (imported as ``from _common import ...``: a script run as
``python bench/x.py`` has ``bench/`` first on ``sys.path``; ``bench`` is no package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def bench_module(name: str):
    """Another bench script of ``bench/`` as a module, by its file name (they are scripts, not a
    package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
