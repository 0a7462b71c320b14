from __future__ import annotations

from django.apps import AppConfig


class WorkshopConfig(AppConfig):
    name = "ratings_site.workshop"
    label = "workshop"
    verbose_name = "Workshop (development only)"
