"""The admin's "Read FIDE rating list" upload page, linked from the players list.

A form (club, file, month, federation to add, seed ratings, dry run) that starts a FIDE
list job and goes to the job's page, which shows the report when it is done. The club choices are the clubs where the
user is a rating officer or above; the service checks the role again.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from players.admin.jobs import job_page_url
from players.errors import DomainError
from players.http.admin import club_ids_with, is_superuser, report_domain_error, role_allows
from players.jobs import job_start
from players.models import Club, Player, Role
from players.selectors import clubs_by_name, parse_month
from tournaments.services.fide_list import fide_upload_problem


class FideListForm(forms.Form):
    club = forms.ModelChoiceField(queryset=Club.objects.none())
    file = forms.FileField(
        help_text="FIDE's download as it comes: the TXT or the XML list, plain or zipped."
    )
    month = forms.RegexField(
        regex=r"^\d{4}-\d{2}$",
        required=False,
        help_text="The list's month, YYYY-MM (default: this month).",
    )
    add_federation = forms.RegexField(
        regex=r"^[A-Za-z]{3}$",
        required=False,
        help_text="Also create this federation's players the club does not have (e.g. NOR).",
    )
    seed_ratings = forms.BooleanField(
        required=False,
        help_text="Start players unrated on a club's Elo list at their FIDE rating of that kind.",
    )
    dry_run = forms.BooleanField(label="Dry run", required=False, help_text="Store nothing.")

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if problem := fide_upload_problem(upload):
            raise forms.ValidationError(problem)
        return upload

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = clubs_by_name()
        if not is_superuser(request):
            clubs = clubs.filter(pk__in=club_ids_with(request, Role.OFFICER))
        field = self.fields["club"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = clubs


def fide_list_urls(model_admin: admin.ModelAdmin[Any]) -> list[URLPattern]:
    def view(request: HttpRequest) -> HttpResponse:
        return fide_list_view(model_admin, request)

    return [path("fide-list/", model_admin.admin_site.admin_view(view), name="fide_list")]


def fide_list_view(model_admin: admin.ModelAdmin[Any], request: HttpRequest) -> HttpResponse:
    if not role_allows(request, Role.OFFICER, None):
        raise PermissionDenied
    if request.method == "POST":
        form = FideListForm(request.POST, request.FILES, request=request)
        if form.is_valid():
            data = form.cleaned_data
            try:
                if data["month"]:
                    parse_month(data["month"], field="month")
                job = job_start(
                    kind="fide_list",
                    club=data["club"],
                    by=request.user,
                    params={
                        "month": data["month"] or None,
                        "add_federation": data["add_federation"] or "",
                        "seed_ratings": data["seed_ratings"],
                        "dry_run": data["dry_run"],
                        "file": data["file"].name,
                    },
                    payload=data["file"],  # copied into the job's row a slice at a time
                )
            except DomainError as error:
                report_domain_error(request, error)
            else:
                # The job's page follows it and then shows the report.
                return HttpResponseRedirect(job_page_url(job))
    else:
        form = FideListForm(request=request)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Read FIDE rating list",
        "opts": Player._meta,
        "form": form,
    }
    return TemplateResponse(request, "admin/players/player/fide_list.html", context)
