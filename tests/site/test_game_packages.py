"""Each game is a package (``games/<game>/``: its rules and its presentation) and nothing outside
it imports it: the rest of the site reaches a game through :mod:`games.core.catalog`, by id. This
test
reads every module of the site (and the benchmarks) and fails on any import of a game's package
from outside it, however it is spelt (``import``, ``from … import``, relative,
``import_module``)."""

from __future__ import annotations

import ast
from pathlib import Path

from games.core import catalog

ROOT = Path(__file__).resolve().parents[2]
SITE = ["games", "accounts", "moderation", "mascarade_site", "bench"]


def game_packages() -> set[str]:
    """Every folder of ``games/`` that holds a game's rules (registered or not)."""
    return {folder.name for folder in (ROOT / "games").iterdir()
            if (folder / "rules" / "__init__.py").exists()}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every module ``path`` imports (names imported from a package
    count as its submodules: ``from games import mascarade``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and getattr(node.func, "attr", getattr(node.func, "id", ""))
              in ("import_module", "__import__")
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.append((node.lineno, node.args[0].value))
    return out


def offences(games: set[str]) -> list[str]:
    found = []
    for top in SITE:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT)
            inside = relative.parts[0] == "games" and len(relative.parts) > 2
            own = relative.parts[1] if inside else None
            for line, name in imported(path):
                for game in games - {own}:
                    if name == f"games.{game}" or name.startswith(f"games.{game}."):
                        found.append(f"{relative}:{line} imports {name}")
    return found


def test_every_registered_game_is_a_package_of_its_own():
    assert set(catalog.ids()) <= game_packages()
    for game_id in catalog.ids():
        assert type(catalog.get_kit(game_id)).__module__.startswith(f"games.{game_id}.")


def test_nothing_outside_a_game_s_package_imports_it():
    assert offences(game_packages()) == []


def test_the_walk_finds_each_spelling(tmp_path, monkeypatch):
    """The walk is not blind: each way of importing a game from outside is caught."""
    spellings = ["import games.mascarade.rules", "from games.mascarade import kit",
                 "from games import mascarade", "from .mascarade.rules import MASKS",
                 "importlib.import_module('games.mascarade.display')"]
    folder = tmp_path / "games"
    folder.mkdir()
    for number, text in enumerate(spellings):
        (folder / f"m{number}.py").write_text(text + "\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "SITE", ["games"])
    caught = {offence.split(":")[0] for offence in offences({"mascarade"})}
    assert caught == {f"games/m{number}.py" for number in range(len(spellings))}
