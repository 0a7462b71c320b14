"""The admin's "Import tournament file" page, reached from the tournament list.

A form (club, list, format, file, dry run) that starts an import job and goes to the job's
page, which shows the report when it is done; a file's errors become admin messages with
their line numbers. The club choices are the
clubs where the user is an arbiter or above; the service checks the role again.
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
from players.models import Club, Role
from players.rating import ListKind
from players.selectors import clubs_by_name, lists_of_clubs
from tournaments.services.imports import upload_too_large

FORMAT_CHOICES = [
    ("trf", "FIDE TRF (TRF16 / TRF-2026)"),
    ("pgn", "PGN (headers: Event, Date, White, Black, Result, ...)"),
    ("csv", "CSV of games (date, white, black, result, tournament, round)"),
]


class ImportForm(forms.Form):
    club = forms.ModelChoiceField(queryset=Club.objects.none())
    # Every list of the clubs the user may import into (a club may add lists, Glicko-2
    # ones among them); the import refuses a list the chosen club does not have.
    rating_list = forms.ChoiceField(label="List", initial=ListKind.STANDARD.value)
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial="trf")
    file = forms.FileField(help_text="TRF and PGN may be UTF-8 or Windows-1252; CSV UTF-8.")
    dry_run = forms.BooleanField(
        label="Dry run", required=False, help_text="Show what would be imported; store nothing."
    )
    keep_identical = forms.BooleanField(
        label="Keep identical game lines",
        required=False,
        help_text="Off: a game line identical to an earlier one is stored once and listed.",
    )
    match = forms.ChoiceField(
        label="Possible matches",
        choices=[
            ("possible", "use the club's player"),
            ("new", "create a new player"),
        ],
        initial="possible",
        required=False,
        help_text="A player of the file with the same name as a club player but no birth "
        "data on one side. A dry run lists them.",
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if too_large := upload_too_large(upload.size):
            raise forms.ValidationError(too_large)
        return upload

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = clubs_by_name()
        if not is_superuser(request):
            clubs = clubs.filter(pk__in=club_ids_with(request, Role.ARBITER))
        field = self.fields["club"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = clubs.order_by("name")
        if clubs.count() == 1:
            field.initial = clubs.first()
        lists = lists_of_clubs(clubs=clubs).order_by("slug", "club__name")
        labels: dict[str, list[str]] = {}
        for slug, name, club_name in lists.values_list("slug", "name", "club__name"):
            labels.setdefault(slug, []).append(f"{name or slug} ({club_name})")
        list_field = self.fields["rating_list"]
        assert isinstance(list_field, forms.ChoiceField)
        list_field.choices = [
            (slug, f"{slug}: {', '.join(names)}") for slug, names in labels.items()
        ]


def import_urls(model_admin: admin.ModelAdmin[Any]) -> list[URLPattern]:
    """The URL to add to the tournament admin's get_urls()."""
    info = model_admin.opts.app_label, model_admin.opts.model_name

    def view(request: HttpRequest) -> HttpResponse:
        return import_view(model_admin, request)

    return [
        path(
            "import/",
            model_admin.admin_site.admin_view(view),
            name="{}_{}_import".format(*info),
        )
    ]


def import_view(model_admin: admin.ModelAdmin[Any], request: HttpRequest) -> HttpResponse:
    if not role_allows(request, Role.ARBITER, None):
        raise PermissionDenied
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES, request=request)
        if form.is_valid():
            data = form.cleaned_data
            upload = data["file"]
            try:
                job = job_start(
                    kind="import",
                    club=data["club"],
                    by=request.user,
                    params={
                        "format": data["format"],
                        "list": data["rating_list"],
                        "dry_run": data["dry_run"],
                        "match": data["match"] or "possible",
                        "keep_identical": data["keep_identical"],
                        "file": upload.name,
                    },
                    payload=upload,  # copied into the job a slice at a time
                )
            except DomainError as error:
                report_domain_error(request, error)
            else:
                # The job's page follows it and then shows the report.
                return HttpResponseRedirect(job_page_url(job))
    else:
        form = ImportForm(request=request)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Import tournament file",
        "opts": model_admin.opts,
        "form": form,
    }
    return TemplateResponse(request, "admin/tournaments/tournament/import.html", context)
