from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the job kinds (close, replay, imports, exports) in every process that
        # may start or run one: web, worker, commands.
        from tournaments import jobs  # noqa: F401
