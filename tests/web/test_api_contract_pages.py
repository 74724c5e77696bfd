"""The API's written contract is on the site: docs/api/ (its README the entry, API.md the
contract) at /api/docs/contract/, linked from the schema's description (so from /api/docs/) and
from the README, and no link of theirs points outside the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

DOCS = Path(settings.BASE_DIR) / "docs" / "api"


def markdown_links(text: str) -> list[str]:
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in link]


def test_the_schema_description_links_the_contract_and_every_link_answers():
    client = Client()
    description = client.get("/api/schema/", {"format": "json"}).json()["info"]["description"]
    links = markdown_links(description)
    assert "/api/docs/contract/" in links and "/api/docs/contract/API.md" in links, description
    assert "shared/" not in description
    for link in links:
        assert link.startswith("/"), link
        assert client.get(link).status_code == 200, link


def test_every_page_of_docs_api_is_served_as_text_and_its_links_answer():
    client = Client()
    entry = client.get("/api/docs/contract/")
    assert entry.status_code == 200
    assert entry["Content-Type"] == "text/plain; charset=utf-8"
    assert entry.content.decode() == (DOCS / "README.md").read_text(encoding="utf-8")
    assert "API.md" in markdown_links(entry.content.decode())
    names = sorted(p.name for p in DOCS.glob("*.md"))
    assert {"README.md", "API.md", "mascarade.md"} <= set(names)
    for name in names:
        page = client.get(f"/api/docs/contract/{name}")
        assert page.status_code == 200, name
        assert page.content.decode() == (DOCS / name).read_text(encoding="utf-8")
        for link in markdown_links(page.content.decode()):
            if not link.startswith("#"):
                assert client.get(f"/api/docs/contract/{link}").status_code == 200, (name, link)
    assert client.get("/api/docs/contract/API.md").content.startswith(b"# REST API v1")
    for missing in ("nothing.md", "..%2Fsettings.py", "../../README.md"):
        assert client.get(f"/api/docs/contract/{missing}").status_code == 404, missing


def test_the_readme_points_to_the_contract_in_the_project():
    readme = (Path(settings.BASE_DIR) / "README.md").read_text(encoding="utf-8")
    assert "shared/API.md" not in readme
    assert "docs/api/API.md" in readme and "/api/docs/contract/" in readme


@pytest.mark.parametrize(("language", "card", "footer"), [
    ("en", "Its guide: the contract, the streams, the webhooks", "The API's documentation"),
    ("fr", "Son guide : le contrat, les flux, les webhooks", "La documentation de l'API"),
])
def test_the_home_pages_api_card_and_every_pages_footer_link_the_apis_docs(language, card,
                                                                           footer):
    """The home page's "A public API" card links the browsable reference (/api/docs/) and the
    guide (/api/docs/contract/); every page's footer links the reference; in either language."""
    client = Client(headers={"accept-language": language})
    home = client.get("/").content.decode()
    api_card = home.split('<article class="card">')[-1].split("</article>")[0]
    assert f'<a href="/api/docs/">{footer}</a>' in api_card, api_card
    assert f'<a href="/api/docs/contract/">{card}</a>' in api_card, api_card
    for path in ("/", "/rules/", "/games/"):
        page = client.get(path)
        assert page.status_code == 200, path
        footer_html = page.content.decode().split('<footer class="site-footer">')[1]
        assert f'<a href="/api/docs/">{footer}</a>' in footer_html, path
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/docs/contract/").status_code == 200
