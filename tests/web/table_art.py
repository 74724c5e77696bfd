"""What every game's card-art tests check, whichever game: a card's picture is a small,
self-contained SVG (parsed as XML, a title and a viewBox, no raster image, no link out, no
script), the kit names its own table stylesheet, and the moderator's truth and the board's HTML
a test compares. Each game's ``tests/test_table_art.py`` runs them over its own cards."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

from games.core import selectors
from games.core.catalog import get_game, get_kit
from games.engine import MODERATOR

GAMES = Path(__file__).resolve().parents[2] / "games"
SVG = "{http://www.w3.org/2000/svg}"


def card_picture(game: str, kind: str) -> Path:
    return GAMES / game / "static" / game / "cards" / f"{kind}.svg"


def check_card_picture(game: str, kind: str) -> None:
    path = card_picture(game, kind)
    assert path.is_file(), f"{game}: no picture for {kind}"
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) < 4096, "a card's picture stays small"
    root = ElementTree.fromstring(text)  # noqa: S314 (the project's own files)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 100 140"
    title = root.find(f"{SVG}title")
    assert title is not None and (title.text or "").strip()
    for element in root.iter():
        assert element.tag not in (f"{SVG}image", f"{SVG}script", f"{SVG}foreignObject")
        for name, value in element.attrib.items():
            assert not name.startswith("on"), f"{kind}: an event handler"
            if name.endswith("href"):
                assert not value.startswith(("http:", "https:", "//", "data:")), kind
    lowered = text.lower()
    assert "<script" not in lowered and "http://" not in lowered.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "url(" not in lowered and "@import" not in lowered


def check_table_stylesheet(game: str) -> None:
    kit = get_kit(game)
    assert kit.stylesheet == f"{game}/table.css"
    assert (GAMES / game / "static" / kit.stylesheet).is_file()


def truth(game):
    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)["moderator"]


def board_of(html: str) -> str:
    return re.search(r'<section aria-labelledby="table-title".*?</section>', html, re.S).group(0)
