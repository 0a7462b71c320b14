"""Download URLs (lists, histories, tournaments), included from ratings_site/urls.py."""

from __future__ import annotations

from django.urls import path

from tournaments import views_exports

CLUB = "clubs/<slug:club>/"

urlpatterns = [
    path(
        CLUB + "lists/<str:list>/export.csv",
        views_exports.list_download,
        {"format": "csv"},
        name="list-export-csv",
    ),
    path(
        CLUB + "lists/<str:list>/export.txt",
        views_exports.list_download,
        {"format": "txt"},
        name="list-export-txt",
    ),
    path(
        CLUB + "players/<int:id>/history.csv",
        views_exports.player_history_download,
        name="player-history-csv",
    ),
    path(
        CLUB + "tournaments/<int:id>/export.trf",
        views_exports.tournament_download,
        name="tournament-export-trf",
    ),
    path(
        CLUB + "tournaments/<int:id>/export.pgn",
        views_exports.tournament_download,
        {"format": "pgn"},
        name="tournament-export-pgn",
    ),
]
