"""GET /api/v1/oembed/: the oEmbed endpoint (https://oembed.com) of the player and list
pages, so that a blog or a forum given such a link shows the matching widget
(ratings_site/pages/embed.py). Pages name it in a discovery ``<link>``.

Only a public club's pages have an embed; anything else (another site's URL, a page that
is not a player's or a list's, a private or unknown club) answers 404, as oEmbed asks.
Only JSON is offered: ``format=xml`` answers 501, as the specification says.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.http import Http404
from django.urls import Resolver404, ResolverMatch, resolve, reverse
from django.utils.html import format_html
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.errors import NotFoundError
from players.http.schema import ClubAutoSchema
from players.models import Club
from players.names import display_name
from players.selectors import club_get_visible, club_lists, club_players
from players.selectors.names import club_name_order
from ratings_site.pages.embed import TOP_DEFAULT, WIDGET_MAX_AGE

# The frame's size when the consumer sets no maximum: a card is short, a list of
# TOP_DEFAULT rows about 36 px a row under its heading.
SIZES = {"player": (420, 220), "list": (480, 110 + 36 * TOP_DEFAULT)}
PROVIDER = "Club ratings"


class NotImplementedFormat(APIException):
    status_code = status.HTTP_501_NOT_IMPLEMENTED
    default_code = "not_implemented"


class JsonWhateverTheFormat(DefaultContentNegotiation):
    """oEmbed's ``format`` parameter names the answer's format, and DRF reads ``format`` as
    its own renderer switch (a 404 for ``xml``): JSON is chosen here, and the view answers
    ``format`` as oEmbed says."""

    def select_renderer(
        self, request: Any, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        return renderers[0], renderers[0].media_type


class OEmbedQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    # Not URLField: its validator refuses hosts without a dot (an intranet's "ratings",
    # the test client's "testserver"); the host is compared with this site's below.
    url = serializers.CharField(
        max_length=2000, help_text="A player's or a rating list's page on this site."
    )
    format = serializers.ChoiceField(
        choices=["json", "xml"],
        required=False,
        default="json",
        error_messages={"invalid_choice": "Use json (xml is not offered)."},
        help_text="json (the default); xml answers 501.",
    )
    maxwidth = serializers.IntegerField(min_value=1, max_value=10_000, required=False)
    maxheight = serializers.IntegerField(min_value=1, max_value=10_000, required=False)

    def validate_url(self, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise serializers.ValidationError("An http or https address of a page of this site.")
        return value


class OEmbedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    type = serializers.CharField(help_text="Always rich: an iframe.")
    version = serializers.CharField(help_text="1.0")
    title = serializers.CharField()
    author_name = serializers.CharField(help_text="The club.")
    author_url = serializers.URLField(help_text="The club's page.")
    provider_name = serializers.CharField()
    provider_url = serializers.URLField()
    cache_age = serializers.IntegerField(help_text="Seconds the answer may be kept.")
    html = serializers.CharField(help_text="The iframe, and the script that sizes it.")
    width = serializers.IntegerField()
    height = serializers.IntegerField()


def _not_ours(url: str) -> NotFoundError:
    return NotFoundError(
        f"{url[:200]} is not a player's or a rating list's page of a public club on this "
        "site: only those have an embed."
    )


def _widget_of(match: ResolverMatch, club: Club, url: str) -> tuple[str, str, str]:
    """The widget that stands for the page ``match`` resolved (a player's or a list's, of
    ``club``): its size's kind, its title and its path."""
    kwargs = match.kwargs
    if match.url_name == "player" and "player_id" in kwargs:
        player = club_players(club=club).filter(pk=kwargs["player_id"]).first()
        if player is None:
            raise _not_ours(url)
        # Named as the club's pages name people (given name first, or surname first).
        title = display_name(player.name, club_name_order(club.pk))
        src = reverse("widget-player", kwargs={"club": club.slug, "player_id": player.pk})
        return "player", title, src
    if match.url_name in ("rating-list", "rating-list-live") and "kind" in kwargs:
        rating_list = club_lists(club=club).filter(slug=kwargs["kind"]).first()
        if rating_list is None:
            raise _not_ours(url)
        name = "widget-list" if match.url_name == "rating-list" else "widget-live"
        src = reverse(name, kwargs={"club": club.slug, "kind": rating_list.slug})
        return "list", f"{club.name}: {rating_list.label}", src
    raise _not_ours(url)


class OEmbedView(APIView):
    """oEmbed for the player and list pages of public clubs."""

    schema = ClubAutoSchema()
    permission_classes = [AllowAny]
    # Anonymous by nature (a consumer's server asks): credentials are not read.
    authentication_classes: list[Any] = []
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonWhateverTheFormat
    error_statuses = (400, 404, 501)

    @extend_schema(
        tags=["embedding"],
        operation_id="oembed",
        parameters=[OEmbedQuerySerializer],
        responses={200: OEmbedSerializer},
        description="The oEmbed answer (https://oembed.com, type rich) for a player's or a "
        "rating list's page of a public club: the widget's iframe to show in its place."
        "\n\nAnyone, anonymous too; a private club's pages have no embed (404).",
    )
    def get(self, request: Request) -> Response:
        query = OEmbedQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        if data["format"] != "json":
            raise NotImplementedFormat("Only format=json is offered.")
        url: str = data["url"]
        parts = urlsplit(url)
        if parts.netloc.lower() != request.get_host().lower() or parts.path.startswith("/api/"):
            raise _not_ours(url)
        try:
            match = resolve(parts.path)
        except (Resolver404, Http404):
            raise _not_ours(url) from None
        slug = match.kwargs.get("club")
        if not isinstance(slug, str):
            raise _not_ours(url)
        try:
            club = club_get_visible(user=None, slug=slug)
        except NotFoundError:
            raise _not_ours(url) from None
        kind, title, src = _widget_of(match, club, url)
        width, height = SIZES[kind]
        width = min(width, data.get("maxwidth", width))
        height = min(height, data.get("maxheight", height))
        site = request.build_absolute_uri("/").rstrip("/")
        html = format_html(
            '<iframe src="{}" title="{}" width="{}" height="{}" style="border:0;max-width:100%" '
            'loading="lazy"></iframe><script src="{}" async></script>',
            site + src,
            title,
            width,
            height,
            site + "/static/embed.js",
        )
        answer = {
            "type": "rich",
            "version": "1.0",
            "title": title,
            "author_name": club.name,
            "author_url": site + reverse("club", kwargs={"club": club.slug}),
            "provider_name": PROVIDER,
            "provider_url": site + "/",
            "cache_age": WIDGET_MAX_AGE,
            "html": str(html),
            "width": width,
            "height": height,
        }
        return Response(OEmbedSerializer(answer).data)
