"""The foundation: settings from the environment, /healthz, home and admin pages, migrations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]

SETTINGS_PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "db": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "broker": settings.CELERY_BROKER_URL,
    "backend": settings.CELERY_RESULT_BACKEND,
    "cache": settings.CACHES["default"]["BACKEND"],
    "email": settings.EMAIL_BACKEND,
    "email_path": settings.EMAIL_FILE_PATH,
    "site_url": settings.SITE_URL,
    "debug": settings.DEBUG,
    "hosts": settings.ALLOWED_HOSTS,
    "hsts": [settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS,
             settings.SECURE_HSTS_PRELOAD],
}))
"""

SERVICE_VARS = ("DATABASE_URL", "REDIS_URL", "EMAIL_URL", "SITE_URL", "SECRET_KEY",
                "ALLOWED_HOSTS", "DEBUG", "VAR_DIR")


def run_settings(tmp_path, **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env.update({"DJANGO_SETTINGS_MODULE": "mascarade_site.settings", "VAR_DIR": str(tmp_path)})
    env.update(env_vars)
    proc = subprocess.run([sys.executable, "-c", SETTINGS_PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    return proc


def test_settings_without_urls_use_sqlite_filesystem_broker_and_file_mail(tmp_path):
    proc = run_settings(tmp_path, DEBUG="1")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["db"] == "django.db.backends.sqlite3"
    assert got["db_name"] == str(tmp_path / "db.sqlite3")
    assert got["broker"] == "filesystem://"
    assert got["backend"].startswith("file://")
    assert got["cache"].endswith("LocMemCache")
    assert got["email"].endswith("filebased.EmailBackend")
    assert got["email_path"] == str(tmp_path / "mail")
    assert (tmp_path / "celery" / "queue").is_dir()


def test_settings_with_urls(tmp_path):
    proc = run_settings(
        tmp_path,
        DEBUG="0",
        SECRET_KEY="x" * 60,
        DATABASE_URL="postgres://u:p@db.example:5432/mascarade",
        REDIS_URL="redis://cache.example:6379/1",
        EMAIL_URL="smtp://user:pw@mail.example:587",
        SITE_URL="https://mascarade.example/",
        ALLOWED_HOSTS="mascarade.example,www.mascarade.example",
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["db"] == "django.db.backends.postgresql"
    assert got["db_name"] == "mascarade"
    assert got["broker"] == "redis://cache.example:6379/1"
    assert got["cache"] == "mascarade_site.cache.FailOpenRedisCache"  # Redis down: reads empty
    assert got["email"].endswith("smtp.EmailBackend")
    assert got["site_url"] == "https://mascarade.example"
    assert got["debug"] is False
    assert got["hosts"] == ["mascarade.example", "www.mascarade.example"]


def test_hsts_subdomains_and_preload_are_the_operators_choice(tmp_path):
    """HSTS is on in production, but for subdomains too and asking to be preloaded (a one-way
    commitment) only when the operator sets them."""
    base = {"DEBUG": "0", "SECRET_KEY": "x" * 60, "ALLOWED_HOSTS": "mascarade.example"}
    proc = run_settings(tmp_path, **base)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hsts"] == [31536000, False, False]
    proc = run_settings(tmp_path, **base, SECURE_HSTS_INCLUDE_SUBDOMAINS="1",
                        SECURE_HSTS_PRELOAD="1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hsts"] == [31536000, True, True]


def test_secret_key_is_required_without_debug(tmp_path):
    proc = run_settings(tmp_path, DEBUG="0")
    assert proc.returncode != 0
    assert "SECRET_KEY must be set" in proc.stderr


def test_check_deploy_is_clean_with_production_values(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env.update({
        "DJANGO_SETTINGS_MODULE": "mascarade_site.settings", "VAR_DIR": str(tmp_path),
        "DEBUG": "0", "SECRET_KEY": "k3y-" + "q8Zr2LmN7pX4vB1cT9yH6wE3sA0dF5gJ" * 2,
        "ALLOWED_HOSTS": "mascarade.example",
    })
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues" in proc.stdout


@pytest.mark.django_db
def test_healthz_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    from django.conf import settings

    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok",
                               "redis": "ok" if settings.REDIS_URL else "not used"}


@pytest.mark.django_db
def test_healthz_names_the_broker_when_it_is_down(client, settings):
    # The Celery app reads the CELERY_ namespace from Django's settings on each access.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["broker"] == "down"
    assert body["database"] == "ok"
    assert body["failing"] == ["broker"]


@pytest.mark.django_db
def test_healthz_names_the_database_when_it_is_down(client, monkeypatch):
    from mascarade_site import views

    monkeypatch.setattr(views, "_check_database", lambda: "OperationalError: refused")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["database"]


@pytest.mark.django_db
def test_home_page_renders(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html lang=\"en\">" in html
    assert "Mascarade" in html


@pytest.mark.django_db
def test_admin_login_renders(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b'name="password"' in response.content


@pytest.mark.django_db
def test_admin_index_for_superuser(admin_client):
    response = admin_client.get("/admin/")
    assert response.status_code == 200


@pytest.mark.django_db
def test_no_missing_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
