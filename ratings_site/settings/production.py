"""Production settings: everything `manage.py check --deploy` asks for, and a real key."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from ratings_site.env import env_bool, env_str
from ratings_site.settings.base import *  # noqa: F403
from ratings_site.settings.base import DEV_SECRET_KEY, SECRET_KEY, STORAGES

if SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random value of at least 50 characters in production."
    )

DEBUG = env_bool("DEBUG", default=False)
if DEBUG:
    raise ImproperlyConfigured("DEBUG must be off in production.")

# E-mails and webhook bodies link to the site on this address (a worker has no request to
# take it from); the development default (http://localhost:8000) would send members there.
SITE_URL = env_str("SITE_URL", "").rstrip("/")
if not SITE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured(
        "SITE_URL must be set to the address members reach the site on "
        "(https://ratings.example.org): e-mails and webhooks link to it."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
# Load balancers probe over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(env_str("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
STATIC_ROOT = BASE_DIR / "staticfiles"  # noqa: F405
# Hashed names and compressed copies (served with a year's cache lifetime), always: the
# storage writes the manifest during `collectstatic`, and until there is one it gives the
# plain names, served from the apps (ratings_site/static_storage.py).
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "ratings_site.static_storage.StaticStorage"}}
# Collected: serve the collected (hashed, compressed) files; else from the apps.
WHITENOISE_USE_FINDERS = not (STATIC_ROOT / "staticfiles.json").exists()
