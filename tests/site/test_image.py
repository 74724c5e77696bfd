"""The image as ``docker/Dockerfile`` builds it, served as ``docker/compose.yml`` runs it.

No Docker engine is needed: the test reads the Dockerfile and does what it does, in a folder of
its own standing for ``/app``: copies what its ``COPY`` lines copy into the work directory, sets
its ``ENV``, runs its static files' step (the very text of the ``RUN`` step, through ``sh``:
``docker/build-static.sh``, which ``docker/prod_local.py`` runs too) with nothing else in the
environment, then serves that folder with the web service's own
command (``docker/start-web.sh``'s granian) and the environment ``compose.yml`` gives the app
(its defaults, behind the TLS proxy). The pages must answer 200 in English and in French, and
every static file they link to must be served, under its hashed name (the manifest storage).

Read from the two files, the test and the image cannot drift apart: a build step changed in the
Dockerfile, a folder it forgets to copy, a setting compose changes, is what this test runs. (The
checkout stays importable beside the copy, through the editable install: that every package is
copied, which ``pip install .`` in the image needs, is checked on its own.)
"""

from __future__ import annotations

import http.client
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from django.utils import translation

from .servers import free_port
from .test_web_server import serve, start_web_command, stop

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
COMPOSE = ROOT / "docker" / "compose.yml"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions, ``(KEYWORD, arguments)``, continuation lines joined and
    comment lines dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if line.lstrip().startswith("#"):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            keyword, _space, rest = pending.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
        pending = ""
    return out


def workdir() -> str:
    found = [rest for keyword, rest in instructions() if keyword == "WORKDIR"]
    assert len(found) == 1, found
    return found[0]


def image_env(app: Path) -> dict[str, str]:
    """The Dockerfile's ``ENV``, its work directory standing at ``app``."""
    env: dict[str, str] = {}
    for keyword, rest in instructions():
        if keyword == "ENV":
            for item in shlex.split(rest):
                name, _eq, value = item.partition("=")
                env[name] = value.replace(workdir(), str(app))
    return env


def copy_like_the_image(app: Path) -> None:
    """What the ``COPY`` lines put in the work directory (a line copying elsewhere, the start
    scripts to /usr/local/bin/, is left out: the test runs them from docker/)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for keyword, rest in instructions():
        if keyword != "COPY":
            continue
        *sources, dest = shlex.split(rest)
        if dest.startswith("/") and not dest.startswith(workdir()):
            continue
        target = app / dest.removeprefix(workdir()).lstrip("/")
        for source in sources:
            path = ROOT / source
            # (Docker's rule: a folder's contents go into the destination; a file goes into it
            # when it ends with "/", else it is the file's new name)
            if path.is_dir():
                shutil.copytree(path, target, ignore=ignore, dirs_exist_ok=True)
            elif dest.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target / path.name)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)


def build_static_command() -> str:
    """The command of the Dockerfile's ``RUN`` steps that builds the static files, as written
    there (the ``&&``-separated command of its step that runs ``build-static.sh``), the script
    taken from ``docker/``, which a ``COPY`` line copies where the command finds it."""
    found = [part.strip() for keyword, rest in instructions() if keyword == "RUN"
             for part in rest.split("&&") if "build-static.sh" in part]
    assert len(found) == 1, found
    script = next(word for word in shlex.split(found[0]) if word.endswith("build-static.sh"))
    copied = [dest for keyword, rest in instructions() if keyword == "COPY"
              for *sources, dest in [shlex.split(rest)] if "docker/build-static.sh" in sources]
    assert copied and script == copied[0].rstrip("/") + "/build-static.sh", (script, copied)
    return found[0].replace(script, str(ROOT / "docker" / "build-static.sh"))


def compose_app_env() -> dict[str, str]:
    """The environment ``compose.yml`` gives the web service, each ``${NAME:-default}`` at its
    default (what an operator who sets nothing gets)."""
    compose = yaml.safe_load(COMPOSE.read_text())
    web = compose["services"]["web"]
    env = {}
    for name, value in web["environment"].items():
        value = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", str(value))
        assert "$" not in value, (name, value)
        env[name] = value
    return env


def test_the_image_serves_its_pages_and_their_static_files(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    copy_like_the_image(app)
    bare = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    image = image_env(app)
    # The build: nothing but the image's own environment, in the work directory.
    built = subprocess.run(["sh", "-c", build_static_command()], cwd=app, env={**bare, **image},
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]

    # The run: compose's environment for the app, which says DEBUG=0, behind a TLS proxy (as
    # the README says to run it); no database nor Redis are needed by the pages read here.
    env = {**bare, **image, **compose_app_env(),
           "SECRET_KEY": "test-only-" + "k" * 40,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
           "REDIS_URL": "",
           "SECURE_PROXY_SSL_HEADER_ENABLED": "1",
           # (the copy is what the server imports, not the checkout)
           "PYTHONPATH": str(app)}
    assert env["DEBUG"] == "0"
    port = free_port()
    proc = serve(start_web_command(port), env, app)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def get(path: str, language: str = "en") -> tuple[int, bytes, http.client.HTTPResponse]:
            conn.request("GET", path, headers={"Host": "localhost", "X-Forwarded-Proto": "https",
                                               "Accept-Language": language})
            answer = conn.getresponse()
            return answer.status, answer.read(), answer

        for language in ("en", "fr"):
            status, body, _answer = get("/rules/", language)
            assert status == 200, body[-2000:]
            page = body.decode()
            with translation.override(language):
                assert translation.gettext("Skip to content") in page, language
            links = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page))
            favicon = [link for link in links if "favicon" in link]
            # The manifest's hashed names, which WhiteNoise serves for ever.
            assert favicon and re.fullmatch(r"/static/favicon\.[0-9a-f]{12}\.svg", favicon[0])
            for link in sorted(links):
                status, _body, answer = get(link)
                assert status == 200, link
                assert "immutable" in (answer.getheader("Cache-Control") or ""), link
        status, _body, answer = get("/favicon.ico")
        assert status == 302 and answer.getheader("Location") in favicon
        conn.close()
    finally:
        stop(proc)


def test_the_image_copies_every_package_and_the_translations(tmp_path):
    """``pip install .`` in the image installs the packages it finds in the copy: each of the
    project's (pyproject's ``packages.find``) must be there, and the French catalogue (the
    settings' ``LOCALE_PATHS``, beside manage.py)."""
    import tomllib

    from django.conf import settings

    copy_like_the_image(tmp_path)
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for pattern in found["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = pattern.rstrip("*").rstrip(".")
        assert (tmp_path / package / "__init__.py").is_file(), package
    for path in settings.LOCALE_PATHS:
        assert list((tmp_path / Path(path).relative_to(ROOT)).glob("*/LC_MESSAGES/django.po"))
