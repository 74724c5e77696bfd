"""The rules are a library: importing the engine or any game's rules must not import Django, and
the catalog gives each game's rules by id."""

import subprocess
import sys
from pathlib import Path

import pytest

from games.core import catalog

ROOT = Path(__file__).resolve().parents[2]


def _imports_without_django(modules: list[str]) -> None:
    code = (
        "import sys, importlib\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_engine_imports_without_django():
    _imports_without_django(["games.engine", "games.engine.replay", "games.engine.bots",
                             "games.engine.table"])


@pytest.mark.parametrize("game_id", catalog.ids())
def test_each_game_s_rules_import_without_django(game_id):
    rules = catalog.get_game(game_id)
    package = type(rules).__module__.rsplit(".", 1)[0]
    assert package == f"games.{game_id}.rules", "a game's rules live in games/<game>/rules/"
    _imports_without_django([package, *(f"{package}.{name}" for name in _modules(package))])


def _modules(package: str) -> list[str]:
    folder = ROOT.joinpath(*package.split("."))
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")


def test_the_catalog_gives_each_game_s_rules():
    from games.engine import Game
    from games.mascarade.rules import MASCARADE

    assert catalog.get_game("mascarade") is MASCARADE
    for kit in catalog.kits():
        assert isinstance(kit.rules, Game) and kit.rules.id == kit.id
