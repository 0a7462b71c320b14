"""gunicorn's settings for this project (``gunicorn -c deploy/gunicorn.conf.py
ratings_site.wsgi``); each can be overridden from the environment."""

from __future__ import annotations

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Sync workers: the pages and the API are short CPU-bound requests; long work is a job.
workers = int(os.environ.get("GUNICORN_WORKERS", str(multiprocessing.cpu_count() * 2 + 1)))
# Above the API's longest ?wait= (30 s), so a waiting request is never killed mid-answer.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 30
# Restart each worker now and then: bounds the memory a long-lived process may collect.
# The jitter is wide because workers share the load evenly: with a narrow one they all
# restart within seconds of each other (cached pages make 2,000 requests a worker a
# matter of a minute), and for the seconds a new worker takes to load the site nobody
# answers.
max_requests = 10000
max_requests_jitter = 5000
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def post_worker_init(worker: object) -> None:
    """Move the loaded site (Django, the URLconf, the templates' compiled nodes) out of
    the collector's reach: a full collection during a request otherwise walks every one of
    those long-lived objects, tenths of a second when a request builds many objects (the
    first visit of a 5,000-player tournament after a change)."""
    import gc

    gc.freeze()
