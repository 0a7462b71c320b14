"""The players app's pages."""

from __future__ import annotations

from django.urls import path

from players import views

urlpatterns = [
    path("calculator/", views.calculator, name="calculator"),
]
