from __future__ import annotations

from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # ``field__any=[...]`` (players/lookups.py), for lookups of thousands of values.
        from players import lookups  # noqa: F401
