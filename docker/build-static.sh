#!/bin/sh
# The static files, collected into STATIC_ROOT with the settings the server runs with (DEBUG=0):
# WhiteNoise's manifest storage, which writes the manifest and the hashed, compressed copies the
# pages link to (collected with DEBUG=1, every page would fail on a missing manifest entry).
# DEBUG off asks for a SECRET_KEY: this one signs nothing and lives in this command only.
# The image's build runs it (docker/Dockerfile), and so does docker/prod_local.py;
# tests/site/test_image.py runs it as the Dockerfile does, then serves pages as compose does.
set -eu
DEBUG=0 SECRET_KEY=build-only-signs-nothing python manage.py collectstatic --noinput
