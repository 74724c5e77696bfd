"""Settings for Mascarade Online: one module, everything that varies comes from the environment.

Every variable, with its default, is listed in docs/configuration.md. Nothing secret lives
in the repository: ``SECRET_KEY`` has a development default only while ``DEBUG`` is on.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import environ
import orjson
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A `.env` file beside manage.py is read when present (never committed; see docker/.env.example).
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DEBUG", default=False)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (see docs/configuration.md)."
        )
    SECRET_KEY = "django-insecure-development-only-key-never-used-in-production"  # noqa: S105

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Absolute base URL used to build links in emails ("https://mascarade.example").
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "allauth",
    "allauth.account",
    "django_htmx",
    "pgtrigger",
    "anymail",
    "mascarade_site",
    "accounts",
    "games",
    # The ratings' rows (games/ratings/; the write path rates each finished game).
    "games.ratings",
    # The channels, each subscribing to the write path's events in its ready() (docs/layout.md).
    "games.notify",
    "games.mail",
    "games.webhooks",
    "games.live",
    "games.webpush",
    # The games, each a package registering itself in games.core.catalog (the README, "Adding a
    # game"); the first is the default where a page does not say which game.
    "games.mascarade",
    "games.ere_des_masques",
    "games.shadow_house",
    "moderation",
]

SITE_ID = 1

MIDDLEWARE = [
    # First: a body larger than the limits is refused (413) before anything reads it.
    "mascarade_site.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.BlockedUserMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# Django's default message storage, its storages made on first use (mascarade_site/messages.py).

# Request bodies: an API request's up to API_MAX_BODY_BYTES (a move is a few hundred bytes), any
# other (the pages' forms) up to MAX_BODY_BYTES; larger ones get 413 before they are read.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)
PAGE_MAX_BODY_BYTES = env.int("MAX_BODY_BYTES", default=256 * 1024)
# A provider's post of an inbound mail (/anymail/): up to the receiver's 10 MB, encoded.
MAIL_WEBHOOK_MAX_BODY_BYTES = env.int("MAIL_WEBHOOK_MAX_BODY_BYTES", default=16 * 1024 * 1024)
# Django's own check when a body is read: the largest of the limits, which the middleware has
# already applied per path.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(PAGE_MAX_BODY_BYTES, MAIL_WEBHOOK_MAX_BODY_BYTES)

ROOT_URLCONF = "mascarade_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.web.context_processors.game_kits",
            ],
        },
    },
]

WSGI_APPLICATION = "mascarade_site.wsgi.application"

# --- Database -----------------------------------------------------------------------------------
# DATABASE_URL: postgres://user:pass@host:5432/name in production; SQLite under var/ by default.
DATABASES = {
    "default": env.db_url(
        "DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
    ),
}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Persistent connections, checked by Django before a request reuses one.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if env.bool("DB_PREPARED", default=True):
        # Parameters bound by the server (Django's own option), and psycopg's own automatic
        # preparation at its default threshold (a statement a connection runs a fifth time is
        # prepared, and PostgreSQL plans it once), which Django turns off unless asked.
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": 5})
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker, beat) share the file in development: wait for locks.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# --- Redis, cache and Celery --------------------------------------------------------------------
# REDIS_URL: redis://host:6379/0. When unset, Celery uses kombu's filesystem transport under var/
# (worker and beat still really run) and the cache is process-local memory.
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_DIR = VAR_DIR / "celery"

if REDIS_URL:
    # django-redis, which lets a request through when Redis is down: what the cache holds here
    # (allauth's rate limits, DRF's throttles when the Lua way is off) then reads as empty, and
    # each failure is logged (mascarade_site/cache.py; the README, "Security").
    CACHES = {
        "default": {
            "BACKEND": "mascarade_site.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "mascarade",
            "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 1,
                        "SOCKET_TIMEOUT": 1},
        }
    }
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    for sub in ("queue", "processed", "results", "control"):
        (CELERY_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_DIR / "queue"),
        "data_folder_out": str(CELERY_DIR / "queue"),
        "processed_folder": str(CELERY_DIR / "processed"),
        "store_processed": False,
        "control_folder": str(CELERY_DIR / "control"),
    }
    CELERY_RESULT_BACKEND = f"file://{CELERY_DIR / 'results'}"

CELERY_TASK_SERIALIZER = "json"
# Posts to users' webhook endpoints wait on hosts the site does not control (up to 5 s each):
# they have a queue of their own, "webhooks", which the compose file's webhook-worker takes on
# threads, so that slow endpoints never hold up the moves of bots and the deadlines (queue
# "celery", the worker service). make run's one worker takes both.
WEBHOOK_QUEUE = "webhooks"
CELERY_TASK_ROUTES = {name: {"queue": WEBHOOK_QUEUE} for name in (
    "games.deliver_webhooks", "games.webhook_sweep", "games.forget_webhook_deliveries")}
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Periodic tasks. The sweep resolves due deadlines (SKIP LOCKED, so several workers share it),
# plays bot turns whose task was lost, queues "deadline near" reminders, delivers the outbox.
SWEEP_SECONDS = env.float("SWEEP_SECONDS", default=5.0)
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "games-sweep": {"task": "games.sweep", "schedule": SWEEP_SECONDS,
                    "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    # The webhooks' retries (and posts whose task was lost), on their own queue (below).
    "games-webhook-sweep": {"task": "games.webhook_sweep", "schedule": SWEEP_SECONDS,
                            "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    "games-forget-webhook-deliveries": {"task": "games.forget_webhook_deliveries",
                                        "schedule": crontab(minute=30, hour=3)},
    # Inbound mails past MAIL_KEEP_ANSWERED_DAYS / MAIL_KEEP_IGNORED_DAYS deleted.
    "games-forget-inbound-mail": {"task": "games.forget_inbound_mail",
                                  "schedule": crontab(minute=45, hour=3)},
    # The daily "new messages at your table" mails (safe to run twice or late).
    "games-chat-digest": {"task": "games.chat_digest",
                          "schedule": crontab(minute=0, hour=env.int("CHAT_DIGEST_HOUR",
                                                                      default=7))},
    # Every player's reliability of the new day (UTC), which every seat shows.
    "games-refresh-reliability": {"task": "games.refresh_reliability",
                                  "schedule": crontab(minute=5, hour=0)},
}
# Decision mails and the answers to mails (games.notify.delivery): a task sent this many seconds
# after the decision (or the mail) delivers it, once a burst of moves (the bots answering) has
# passed; a burst that goes on holds them at most MAIL_MAX_WAIT seconds. The sweep sends any
# whose task was lost.
MAIL_DEBOUNCE_SECONDS = env.float("MAIL_DEBOUNCE_SECONDS", default=3.0)
MAIL_MAX_WAIT_SECONDS = env.float("MAIL_MAX_WAIT_SECONDS", default=8.0)

# --- Event streams (Server-Sent Events: games.live.streams) ---------------------------------------
# A stream sends a heartbeat (a comment: proxies close a silent connection) every
# STREAM_HEARTBEAT_SECONDS, and checks its viewer's access and the database again every
# STREAM_CHECK_SECONDS (what a lost push message costs at most; a revocation's own message
# cuts the stream at once). Without Redis it looks at the database every STREAM_POLL_SECONDS
# and checks the viewer's access at each heartbeat. Under WSGI (make run's development server)
# a stream ends after STREAM_WSGI_HOLD_SECONDS and the browser comes back with Last-Event-ID
# after STREAM_RETRY_SECONDS.
STREAM_HEARTBEAT_SECONDS = env.float("STREAM_HEARTBEAT_SECONDS", default=15.0)
STREAM_CHECK_SECONDS = env.float("STREAM_CHECK_SECONDS", default=60.0)
STREAM_POLL_SECONDS = env.float("STREAM_POLL_SECONDS", default=1.0)
STREAM_RETRY_SECONDS = env.float("STREAM_RETRY_SECONDS", default=3.0)
STREAM_WSGI_HOLD_SECONDS = env.float("STREAM_WSGI_HOLD_SECONDS", default=25.0)
# Streams one account may hold open at once in one stream server process.
STREAM_MAX_PER_USER = env.int("STREAM_MAX_PER_USER", default=20)
# Anonymous streams (spectators) one client address may hold open at once in one stream server
# process, the address counted as the API's throttles count it (TRUSTED_PROXIES). The proxy
# caps every stream of an address across the processes (docker/nginx.conf, limit_conn).
STREAM_MAX_PER_ADDRESS = env.int("STREAM_MAX_PER_ADDRESS", default=10)
# The threads (each with its database connection) that all the streams of one process share.
STREAM_DB_THREADS = env.int("STREAM_DB_THREADS", default=4)

# --- Email --------------------------------------------------------------------------------------
# EMAIL_URL: smtp://user:pass@host:587 (smtp+tls://, smtps://), filemail:///abs/dir, consolemail://.
# Default: one file per message under var/mail/, so development never sends real mail.
MAIL_DIR = VAR_DIR / "mail"
MAIL_DIR.mkdir(parents=True, exist_ok=True)
_email = env.email_url("EMAIL_URL", default=f"filemail://{MAIL_DIR}")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST", "localhost")
EMAIL_PORT = _email.get("EMAIL_PORT", 25)
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _email.get("EMAIL_USE_SSL", False)
# django-environ drops the leading "/" of filemail:///abs/path: put it back.
_file_path = _email.get("EMAIL_FILE_PATH")
EMAIL_FILE_PATH = "/" + _file_path.lstrip("/") if _file_path else str(MAIL_DIR)
EMAIL_TIMEOUT = 30
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Mascarade Online <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Inbound mail (play by email) ---------------------------------------------------------------
# Players write to play+<token>@MAIL_DOMAIN. Two ways in, both to games.mail.receive.receive_mail:
# the self-hosted receiver (`manage.py mailreceiver`, SMTP or LMTP, on MAIL_RECEIVER_HOST:PORT;
# games/mail/receiver.py) and the providers' inbound webhooks under /anymail/ (django-anymail;
# games/mail/providers.py). Outgoing mail stays on EMAIL_URL above.
MAIL_DOMAIN = env.str("MAIL_DOMAIN", default="localhost")
MAIL_RECEIVER_HOST = env.str("MAIL_RECEIVER_HOST", default="127.0.0.1")
MAIL_RECEIVER_PORT = env.int("MAIL_RECEIVER_PORT", default=2525)
# Sessions the receiver holds at once (each may hold a 10 MB message in memory); one more is
# answered 421 "try again later" (docs/mail.md, docs/performance.md).
MAIL_RECEIVER_MAX_SESSIONS = env.int("MAIL_RECEIVER_MAX_SESSIONS", default=4)
# Who is trusted about a mail's sender (games.mail.receive, docs/mail.md "Trusting a sender"):
# the Authentication-Results headers (RFC 8601) read are only those whose authserv-id is one of
# these (the receiving MTA's own, e.g. "mx.mascarade.example"; none: none is read), and a mail
# one of them says failed one of these checks is refused (stored, not played, the player told).
MAIL_AUTHSERV_IDS = env.list("MAIL_AUTHSERV_IDS", default=[])
MAIL_AUTH_FAILURES = env.list("MAIL_AUTH_FAILURES", default=["dmarc=fail", "spf=fail"])
# A reply address plays for this many days after its mail (then it is answered "expired").
MAIL_REPLY_DAYS = env.int("MAIL_REPLY_DAYS", default=7)
# Answers to one player in one game: at most MAIL_ANSWERS_PER_WINDOW per MAIL_WINDOW_SECONDS,
# then one "too many mails" answer, then silence (nothing read) until the window has room.
# Mails that get no answer (strangers, robots, forged or bad addresses) are stored at most
# MAIL_IGNORED_PER_WINDOW per sender address and window; more are dropped (and logged).
MAIL_WINDOW_SECONDS = env.int("MAIL_WINDOW_SECONDS", default=3600)
MAIL_ANSWERS_PER_WINDOW = env.int("MAIL_ANSWERS_PER_WINDOW", default=10)
MAIL_IGNORED_PER_WINDOW = env.int("MAIL_IGNORED_PER_WINDOW", default=20)
# How long inbound mails are kept (a daily beat task deletes older ones): those that were
# answered (played, refused, expired...) and those that were ignored (no answer).
MAIL_KEEP_ANSWERED_DAYS = env.int("MAIL_KEEP_ANSWERED_DAYS", default=30)
MAIL_KEEP_IGNORED_DAYS = env.int("MAIL_KEEP_IGNORED_DAYS", default=7)
# The webhooks' secrets. One left unset is replaced by a random one of this process, which no
# provider knows: that provider's webhook then refuses every post (400) instead of taking
# unsigned mail from anyone.
_unknowable = secrets.token_urlsafe(32)
ANYMAIL = {
    # HTTP basic auth ("user:password", several comma-separated while rotating) that every
    # webhook post must carry (anymail checks it first); for Postmark, Mailjet, SendGrid,
    # SparkPost... it is the only check.
    "WEBHOOK_SECRET": env.list("ANYMAIL_WEBHOOK_SECRET", default=[])
    or [f"anymail:{_unknowable}"],
    # Providers' own signatures.
    "MAILGUN_WEBHOOK_SIGNING_KEY": env.str("MAILGUN_WEBHOOK_SIGNING_KEY", default="")
    or _unknowable,
    "MAILERSEND_INBOUND_SECRET": env.str("MAILERSEND_INBOUND_SECRET", default="")
    or _unknowable,
    "MANDRILL_WEBHOOK_KEY": env.str("MANDRILL_WEBHOOK_KEY", default="") or _unknowable,
}

# --- Outgoing webhooks (games/webhooks/http.py, games/webhooks/endpoints.py) ----------------------
# Users' endpoints are posted to over HTTPS only, never at a private, loopback, link-local,
# multicast or reserved address. The hosts listed here (tests, development: "127.0.0.1,localhost")
# may take plain http and any address. An endpoint is turned off after this many failed attempts
# in a row, and its owner told by mail.
WEBHOOK_ALLOWED_HOSTS = [host.strip().lower() for host in
                         env.list("WEBHOOK_ALLOWED_HOSTS", default=[]) if host.strip()]
WEBHOOK_DISABLE_AFTER = env.int("WEBHOOK_DISABLE_AFTER", default=10)
# ... and only once it has failed for this long (every attempt since its first failure).
WEBHOOK_DISABLE_AFTER_HOURS = env.float("WEBHOOK_DISABLE_AFTER_HOURS", default=24.0)
# Deliveries made or abandoned are listed to their owner (GET .../deliveries/) this many days.
WEBHOOK_KEEP_DAYS = env.int("WEBHOOK_KEEP_DAYS", default=30)

# --- Web Push (games/webpush/, games/notify/pushes.py) --------------------------------------------
# The site's VAPID key pair (RFC 8292), base64url: the public key uncompressed (65 bytes, the
# browsers' applicationServerKey), the private key its 32-byte scalar. Without both, push is off
# and not offered. `make run` makes development keys into var/vapid-dev.env.
# `python manage.py vapid_keys` prints a new pair.
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", default="")
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")
# Who the push services may contact about the site's pushes: mailto: or https:.
VAPID_SUBJECT = env.str("VAPID_SUBJECT", default="mailto:admin@localhost")
# The push services posted to (HTTPS, port 443): the browsers' own; ".suffix" takes subdomains.
PUSH_SERVICE_HOSTS = env.list("PUSH_SERVICE_HOSTS", default=[
    "fcm.googleapis.com", "updates.push.services.mozilla.com", ".push.services.mozilla.com",
    ".notify.windows.com", ".push.apple.com"])
# Hosts posted to over plain http and any port too: tests and development only.
PUSH_INSECURE_HOSTS = env.list("PUSH_INSECURE_HOSTS", default=[])

# --- Internationalisation -----------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fr", _("French"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(VAR_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# In development (and the tests, where pytest-django turns DEBUG off at run time) WhiteNoise
# serves the files from the apps and static/ as they are, without collectstatic.
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- django-allauth -----------------------------------------------------------------------------
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env.str("ACCOUNT_EMAIL_VERIFICATION", default="mandatory")
ACCOUNT_UNIQUE_EMAIL = True
# The verification link logs the new player in, but only where allauth allows it: in the browser
# that signed up (whose session holds the sign-up's pending login), within ACCOUNT_LOGIN_TIMEOUT
# (allauth's 15 minutes) of the sign-up, for that account's address. Opened elsewhere (the
# phone's mail app) or later, the address is confirmed and the log-in page says so.
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# Failed logins slow the guessing address down (10 a minute per IP address) but never lock the
# account itself: allauth's default also counted them per account, which let anyone keep its
# owner out with a stream of wrong passwords.
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip"}
LOGIN_REDIRECT_URL = "/"
LOGIN_URL = "account_login"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Sign-up and log-in post the browser's time zone (accounts/forms.py, static/js/timezone.js).
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm", "login": "accounts.forms.LoginForm"}

# --- Django REST framework and the OpenAPI schema -----------------------------------------------
# API throttles (requests per second/minute/hour/day): per user, per anonymous IP, and for
# registration and token login per IP.
API_THROTTLE_USER = env.str("API_THROTTLE_USER", default="1200/minute")
API_THROTTLE_ANON = env.str("API_THROTTLE_ANON", default="300/minute")
API_THROTTLE_AUTH = env.str("API_THROTTLE_AUTH", default="30/minute")
# Changes of webhook endpoints (register, PATCH, ping, new secret), per user: each looks a host
# up or posts to it.
API_THROTTLE_WEBHOOKS = env.str("API_THROTTLE_WEBHOOKS", default="60/hour")

# The client's address: how many proxies of the operator's own stand in front of the service and
# append to X-Forwarded-For (0: none, the default; the address is then the connection's own, and
# X-Forwarded-For is ignored whoever sends it). The throttles and allauth's rate limits count by
# that address.
TRUSTED_PROXIES = env.int("TRUSTED_PROXIES", default=0)
ALLAUTH_TRUSTED_PROXY_COUNT = TRUSTED_PROXIES

REST_FRAMEWORK = {
    "NUM_PROXIES": TRUSTED_PROXIES,
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.ModeratedTokenAuthentication",
        "games.api.authentication.ModeratedSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "games.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    # orjson: the same compact UTF-8 JSON as DRF's renderer and parser; the parser with the
    # bounds of games/api/parsers.py (size, nesting)
    "DEFAULT_PARSER_CLASSES": ["games.api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["drf_orjson_renderer.renderers.ORJSONRenderer"],
    "ORJSON_RENDERER_OPTIONS": [orjson.OPT_NON_STR_KEYS],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "games.api.negotiation.JSONFallbackNegotiation",
    "EXCEPTION_HANDLER": "games.api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "games.api.throttling.UserThrottle",
        "games.api.throttling.AnonThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": API_THROTTLE_USER,
        "anon": API_THROTTLE_ANON,
        "auth": API_THROTTLE_AUTH,
        "webhooks": API_THROTTLE_WEBHOOKS,
    },
}
# API tokens (django-rest-knox): "Authorization: Token <token>", several per user, stored as
# digests, lasting until revoked (by their user, or all at once by a new password).
REST_KNOX = {"TOKEN_TTL": None, "AUTH_HEADER_PREFIX": "Token", "AUTO_REFRESH": False}

SPECTACULAR_SETTINGS = {
    "TITLE": "Mascarade Online API",
    "DESCRIPTION": "REST API v1 for Mascarade Online. The contract: "
                   "[/api/docs/contract/API.md](/api/docs/contract/API.md); the envelope and "
                   "each game's part (options, moves, state): "
                   "[/api/docs/contract/](/api/docs/contract/).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.add_stream_paths",
        "games.api.schema.add_error_responses",
        "games.api.schema.add_game_schemas",
        "games.api.schema.nullable_references",
    ],
    # Swagger UI's files served by the site itself (drf-spectacular-sidecar), its set-up script
    # too (SpectacularSwaggerSplitView): no inline script, no third-party host.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No online validator badge (an image from validator.swagger.io).
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.Game.Status",
        "BotKindEnum": "games.core.catalog.bot_kinds",
    },
}

# --- Security (production) ----------------------------------------------------------------------
# With DEBUG off the defaults are those `manage.py check --deploy` asks for; behind a TLS proxy
# set SECURE_PROXY_SSL_HEADER_ENABLED=1 so Django knows the request came over HTTPS.
if env.bool("SECURE_PROXY_SSL_HEADER_ENABLED", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
# HSTS for every subdomain too, and the request to be preloaded in browsers (a one-way commitment:
# leaving the list takes months): the operator's choice, off unless set (docs/operations.md), and
# `check --deploy`'s reminders of them (W005, W021) silenced while off.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = ([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]) + (
    [] if SECURE_HSTS_PRELOAD else ["security.W021"])
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy on every answer (django-csp): scripts from the site itself only (the
# vendored htmx, the admin's, Swagger UI's from drf-spectacular-sidecar), no inline script, no
# eval. Inline styles are allowed: the admin, htmx's indicator and Swagger UI set some.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# /healthz is probed over plain HTTP by container healthchecks.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # aiosmtpd's "mail.log" logs every SMTP command at INFO: the receiver's own lines suffice.
    "loggers": {"django.db.backends": {"level": "INFO"}, "mail.log": {"level": "WARNING"}},
}

# Tests and CI: with REQUIRE_SERVICES=1 a test that needs PostgreSQL or Redis fails instead of
# skipping (see tests/conftest.py).
REQUIRE_SERVICES = env.bool("REQUIRE_SERVICES", default=False)
