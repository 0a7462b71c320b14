"""The players app's API routes (under /api/v1/): auth, clubs, members, invitations,
claims, lists, players, jobs, webhooks."""

from __future__ import annotations

from django.urls import path

from players.api.auth import TokenLogoutView, TokenView
from players.api.calculator import CalculateView
from players.api.calculator_glicko2 import Glicko2CalculateView
from players.api.claims import ClaimDecisionView, ClaimDetailView, ClaimListView, MyClaimsView
from players.api.clubs import (
    ClubDetailView,
    ClubListView,
    MemberDetailView,
    MemberListView,
    RatingListDetailView,
    RatingListListView,
)
from players.api.duplicates import PlayerDuplicatesView
from players.api.invitations import InvitationDetailView, InvitationListView
from players.api.jobs import JobDownloadView, JobView
from players.api.players import (
    PlayerDetailView,
    PlayerHistoryView,
    PlayerKHistoryView,
    PlayerKOverrideView,
    PlayerListView,
)
from players.api.webhooks import (
    DeliveryDetailView,
    DeliveryListView,
    DeliveryRedeliverView,
    WebhookDetailView,
    WebhookListView,
    WebhookPingView,
)
from players.http import schema  # noqa: F401  (registers the schema extensions)

CLUB = "clubs/<slug:club>/"
PLAYER = CLUB + "players/<int:id>/"
WEBHOOK = CLUB + "webhooks/<int:id>/"
DELIVERY = CLUB + "webhooks/<int:webhook>/deliveries/<uuid:id>/"

urlpatterns = [
    path("calculate/", CalculateView.as_view(), name="calculate"),
    path("calculate/glicko2/", Glicko2CalculateView.as_view(), name="calculate-glicko2"),
    path("auth/token/", TokenView.as_view(), name="auth-token"),
    path("auth/logout/", TokenLogoutView.as_view(), name="auth-logout"),
    path("jobs/<str:id>/", JobView.as_view(), name="job"),
    path("jobs/<str:id>/download/", JobDownloadView.as_view(), name="job-download"),
    path("claims/", MyClaimsView.as_view(), name="claims-mine"),
    path("clubs/", ClubListView.as_view(), name="clubs"),
    path(CLUB, ClubDetailView.as_view(), name="club"),
    path(CLUB + "members/", MemberListView.as_view(), name="members"),
    path(CLUB + "members/<str:username>/", MemberDetailView.as_view(), name="member"),
    path(CLUB + "invitations/", InvitationListView.as_view(), name="invitations"),
    path(CLUB + "invitations/<int:id>/", InvitationDetailView.as_view(), name="invitation"),
    path(CLUB + "claims/", ClaimListView.as_view(), name="claims"),
    path(CLUB + "claims/<int:id>/", ClaimDetailView.as_view(), name="claim"),
    path(CLUB + "claims/<int:id>/decision/", ClaimDecisionView.as_view(), name="claim-decision"),
    path(CLUB + "lists/", RatingListListView.as_view(), name="lists"),
    path(CLUB + "lists/<str:list>/", RatingListDetailView.as_view(), name="list"),
    path(CLUB + "players/", PlayerListView.as_view(), name="players"),
    path(CLUB + "players/duplicates/", PlayerDuplicatesView.as_view(), name="player-duplicates"),
    path(PLAYER, PlayerDetailView.as_view(), name="player"),
    path(PLAYER + "history/", PlayerHistoryView.as_view(), name="player-history"),
    path(PLAYER + "k-history/", PlayerKHistoryView.as_view(), name="player-k-history"),
    path(PLAYER + "k-override/", PlayerKOverrideView.as_view(), name="player-k-override"),
    path(CLUB + "webhooks/", WebhookListView.as_view(), name="webhooks"),
    path(WEBHOOK, WebhookDetailView.as_view(), name="webhook"),
    path(WEBHOOK + "ping/", WebhookPingView.as_view(), name="webhook-ping"),
    path(WEBHOOK + "deliveries/", DeliveryListView.as_view(), name="webhook-deliveries"),
    path(DELIVERY, DeliveryDetailView.as_view(), name="webhook-delivery"),
    path(DELIVERY + "redeliver/", DeliveryRedeliverView.as_view(), name="webhook-redeliver"),
]
