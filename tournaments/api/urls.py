"""The tournaments app's API routes (under /api/v1/clubs/{club}/): tournaments, games,
periods, replay, the published list and its statistics, imports, the history export,
entry lists and forecasts."""

from __future__ import annotations

from django.urls import path

from tournaments.api.audit import AuditView
from tournaments.api.club_archive import ClubExportView
from tournaments.api.exports import HistoryExportView
from tournaments.api.fide_list import FideListView
from tournaments.api.forecast import (
    PlayerForecastView,
    TournamentEntriesView,
    TournamentForecastView,
)
from tournaments.api.imports import ImportView
from tournaments.api.live import LiveCSVView, LiveListView, PlayerLiveView
from tournaments.api.merge import PlayerMergeView
from tournaments.api.period_changes import PeriodChangesView
from tournaments.api.periods import (
    ListReplayView,
    PeriodCloseView,
    PeriodDetailView,
    PeriodListView,
    PeriodPreviewView,
    PeriodReopenView,
    RatingsCSVView,
    RatingsView,
)
from tournaments.api.statistics import StatisticsView
from tournaments.api.tournaments import (
    GameDetailView,
    GameListView,
    TournamentDetailView,
    TournamentListView,
)

CLUB = "clubs/<slug:club>/"
LIST = CLUB + "lists/<str:list>/"
PERIOD = LIST + "periods/<str:period>/"

urlpatterns = [
    path(CLUB + "tournaments/", TournamentListView.as_view(), name="tournaments"),
    path(CLUB + "tournaments/<int:id>/", TournamentDetailView.as_view(), name="tournament"),
    path(
        CLUB + "tournaments/<int:id>/entries/",
        TournamentEntriesView.as_view(),
        name="tournament-entries",
    ),
    path(
        CLUB + "tournaments/<int:id>/forecast/",
        TournamentForecastView.as_view(),
        name="tournament-forecast",
    ),
    path(CLUB + "players/<int:id>/forecast/", PlayerForecastView.as_view(), name="player-forecast"),
    path(CLUB + "games/", GameListView.as_view(), name="games"),
    path(CLUB + "games/<int:id>/", GameDetailView.as_view(), name="game"),
    path(CLUB + "imports/", ImportView.as_view(), name="imports"),
    path(CLUB + "audit/", AuditView.as_view(), name="audit"),
    path(CLUB + "export/", ClubExportView.as_view(), name="club-export"),
    path(CLUB + "fide-list/", FideListView.as_view(), name="fide-list"),
    path(CLUB + "players/<int:id>/merge/", PlayerMergeView.as_view(), name="player-merge"),
    path(LIST + "periods/", PeriodListView.as_view(), name="periods"),
    path(PERIOD, PeriodDetailView.as_view(), name="period"),
    path(PERIOD + "preview/", PeriodPreviewView.as_view(), name="period-preview"),
    path(PERIOD + "changes/", PeriodChangesView.as_view(), name="period-changes"),
    path(PERIOD + "close/", PeriodCloseView.as_view(), name="period-close"),
    path(PERIOD + "reopen/", PeriodReopenView.as_view(), name="period-reopen"),
    path(LIST + "replay/", ListReplayView.as_view(), name="list-replay"),
    path(LIST + "ratings/", RatingsView.as_view(), name="ratings"),
    path(LIST + "ratings.csv", RatingsCSVView.as_view(), name="ratings-csv"),
    path(LIST + "statistics/", StatisticsView.as_view(), name="list-statistics"),
    path(LIST + "live/", LiveListView.as_view(), name="live"),
    path(LIST + "live.csv", LiveCSVView.as_view(), name="live-csv"),
    path(CLUB + "players/<int:id>/live/", PlayerLiveView.as_view(), name="player-live"),
    path(LIST + "history-export/", HistoryExportView.as_view(), name="list-history-export"),
]
