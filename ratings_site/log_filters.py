"""Logging filters the settings' LOGGING names."""

from __future__ import annotations

import logging

#: The job queue's loggers: django-tasks ("django_tasks", or "django.tasks" once Django
#: has tasks) and its database backend's worker ("django_tasks_db").
QUEUE_LOGGERS = ("django_tasks", "django.tasks", "django_tasks_db")


class QueueLevel(logging.Filter):
    """Drops the job queue's records below ``level``.

    The worker sets its loggers to INFO itself (at the command's default verbosity), so
    every task it starts and finishes is a line; a level in LOGGING's loggers would be
    overwritten. A filter on the handler holds whatever the worker sets."""

    def __init__(self, level: str = "INFO") -> None:
        super().__init__()
        self.level = logging.getLevelNamesMapping()[level.upper()]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= self.level:
            return True
        name = record.name
        return not any(name == base or name.startswith(base + ".") for base in QUEUE_LOGGERS)
