"""Issue 23, Mascarade's table drawn as a table: an original SVG picture for every mask (and the
back), the seats around the table in playing order with the viewer's neighbours marked, the
center cards and the Justice board in the middle; a face is drawn only where the card is
turned for this viewer now."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from games.mascarade.kit import _phone_rows, _ring_cells
from games.mascarade.rules import MASKS
from tests.web.helpers import browser

from .test_pages_clarity import dealt, page

SVG_DIR = Path(__file__).resolve().parents[3] / "games/mascarade/static/mascarade/masks"
SVG = "{http://www.w3.org/2000/svg}"


def pictures() -> list[Path]:
    return [SVG_DIR / f"{mask}.svg" for mask in MASKS] + [SVG_DIR / "back.svg"]


def test_every_mask_of_the_rules_has_its_picture_and_the_back_too():
    missing = [p.name for p in pictures() if not p.is_file()]
    assert not missing
    # No picture of a mask the rules do not know.
    assert {p.stem for p in SVG_DIR.glob("*.svg")} == {*MASKS, "back"}


@pytest.mark.parametrize("path", pictures(), ids=lambda p: p.stem)
def test_a_picture_is_a_small_self_contained_svg_with_a_title(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) < 6000
    root = ET.fromstring(text)  # noqa: S314 (the repository's own files): well-formed XML
    assert root.tag == f"{SVG}svg"
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
    title = root.find(f"{SVG}title")
    assert title is not None and title.text and title.text.strip()
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert not tags & {"image", "script", "foreignObject", "iframe", "a", "style"}
    for element in root.iter():
        for name, value in element.attrib.items():
            assert not name.startswith("on"), (name, value)
            if name.endswith("href"):
                assert value.startswith("#"), value  # only the file's own definitions
            assert "http:" not in value and "https:" not in value and "data:" not in value
            assert not re.search(r"url\((?!#)", value), value


@pytest.mark.parametrize("n", range(4, 13))
def test_the_phone_ring_puts_the_seats_in_order_around_the_centre(n):
    rows, cols = _phone_rows(n), 3
    cells = _ring_cells(n, rows, cols)
    assert len(set(cells)) == n
    assert all(r in (1, rows) or c in (1, cols) for r, c in cells)  # never in the centre
    assert cells[0] == (rows, 2)  # the viewer at the bottom, in the middle

    def angle(cell):
        x = (cell[1] - 2) / 1
        y = (cell[0] - (rows + 1) / 2) / ((rows - 1) / 2)
        return math.degrees(math.atan2(-x, y)) % 360

    angles = [angle(c) for c in cells]
    assert angles == sorted(angles)  # clockwise: bottom, then the left side, the top, the right
    assert angles[1] <= 135 and angles[-1] >= 225  # the neighbours stay beside the viewer


def seats_html(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<li class="(seat[^"]*)">(.*?)</li>', html, re.S)


@pytest.mark.django_db
def test_the_seats_sit_in_playing_order_the_viewer_at_the_bottom_neighbours_marked():
    deal = ["judge", "fool", "princess", "crook", "king", "empress"]
    game, by_player, _ = dealt(deal, first_seat=1)
    names = {p: user.username for p, user in by_player.items()}
    html = page(by_player[1], game)
    seats = seats_html(html)
    # The list stays in playing order (seat 0 first), for screen readers.
    assert [re.search(r'<span class="name">([^<(]+)', body).group(1).strip()
            for _, body in seats] == [names[p] for p in range(4)]
    classes = [set(cls.split()) for cls, _ in seats]
    # Seat 1 (the viewer) at the bottom; seat 2, the next to play, on their left; seat 0 on
    # their right; seat 3 across the table.
    assert {"you", "at-0", "row-3", "col-2"} <= classes[1]
    assert {"at-1", "side-left"} <= classes[2] and "on your left" in seats[2][1]
    assert {"at-3", "side-right"} <= classes[0] and "on your right" in seats[0][1]
    assert {"at-2", "row-1", "col-2"} <= classes[3]
    assert sum("on your" in body for _, body in seats) == 2
    assert 'class="mt-ring" style="--n: 4; --rows: 3"' in html
    # The middle: two center cards face down and the Justice board.
    centre = html[html.index('<div class="mt-centre">'):html.index('class="announcement"')
                  if 'class="announcement"' in html else None]
    assert "2 center cards." in centre and "Justice board: 0 coins." in centre
    assert centre.count("mascarade/masks/back.svg") == 2
    assert '<link rel="stylesheet" href="/static/mascarade/table.css">' in html
    # A spectator sees seat 0 at the bottom and no neighbours.
    spectator = seats_html(page(None, game))
    assert "at-0" in spectator[0][0].split() and not any("on your" in b for _, b in spectator)


@pytest.mark.django_db
def test_a_seat_draws_a_face_only_when_its_card_is_turned_now():
    """The pictures follow the words: a challenge turns two cards face up (their pictures),
    a Fool's swap turns them back down (the back again), for every viewer."""
    deal = ["judge", "fool", "princess", "crook", "king", "empress"]
    game, by_player, play = dealt(deal, first_seat=1)
    for seat in (1, 2, 3, 0):
        play({"type": "exchange", "target": (seat + 1) % 4, "swap": False})
    play({"type": "announce", "mask": "fool"})
    play({"type": "pass"})
    play({"type": "claim"})
    play({"type": "pass"})
    viewers = [*by_player.values(), None]
    for viewer in viewers:
        drawn = faces(page(viewer, game))
        assert drawn == ["back", "fool", "back", "crook"]
    play({"type": "fool", "targets": [3, 0], "swap": True})
    for viewer in viewers:
        assert faces(page(viewer, game)) == ["back", "fool", "back", "back"]
    # Never a face outside the seats but the turned ones: the center cards stay backs.
    html = page(by_player[0], game)
    assert set(re.findall(r"mascarade/masks/(\w+)\.svg", html)) == {"back", "fool"}


def faces(html: str) -> list[str]:
    """Each seat's drawn card (its mask id, or "back"), checked against its words."""
    out = []
    for _, body in seats_html(html):
        drawn = re.findall(r"mascarade/masks/(\w+)\.svg", body)
        assert len(drawn) == 1, body
        words = re.search(r'<span class="card-face">card turned: ([^<]*)</span>', body)
        assert (drawn[0] == "back") == (words is None)
        if words:
            assert words.group(1).lower() == drawn[0]
            assert 'alt=""' in body  # the words beside it say it
        else:
            assert 'alt="card face down"' in body
        out.append(drawn[0])
    return out


@pytest.mark.django_db
def test_twelve_players_sit_around_a_five_row_ring():
    deal = ["judge", "king", "empress", "thief", "cheater", "spy", "sorceress", "fool",
            "guru", "crook", "widow", "princess"]
    game, by_player, _ = dealt(deal, first_seat=0, players=12)
    html = browser(by_player[5]).get(f"/games/{game.pk}/").content.decode()
    seats = seats_html(html)
    assert len(seats) == 12 and "--n: 12; --rows: 5" in html
    cells = [re.search(r"row-(\d) col-(\d)", cls).groups() for cls, _ in seats]
    assert len(set(cells)) == 12
    assert "at-0" in seats[5][0] and "side-left" in seats[6][0] and "side-right" in seats[4][0]
    assert "center card" not in html  # no center card at 12 players


def test_the_kit_links_its_stylesheet():
    from games.mascarade.kit import KIT

    assert KIT.stylesheet == "mascarade/table.css"
    css = (SVG_DIR.parent / "table.css").read_text()
    assert "http" not in css and "@import" not in css
