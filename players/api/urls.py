"""The players app's API routes (under /api/v1/)."""

from __future__ import annotations

from django.urls import path

from players.api.calculator import CalculateView

urlpatterns = [
    path("calculate/", CalculateView.as_view(), name="calculate"),
]
