"""The tournaments app's pages."""

from __future__ import annotations

from django.urls import path

from tournaments import views

urlpatterns = [
    path(
        "clubs/<slug:club>/lists/<slug:kind>/periods/<str:month>/",
        views.period_report,
        name="period-report",
    ),
]
