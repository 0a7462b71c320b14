"""The players app's pages: the calculator and the public club pages."""

from __future__ import annotations

from django.urls import path

from players import views

urlpatterns = [
    path("calculator/", views.calculator, name="calculator"),
    path("clubs/", views.clubs_index, name="clubs"),
    path("clubs/<slug:club>/", views.club_home, name="club"),
    path("clubs/<slug:club>/lists/<slug:kind>/", views.rating_list, name="rating-list"),
    path("clubs/<slug:club>/players/<int:player_id>/", views.player_detail, name="player"),
]
