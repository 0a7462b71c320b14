"""Settings shared by every environment; values come from the environment.

``DATABASE_URL`` (default: ``db.sqlite3`` in the project), ``SECRET_KEY``, ``DEBUG`` and
``ALLOWED_HOSTS`` are read here. ``ratings_site.settings.production`` tightens them.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from ratings_site.env import env_bool, env_database, env_email, env_list, env_str

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
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
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
    # The audit trail: who (simple-history's middleware) and through what (ours).
    "simple_history.middleware.HistoryRequestMiddleware",
    "ratings_site.middleware.audit_channel",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a rule for passwords: its hook revokes every API token when a password changes.
    {"NAME": "players.services.tokens.RevokeTokensOnPasswordChange"},
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

# Members sign in on the site's own pages (ratings_site/accounts/); the admin keeps its
# login for staff.
# The audit trail is read in the admin's "History" and the API; nothing is reverted from it
# (a revert would bypass the services' rules).
SIMPLE_HISTORY_REVERT_DISABLED = True

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

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.api.authentication.TokenAuthentication",
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
        "InvitationStatusEnum": "players.models.InvitationStatus",
        "ResultEnum": "tournaments.models.Result",
    },
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
