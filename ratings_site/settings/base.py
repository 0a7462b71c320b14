"""Settings shared by every environment; values come from the environment.

``DATABASE_URL`` (default: ``db.sqlite3`` in the project), ``SECRET_KEY``, ``DEBUG`` and
``ALLOWED_HOSTS`` are read here. ``ratings_site.settings.production`` tightens them.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ratings_site.env import (
    env_bool,
    env_cache,
    env_choice,
    env_database,
    env_email,
    env_float,
    env_int,
    env_list,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# A fixed development key keeps sessions valid across `make run` restarts; production
# settings refuse to start with it.
DEV_SECRET_KEY = "insecure-development-key-never-use-in-production"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
DEBUG = env_bool("DEBUG", default=False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "simple_history",
    "axes",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "ratings_site",
    "players",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Addresses with control characters (a NUL byte) or over-long: refused before any view.
    "ratings_site.middleware.refuse_bad_paths",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads a cookie: the widgets are served as to a stranger.
    "ratings_site.middleware.widgets_without_cookies",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The pages' language from the browser's Accept-Language (or the language switch's
    # cookie); the API stays English (ratings_site/middleware.py).
    "ratings_site.middleware.PageLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: answers to a signed-in user or a token say Cache-Control: private.
    "ratings_site.middleware.private_answers",
    "django.contrib.messages.middleware.MessageMiddleware",
    # The audit trail: who (simple-history's middleware) and through what (ours).
    "simple_history.middleware.HistoryRequestMiddleware",
    "ratings_site.middleware.audit_channel",
    # Content-Security-Policy on every answer (settings below).
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout answer.
    "axes.middleware.AxesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "ratings_site.db_router.ReplicaReadsMiddleware",
]

ROOT_URLCONF = "ratings_site.urls"
WSGI_APPLICATION = "ratings_site.wsgi.application"
ASGI_APPLICATION = "ratings_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "ratings_site" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ratings_site.context_processors.name_order",
            ],
        },
    },
]

DATABASES = {
    "default": env_database("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
# DATABASE_REPLICA_URL: a read replica for the public pages and the exports
# (ratings_site/db_router.py); everything else reads and writes the primary.
if env_str("DATABASE_REPLICA_URL", ""):
    DATABASES["replica"] = env_database("DATABASE_REPLICA_URL", default="")
    if DATABASES["replica"]["ENGINE"] == "django.db.backends.postgresql":
        # A standby that does not answer is given up on quickly: the page reads the
        # primary instead (db_router.replica_usable), not a hung request.
        DATABASES["replica"]["OPTIONS"] = {
            "connect_timeout": max(1, round(env_float("DATABASE_REPLICA_TIMEOUT", 2))),
            **dict(DATABASES["replica"].get("OPTIONS") or {}),  # type: ignore[call-overload]
        }
    # Under test the replica alias is the primary's test database on the replica's server
    # (a standby holds the same databases by name): no test database of its own.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
# How long the public pages read the primary after the replica failed to answer.
DATABASE_REPLICA_RETRY_SECONDS = env_float("DATABASE_REPLICA_RETRY_SECONDS", 30)
DATABASE_ROUTERS = ["ratings_site.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a rule for passwords: its hook revokes every API token when a password changes.
    {"NAME": "players.services.tokens.RevokeTokensOnPasswordChange"},
]

# django-axes first: it refuses a locked-out username or address before any password is
# checked (site login, admin login and the API's token endpoint all authenticate here).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# The lockout's policy is in ratings_site/lockout.py (and docs/reference/security.md): ten wrong
# passwords lock the username (from any address) and the address (for any username) for
# an hour from the tenth, which further tries do not extend; a success clears only that
# username's count from that address; a locked username still signs in from an address it
# signed in from in the last LOCKOUT_KNOWN_ADDRESS_DAYS.
AXES_HANDLER = "ratings_site.lockout.LockoutHandler"
AXES_FAILURE_LIMIT = 10
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_USERNAME_CALLABLE = "ratings_site.lockout.lockout_username"
AXES_CLIENT_IP_CALLABLE = "players.http.throttles.client_ip"
LOCKOUT_KNOWN_ADDRESS_DAYS = env_int("LOCKOUT_KNOWN_ADDRESS_DAYS", 90)
AXES_LOCKOUT_CALLABLE = "ratings_site.lockout.locked_out"

LANGUAGE_CODE = "en"
# The pages speak English and German (docs/developers/howto-language.md); numbers and dates follow the
# active language on pages, never in the exports or the API.
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Our date format per language (ratings_site/formats/): pages write dates with DATE_FORMAT.
FORMAT_MODULE_PATH = ["ratings_site.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = False

STATIC_URL = "static/"
# Development and tests serve static files straight from the apps; production collects
# them into STATIC_ROOT (see production.py).
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Members sign in on the site's own pages (ratings_site/accounts/); the admin keeps its
# login for staff.
# The audit trail is read in the admin's "History" and the API; nothing is reverted from it
# (a revert would bypass the services' rules).
SIMPLE_HISTORY_REVERT_DISABLED = True

# Who may create clubs: "signed_in" (any signed-in user), "staff" or "superusers"; anyone
# but a superuser at most CLUBS_PER_DAY a day.
CLUB_CREATORS = env_choice("CLUB_CREATORS", "signed_in", ("signed_in", "staff", "superusers"))
CLUBS_PER_DAY = env_int("CLUBS_PER_DAY", 3)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "account-home"
LOGOUT_REDIRECT_URL = "home"

# Mail (invitations, password resets) goes through Django's email backend: the console in
# development; ``EMAIL_URL`` (smtp://user:password@host:port, smtp+tls://, smtp+ssl://) or
# the usual EMAIL_HOST/EMAIL_PORT/... settings in production.
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "ratings@localhost")
_EMAIL = env_email("EMAIL_URL")
EMAIL_BACKEND = _EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = _EMAIL.get("EMAIL_HOST", "localhost")
EMAIL_PORT = _EMAIL.get("EMAIL_PORT", 25)
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _EMAIL.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _EMAIL.get("EMAIL_USE_SSL", False)
if _EMAIL.get("EMAIL_FILE_PATH"):
    EMAIL_FILE_PATH = _EMAIL["EMAIL_FILE_PATH"]

# The site's address as members and webhook receivers reach it: the links in emails and
# in webhook bodies are built on it (a worker has no request to take it from). Use https
# in production: mail clients offer one-click unsubscribe only for https links.
SITE_URL = env_str("SITE_URL", "http://localhost:8000").rstrip("/")

# Webhooks (docs/reference/webhooks.md). Their URLs must resolve to public addresses, checked when
# registered and again at each delivery; WEBHOOKS_ALLOW_PRIVATE=1 lets loopback, private
# and link-local ones through (development and tests only). Only the ports in
# WEBHOOKS_ALLOWED_PORTS ("80,443"; "*" for any, development and tests only) are allowed:
# any other port on a public host would let a club probe it through the deliveries log.
# WEBHOOKS_TIMEOUT_SECONDS is each try's wall-clock deadline: the lookup, connecting, TLS,
# sending and the whole answer together (a receiver trickling bytes is cut off there);
# failed tries are tried again after each of WEBHOOKS_RETRY_SECONDS in turn (6 tries over
# about an hour), then the delivery is failed. A webhook whose tries all failed for
# WEBHOOKS_DISABLE_AFTER_DAYS is switched off and its club's owners are emailed.
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", default=False)
_WEBHOOK_PORTS = env_list("WEBHOOKS_ALLOWED_PORTS", default=["80", "443"])
if _WEBHOOK_PORTS != ["*"] and not all(p.isdigit() and 0 < int(p) < 65536 for p in _WEBHOOK_PORTS):
    raise ImproperlyConfigured(
        f"WEBHOOKS_ALLOWED_PORTS={','.join(_WEBHOOK_PORTS)!r}: give port numbers, or *."
    )
WEBHOOKS_ALLOWED_PORTS: str | list[int] = (
    "*" if _WEBHOOK_PORTS == ["*"] else [int(port) for port in _WEBHOOK_PORTS]
)
WEBHOOKS_TIMEOUT_SECONDS = env_float("WEBHOOKS_TIMEOUT_SECONDS", 10.0)
WEBHOOKS_RETRY_SECONDS = [
    float(s)
    for s in env_list("WEBHOOKS_RETRY_SECONDS", default=["20", "120", "600", "1200", "1800"])
]
WEBHOOKS_DISABLE_AFTER_DAYS = env_float("WEBHOOKS_DISABLE_AFTER_DAYS", 3.0)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.http.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "players.http.ordering.StrictOrderingFilter",
    ],
    "DEFAULT_PARSER_CLASSES": ["players.http.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "players.http.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "calculator": "120/minute",
        "auth": "30/minute",
        "auth_username": "10/minute",
    },
    # How many proxies of ours add to X-Forwarded-For: 0 trusts none of it (the address is
    # the connecting peer's). Behind one reverse proxy, set NUM_PROXIES=1.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
    "EXCEPTION_HANDLER": "ratings_site.api.exception_handler",
    "DATE_INPUT_FORMATS": ["iso-8601"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# API tokens (django-rest-knox): stored as hashes, expire after 30 days, deleted on logout.
# Our token model adds a name and when it was last used (players.models.ApiToken).
KNOX_TOKEN_MODEL = "players.ApiToken"  # noqa: S105 - a model name, not a secret
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=30),
    "AUTO_REFRESH": False,
    "TOKEN_LIMIT_PER_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Club ratings API",
    "DESCRIPTION": "Rating lists for chess clubs: FIDE rules, monthly periods, history.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "players.http.schema.document_other_errors",
        "players.http.schema.declare_bounds",
        "tournaments.api.tournaments.declare_bulk_bounds",
    ],
    # One name per choice set used by several serializers.
    "ENUM_NAME_OVERRIDES": {
        "CalculatorResultEnum": "players.api.calculator.RESULT_SPELLINGS",
        "ListKindEnum": "players.models.common.list_kind_choices",
        "ExpectedMethodEnum": "players.models.ExpectedMethod",
        "FirstRatingPolicyEnum": "players.models.FirstRatingPolicy",
        "KPolicyEnum": "players.models.KPolicy",
        "RoleEnum": "players.models.Role",
        "KReasonEnum": "players.models.KReason",
        "PeriodStatusEnum": "players.models.RatingPeriod.Status",
        "InvitationStatusEnum": "players.models.InvitationStatus",
        "ClaimStatusEnum": "players.models.ClaimStatus",
        "ResultEnum": "players.models.common.game_result_choices",
    },
}

# Background jobs: Django's tasks framework (the django-tasks backport) with its database
# backend, so SQLite needs no extra server and PostgreSQL serves workers on many machines.
# `manage.py worker` runs them. TASKS_BACKEND=django_tasks.backends.immediate.ImmediateBackend
# runs every job inside the request that starts it (no worker; the tests use it).
#
# The queue has lanes (django-tasks' queue names; docs/reference/queue.md): "rating" (close, reopen:
# what an officer waits for), "replays" (a list's replay: many months at once), "files"
# (imports, exports, FIDE's list) and "deliveries" (webhooks, e-mails). Each lane has its
# own worker(s), so one club's huge upload, long replay or slow receiver waits in its own
# lane, never in front of another club's close. Inside a lane a club's job is queued
# behind the ones it already has waiting there (its priority), not behind other clubs'.
JOBS_LANES = ("rating", "replays", "files", "deliveries")
TASKS = {
    "default": {
        "BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": list(JOBS_LANES),
    }
}
# The wall-clock seconds a job of each kind may run before it is stopped and failed with
# code "deadline_exceeded" (its work rolled back: a close stopped leaves the period open).
# Each can be set from the environment: JOBS_DEADLINE_CLOSE=300, JOBS_DEADLINE_IMPORT=120...
# A kind not listed gets JOBS_DEADLINE_DEFAULT. 0: no deadline for that kind.
_DEADLINE_DEFAULTS = {
    "close": 900.0,
    "reopen": 900.0,
    "replay": 3600.0,
    "periods": 3600.0,
    "import": 900.0,
    "fide_list": 1800.0,
    "history_export": 900.0,
    "club_export": 1800.0,
    "default": 900.0,
}
JOBS_DEADLINE_SECONDS = {
    kind: env_float(f"JOBS_DEADLINE_{kind.upper()}", seconds)
    for kind, seconds in _DEADLINE_DEFAULTS.items()
}
# A running job's worker writes a heartbeat (and the job's progress) every
# JOBS_HEARTBEAT_SECONDS (0: never; only for jobs run inside a request). A running job
# whose heartbeat is older than JOBS_LEASE_SECONDS lost its worker: the other workers run
# it again, up to JOBS_MAX_ATTEMPTS attempts in all, then mark it failed.
JOBS_HEARTBEAT_SECONDS = env_float("JOBS_HEARTBEAT_SECONDS", 2.0)
JOBS_LEASE_SECONDS = env_float("JOBS_LEASE_SECONDS", 30.0)
JOBS_MAX_ATTEMPTS = int(env_float("JOBS_MAX_ATTEMPTS", 2))
# A lane that gives way to others: between the chunks of its jobs' COPY writes a job of
# "files" or "replays" waits while a job of the "rating" lane runs, so an officer's close
# gets the database server's cores rather than sharing them with a neighbour's 580,000-game
# import (the workers' niceness does not reach the server's backends). At most
# JOBS_GIVE_WAY_MAX_SECONDS of waiting per job, which counts against its deadline; 0: never.
JOBS_GIVE_WAY = {"files": ("rating",), "replays": ("rating",)}
JOBS_GIVE_WAY_MAX_SECONDS = env_float("JOBS_GIVE_WAY_MAX_SECONDS", 120.0)
# The niceness (0-19) a `manage.py worker` runs its jobs at: background work yields the
# CPU to the web on a machine they share (a big close took the pages' share of the cores
# at 0); on an idle machine it costs nothing. `manage.py worker --nice N` overrides it.
WORKER_NICE = env_int("WORKER_NICE", 10)
# The replays and files lanes run lower still, so a neighbour's replay or 60 MB import on a
# small machine takes what the rating lane (another club's close) leaves. A worker that
# serves several lanes runs at the niceness of the most urgent of them.
WORKER_LANE_NICE = {
    "rating": WORKER_NICE,
    "deliveries": WORKER_NICE,
    "replays": env_int("WORKER_REPLAYS_NICE", 15),
    "files": env_int("WORKER_FILES_NICE", 19),
}

# Tournament files (API and admin imports) larger than this are refused before they are
# read; a 100,000-game TRF is about 12 MB, and imports stream, so memory is not the limit.
IMPORT_MAX_UPLOAD_MB = int(env_float("IMPORT_MAX_UPLOAD_MB", 64))
# A line of a tournament file longer than this is refused before the parser reads it (one
# line is held whole by the parsers; a PGN game's moves on one line are a few KB).
IMPORT_MAX_LINE_KB = int(env_float("IMPORT_MAX_LINE_KB", 1024))
# A PGN or CSV naming more players than this is refused while it is read, at the first
# game past the limit: what an import holds grows with the players it names (about 2.5 KB
# each, matched, planned and created) far more than with its games (45 bytes each). At
# 50,000 the worst file the upload limit lets in stays under 512 MB of worker memory
# (docs/reference/queue.md); a TRF names at most 9,999.
IMPORT_MAX_PLAYERS = env_int("IMPORT_MAX_PLAYERS", 50_000)
# FIDE's rating list (API and admin uploads) larger than this is refused before it is read.
# The upload goes into the job's row a slice at a time and back out as a stream, so memory
# is not the limit; the database is: a job's file is one value, which SQLite caps at
# 1,000,000,000 bytes and PostgreSQL at 1 GB. 900 lets FIDE's largest download through
# (the unzipped XML, about 785 MB; zipped, either list is well under 100 MB).
FIDE_LIST_MAX_UPLOAD_MB = int(env_float("FIDE_LIST_MAX_UPLOAD_MB", 900))
# What an upload may make the reader of FIDE's list hold (docs/reference/security.md): a ZIP's first
# file unpacks to at most FIDE_LIST_MAX_UNZIPPED_MB and at most FIDE_LIST_MAX_ZIP_RATIO
# times its packed size (FIDE's zips are under 20), in a ZIP of at most
# FIDE_LIST_MAX_ZIP_MEMBERS files (checked at the upload, from the ZIP's directory, and
# again in the job); a TXT line is at most FIDE_LIST_MAX_LINE_KB (FIDE's are 160 bytes), an
# XML element (a <player>, the prolog) at most FIDE_LIST_MAX_ELEMENT_KB (FIDE's are 500).
FIDE_LIST_MAX_UNZIPPED_MB = int(env_float("FIDE_LIST_MAX_UNZIPPED_MB", 900))
FIDE_LIST_MAX_ZIP_RATIO = env_float("FIDE_LIST_MAX_ZIP_RATIO", 100)
FIDE_LIST_MAX_ZIP_MEMBERS = int(env_float("FIDE_LIST_MAX_ZIP_MEMBERS", 16))
FIDE_LIST_MAX_LINE_KB = int(env_float("FIDE_LIST_MAX_LINE_KB", 4))
FIDE_LIST_MAX_ELEMENT_KB = int(env_float("FIDE_LIST_MAX_ELEMENT_KB", 64))
# --add-federation keeps the federation's players read; FIDE's largest has about 100,000.
FIDE_LIST_MAX_FEDERATION_PLAYERS = int(env_float("FIDE_LIST_MAX_FEDERATION_PLAYERS", 500_000))

# Shared by every worker process (throttle counts and the cache of public views must be):
# the database by default (its table is made by `migrate`), Redis with
# CACHE_URL=redis://host:6379/0. Never a per-process cache (locmem) under several workers.
CACHES = {"default": env_cache("CACHE_URL")}
# How long a public view (pages and GET API of public clubs, anonymous visitors) is kept;
# every change a view shows retires its entries at once (players.http.cache). 0: no cache.
PUBLISHED_CACHE_SECONDS = env_int("PUBLISHED_CACHE_SECONDS", 600)

# No inline script anywhere (django-csp); styles may be inline (the admin's and the
# charts' style attributes).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# LOG_FORMAT=json: one JSON object per line (python-json-logger), for log collectors.
LOG_FORMAT = env_str("LOG_FORMAT", "text")
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r}: use text or json.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "filters": {
        # The queue's INFO lines (each task started and finished) would flood `make run`'s
        # console: with DEBUG on, only its warnings and errors show unless QUEUE_LOG_LEVEL
        # says otherwise; in production its INFO lines ("Starting worker ...") are kept.
        "queue_level": {
            "()": "ratings_site.log_filters.QueueLevel",
            "level": env_str("QUEUE_LOG_LEVEL", "WARNING" if DEBUG else "INFO"),
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["queue_level"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

# Errors (a 500, a job that failed with an exception: both are logged with their
# traceback) go to Sentry when SENTRY_DSN is set; without it nothing is sent anywhere.
SENTRY_DSN = env_str("SENTRY_DSN", "")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=env_str("SENTRY_ENVIRONMENT", "production"),
        send_default_pii=False,
    )
