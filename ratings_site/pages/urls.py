"""The public pages: the front page, the calculator and the club pages."""

from __future__ import annotations

from django.urls import path

from ratings_site.pages import embed, forecast, views

urlpatterns = [
    path("", views.home, name="home"),
    path("calculator/", views.calculator, name="calculator"),
    path("calculator/glicko2/", views.calculator_glicko2, name="calculator-glicko2"),
    path("calculator/systems/", views.calculator_systems, name="calculator-systems"),
    path("clubs/", views.clubs_index, name="clubs"),
    path("players/", views.player_search, name="player-search"),
    path("clubs/<slug:club>/", views.club_home, name="club"),
    path("clubs/<slug:club>/embed/", embed.embed_help, name="club-embed"),
    # The widgets a club's website frames (ratings_site/pages/embed.py): under a prefix of
    # their own, which the middleware serves without cookies.
    path("embed/clubs/<slug:club>/lists/<slug:kind>/", embed.list_widget, name="widget-list"),
    path(
        "embed/clubs/<slug:club>/lists/<slug:kind>/live/",
        embed.live_widget,
        name="widget-live",
    ),
    path(
        "embed/clubs/<slug:club>/players/<int:player_id>/",
        embed.player_widget,
        name="widget-player",
    ),
    path("clubs/<slug:club>/lists/<slug:kind>/", views.rating_list, name="rating-list"),
    path(
        "clubs/<slug:club>/lists/<slug:kind>/live/",
        views.rating_list_live,
        name="rating-list-live",
    ),
    path(
        "clubs/<slug:club>/lists/<slug:kind>/statistics/",
        views.list_statistics,
        name="list-statistics",
    ),
    path("clubs/<slug:club>/players/<int:player_id>/", views.player_detail, name="player"),
    path(
        "clubs/<slug:club>/players/<int:player_id>/vs/<int:opponent_id>/",
        views.head_to_head_page,
        name="head-to-head",
    ),
    path("clubs/<slug:club>/tournaments/", views.tournaments_index, name="tournaments"),
    path(
        "clubs/<slug:club>/tournaments/<int:tournament_id>/",
        views.tournament_detail,
        name="tournament",
    ),
    path(
        "clubs/<slug:club>/tournaments/<int:tournament_id>/forecast/",
        forecast.tournament_forecast_page,
        name="tournament-forecast",
    ),
    path(
        "clubs/<slug:club>/tournaments/<int:tournament_id>/forecast.csv",
        forecast.tournament_forecast_download,
        name="tournament-forecast-csv",
    ),
    path(
        "clubs/<slug:club>/players/<int:player_id>/next-game/",
        forecast.next_game_page,
        name="next-game",
    ),
    path(
        "clubs/<slug:club>/lists/<slug:kind>/periods/<str:month>/",
        views.period_report,
        name="period-report",
    ),
]
