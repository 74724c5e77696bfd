# The README's two commands: `make run` and `make test`. Each one creates .venv, installs the
# project with its dev extra, and migrates, so it works on a fresh machine with Python 3.11 only.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# A worker per core, at most 8 (each takes a Redis database of its own: tests/plugin.py).
PYTEST_XDIST ?= -n auto --maxprocesses 8 --dist loadgroup

.PHONY: run test install migrate lint bench clean prod-local prod-local-stop

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required, found " + sys.version' \
		|| (echo "Set PYTHON=/path/to/python3.11"; exit 1)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: $(STAMP)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput

## Run the service: web server on http://127.0.0.1:8000 plus a Celery worker with beat. Ctrl-C stops both.
run: migrate
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py rundev

## The production shape on this machine (docker/prod_local.py): nginx on PROD_LOCAL_PORT (8080),
## 2 web, 2 stream, 2 Celery workers, beat, the mail receiver and a Redis of its own, DEBUG=0,
## against DATABASE_URL (local database mascarade_prodlocal). Ctrl-C or prod-local-stop stops it.
prod-local: $(STAMP)
	$(BIN)/python docker/prod_local.py up

prod-local-stop: $(STAMP)
	$(BIN)/python docker/prod_local.py stop

## Run the test suite (services are used when DATABASE_URL / REDIS_URL point at them), in parallel
## (pytest-xdist, a worker per core); HYPOTHESIS_PROFILE=thorough runs CI's longer profile.
test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_XDIST) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
