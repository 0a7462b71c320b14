"""Settings shared by every environment; values come from the environment.

``DATABASE_URL`` (default: ``db.sqlite3`` in the project), ``SECRET_KEY``, ``DEBUG`` and
``ALLOWED_HOSTS`` are read here. ``ratings_site.settings.production`` tightens them.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ratings_site.env import env_bool, env_database, env_float, env_list, env_str

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
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
DATABASE_ROUTERS = ["ratings_site.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
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

LOGIN_URL = "admin:login"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_THROTTLE_RATES": {"calculator": "120/minute", "auth": "30/minute"},
    "EXCEPTION_HANDLER": "ratings_site.api.exception_handler",
    "DATE_INPUT_FORMATS": ["iso-8601"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# API tokens (django-rest-knox): stored as hashes, expire after 30 days, deleted on logout.
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
        "players.api.schema.document_other_errors",
    ],
    # One name per choice set used by several serializers.
    "ENUM_NAME_OVERRIDES": {
        "ListKindEnum": "players.models.ListKind",
        "ExpectedMethodEnum": "players.models.ExpectedMethod",
        "FirstRatingPolicyEnum": "players.models.FirstRatingPolicy",
        "KPolicyEnum": "players.models.KPolicy",
        "RoleEnum": "players.models.Role",
        "KReasonEnum": "players.models.KReason",
        "PeriodStatusEnum": "players.models.RatingPeriod.Status",
        "ResultEnum": "tournaments.models.Result",
    },
}

# Background jobs: Django's tasks framework (the django-tasks backport) with its database
# backend, so SQLite needs no extra server and PostgreSQL serves workers on many machines.
# `manage.py worker` runs them. TASKS_BACKEND=django_tasks.backends.immediate.ImmediateBackend
# runs every job inside the request that starts it (no worker; the tests use it).
TASKS = {
    "default": {
        "BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}
# A running job's worker writes a heartbeat (and the job's progress) every
# JOBS_HEARTBEAT_SECONDS (0: never; only for jobs run inside a request). A running job
# whose heartbeat is older than JOBS_LEASE_SECONDS lost its worker: the other workers run
# it again, up to JOBS_MAX_ATTEMPTS attempts in all, then mark it failed.
JOBS_HEARTBEAT_SECONDS = env_float("JOBS_HEARTBEAT_SECONDS", 2.0)
JOBS_LEASE_SECONDS = env_float("JOBS_LEASE_SECONDS", 30.0)
JOBS_MAX_ATTEMPTS = int(env_float("JOBS_MAX_ATTEMPTS", 2))

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

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
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
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
