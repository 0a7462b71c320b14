"""The bases of the API: the one error shape, pagination, and every view under
/api/v1/clubs/{club}/ with its club lookup and role check.

The club comes from the URL's slug through ``clubs_visible_to`` (via the selector
``club_get_visible``), so a private club and everything under it answer 404 to anyone who
is not a member. Writes then need the role the view names for that method.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, cast

import django_filters
from django.http import StreamingHttpResponse
from rest_framework import exceptions, serializers
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from players.errors import invalid_field
from players.http.cache import (
    PublishedEntry,
    after_response,
    cached_or_claimed,
    kept_while_streamed,
    published_entry,
)
from players.http.parsers import JSONParser
from players.http.renderers import JSONRenderer
from players.http.schema import ClubAutoSchema
from players.models import Club, Role, list_kind_choices, list_presets
from players.selectors import Generation, club_get_visible, require_role


def error_body(
    code: str, message: str, fields: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        """``?page_size=``: a whole number from 1 to 500, else a 400 naming it (DRF's
        answers a page of the default size to ``?page_size=ten``)."""
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= self.max_page_size:
            raise invalid_field(
                self.page_size_query_param, f"A whole number from 1 to {self.max_page_size}."
            )
        return int(raw)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        bounds = {
            self.page_query_param: {"minimum": 1},
            self.page_size_query_param: {"minimum": 1, "maximum": self.max_page_size},
        }
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters


class ClubScopedView(GenericAPIView):  # type: ignore[type-arg]
    """Looks the club up before anything else; ``roles`` maps an HTTP method to the least
    role it needs (a method not listed needs only the right to see the club)."""

    schema = ClubAutoSchema()
    pagination_class = Pagination
    # JSON in only: one documented request format; form posts are the HTML pages' job.
    parser_classes = [JSONParser]
    # JSON out: DRF's browsable pages need a serializer per view to draw forms; the
    # interactive docs at /api/docs/ serve people instead.
    renderer_classes: list[Any] = [JSONRenderer]
    # OPTIONS answers 405: the schema at /api/schema/ is the description of every view.
    metadata_class = None
    roles: ClassVar[dict[str, Role | None]] = {}
    # GET answers through ``published``: served from the cache of public views.
    published_get: ClassVar[bool] = False
    # Which of the club's generations the stored answer is kept under: LIVE for an answer
    # that a game changes (players.selectors.generations).
    published_scope: ClassVar[Generation] = Generation.PUBLISHED
    club: Club
    _published_entry: PublishedEntry | None = None
    _store_rendered: PublishedEntry | None = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Authentication and the anonymous-write check (401) come first, then the club
        # (404 hides a private club), then the role (403).
        super().initial(request, *args, **kwargs)
        self._published_entry = None
        # HEAD is GET without the body: the same role (it answered 200 where GET said 401).
        method = "GET" if request.method == "HEAD" else (request.method or "")
        if (
            self.published_get
            and method == "GET"
            and self.roles.get(method) is None  # a hit skips the role check below
        ):
            self._published_entry = published_entry(
                request=request._request,
                user=request.user,
                slug=kwargs["club"],
                # "bytes": entries hold the rendered answer (they once held its data).
                variant=f"api:bytes:{request.accepted_media_type}",
                scope=self.published_scope,
            )
            if self._published_entry is not None and self._published_entry.value is not None:
                # An anonymous visitor, an answer stored for this public club's current
                # generation (a club made private has a new one): the club is not read.
                return
        self.club = club_get_visible(user=request.user, slug=kwargs["club"])
        role = self.roles.get(method)
        if role is not None:
            if not request.user.is_authenticated:
                # Signing in may help: 401 tells the client so, where 403 would not.
                raise exceptions.NotAuthenticated()
            require_role(request.user, self.club, role)

    def published(self, answer: Callable[[], Response]) -> Response:
        """``answer()``, or its bytes from the cache of public views (players.http.cache),
        where ``initial`` found them; a 200 for an anonymous visitor of a public club is
        stored as rendered (``finalize_response``; a streamed answer as it streams), so a
        hit renders nothing. After a change one request rebuilds the answer while the
        others get the previous one, marked (``rebuilt_once``)."""
        entry = self._published_entry
        # DRF passes any HttpResponseBase on (its stubs name Response): stored bytes and
        # streamed files are answered as they are.
        # A miss read the club in ``initial``: asked only then.
        stored, claimed = cached_or_claimed(
            entry, previous_first=True, public=lambda: self.club.public
        )
        if stored is not None and claimed and entry is not None:
            # The previous answer, given: this request rebuilds it once it is delivered.
            return cast(Response, after_response(stored, lambda: self._rebuilt(entry, answer)))
        if stored is not None:
            return cast(Response, stored)
        release = entry.release if claimed and entry is not None else None
        try:
            if entry is not None and claimed:
                entry.vouch_public(self.club)
            response = answer()
            if entry is not None and response.status_code == 200:
                if isinstance(response, StreamingHttpResponse):
                    response.streaming_content = kept_while_streamed(
                        response.streaming_content,
                        entry=entry,
                        club=self.club,
                        content_type=response["Content-Type"],
                        release=release,
                    )
                    release = None  # the stream releases the rebuild when it ends
                else:
                    self._store_rendered = entry
            return response
        finally:
            if release is not None:
                release()

    def _rebuilt(self, entry: PublishedEntry, answer: Callable[[], Response]) -> None:
        """``answer()`` rendered as the client asked for it and stored in ``entry`` (a
        streamed one as it is read through), whose rebuild is then released."""
        try:
            response = answer()
            if response.status_code != 200:
                return
            if isinstance(response, StreamingHttpResponse):
                for _ in kept_while_streamed(
                    response.streaming_content,
                    entry=entry,
                    club=self.club,
                    content_type=response["Content-Type"],
                    release=None,
                ):
                    pass
                return
            self._store_rendered = entry
            self.finalize_response(self.request, response)
        finally:
            self._store_rendered = None
            entry.release()

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        entry, self._store_rendered = self._store_rendered, None
        if entry is not None and isinstance(response, Response) and response.status_code == 200:
            response.render()
            entry.store(club=self.club, value=(response.content, response["Content-Type"]))
        return response

    @property
    def is_schema_view(self) -> bool:
        """drf-spectacular builds views without a request to inspect their querysets."""
        return bool(getattr(self, "swagger_fake_view", False))

    def paginated(
        self, serializer: type[BaseSerializer[Any]], *, context: dict[str, Any] | None = None
    ) -> Response:
        """The view's rows, filtered, ordered and cut into the requested page, through
        ``serializer``: the answer of every list view."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(serializer(page, many=True, context=context or {}).data)


class StrictBooleanFilter(django_filters.TypedChoiceFilter):  # type: ignore[misc]
    """``true`` or ``false``; anything else is a 400 (django-filter's BooleanFilter would
    silently ignore a typo and answer unfiltered rows)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("choices", [("true", "true"), ("false", "false")])
        kwargs.setdefault("coerce", lambda value: value == "true")
        super().__init__(*args, **kwargs)


class ListKindField(serializers.ChoiceField):
    """A list kind: the kinds registered when the serializer is built (DRF builds a
    serializer's fields anew for each instance), a kind added after import included."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list_kind_choices(), **kwargs)


class PresetField(serializers.ChoiceField):
    """A list preset's name: each registered kind's FIDE preset and the systems'."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(list_presets()), **kwargs)
