"""Every API answer and public page of one club, with ids replaced by what they stand for,
so that a club and its restored copy (tournaments/services/club_archive.py) compare equal.

Ids become ``<model>#<rank>``: the object's position among the club's rows of that model
by id. An import keeps the order of ids (new ids are taken in the old order), so the same
object has the same rank in both clubs, and a reference to the wrong object shows. Users
become their usernames. Also run in a fresh database by a subprocess (``main``, after
``django.setup()``), which prints the answers as JSON.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from django.contrib.auth import get_user_model
from django.db import models
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from players.models import Club, Invitation, Player, PlayerClaim, RatingList, RatingPeriod
from tournaments.api.audit import MODELS as AUDIT_MODELS
from tournaments.models import Game, Tournament

# The key an id is found under -> the model it names ("id": the endpoint's own model).
KEY_MODELS: dict[str, str] = {
    "player": "player",
    "white": "player",
    "black": "player",
    "kept": "player",
    "duplicate": "player",
    "opponent": "player",
    "tournament": "tournament",
    "game": "game",
    "rating_list": "list",
    "list": "list",
    "period": "period",
    "club": "club",
    "invitation": "invitation",
}
USER_KEYS = {"user", "by", "history_user", "closed_by", "created_by", "accepted_by"}
PATH_MODELS = {"players": "player", "tournaments": "tournament", "games": "game", "vs": "player"}
# GET routes under a club this walk covers; a new one fails the test until it is added.
COVERED = {
    "api/v1/clubs/<slug:club>/",
    "api/v1/clubs/<slug:club>/members/",
    "api/v1/clubs/<slug:club>/members/<str:username>/",
    "api/v1/clubs/<slug:club>/invitations/",
    "api/v1/clubs/<slug:club>/invitations/<int:id>/",
    "api/v1/clubs/<slug:club>/claims/",
    "api/v1/clubs/<slug:club>/claims/<int:id>/",
    "api/v1/clubs/<slug:club>/lists/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/",
    "api/v1/clubs/<slug:club>/players/",
    "api/v1/clubs/<slug:club>/players/duplicates/",
    "api/v1/clubs/<slug:club>/players/<int:id>/",
    "api/v1/clubs/<slug:club>/players/<int:id>/history/",
    "api/v1/clubs/<slug:club>/players/<int:id>/k-history/",
    "api/v1/clubs/<slug:club>/tournaments/",
    "api/v1/clubs/<slug:club>/tournaments/<int:id>/",
    "api/v1/clubs/<slug:club>/games/",
    "api/v1/clubs/<slug:club>/games/<int:id>/",
    "api/v1/clubs/<slug:club>/audit/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/periods/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/periods/<str:period>/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/periods/<str:period>/preview/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/ratings/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/ratings.csv",
    "api/v1/clubs/<slug:club>/lists/<str:list>/periods/<str:period>/changes/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/live/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/live.csv",
    "api/v1/clubs/<slug:club>/players/<int:id>/live/",
    "api/v1/clubs/<slug:club>/players/<int:id>/forecast/",
    "api/v1/clubs/<slug:club>/lists/<str:list>/statistics/",
    "api/v1/clubs/<slug:club>/tournaments/<int:id>/entries/",
    "api/v1/clubs/<slug:club>/tournaments/<int:id>/forecast/",
    "clubs/<slug:club>/",
    "clubs/<slug:club>/lists/<slug:kind>/live/",
    "clubs/<slug:club>/lists/<slug:kind>/",
    "clubs/<slug:club>/lists/<slug:kind>/statistics/",
    "clubs/<slug:club>/players/<int:player_id>/",
    "clubs/<slug:club>/players/<int:player_id>/next-game/",
    "clubs/<slug:club>/players/<int:player_id>/vs/<int:opponent_id>/",
    "clubs/<slug:club>/tournaments/",
    "clubs/<slug:club>/tournaments/<int:tournament_id>/",
    "clubs/<slug:club>/tournaments/<int:tournament_id>/forecast/",
    "clubs/<slug:club>/tournaments/<int:tournament_id>/forecast.csv",
    "clubs/<slug:club>/embed/",
    "embed/clubs/<slug:club>/lists/<slug:kind>/",
    "embed/clubs/<slug:club>/lists/<slug:kind>/live/",
    "embed/clubs/<slug:club>/players/<int:player_id>/",
    "clubs/<slug:club>/lists/<slug:kind>/periods/<str:month>/",
    "clubs/<slug:club>/lists/<str:list>/export.csv",
    "clubs/<slug:club>/lists/<str:list>/export.txt",
    "clubs/<slug:club>/players/<int:id>/history.csv",
    "clubs/<slug:club>/tournaments/<int:id>/export.trf",
    "clubs/<slug:club>/tournaments/<int:id>/export.pgn",
}
# GET routes under a club whose rows an archive does not carry, on purpose: webhooks
# (their secrets stay on the instance; a copy must not send to the original's receivers).
NOT_CARRIED = {
    "api/v1/clubs/<slug:club>/webhooks/",
    "api/v1/clubs/<slug:club>/webhooks/<int:id>/",
    "api/v1/clubs/<slug:club>/webhooks/<int:id>/deliveries/",
    "api/v1/clubs/<slug:club>/webhooks/<int:webhook>/deliveries/<uuid:id>/",
    # Not an answer at all: a member's "this is me" (POST only; GET answers 405).
    "accounts/claims/clubs/<slug:club>/players/<int:player_id>/",
}


def club_get_routes() -> set[str]:
    """Every route under a club whose view answers GET."""

    def walk(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            else:
                yield prefix + str(entry.pattern), entry

    found = set()
    for route, pattern in walk(get_resolver().url_patterns):
        view = getattr(pattern.callback, "view_class", None)
        if "clubs/<slug:club>/" in route and (view is None or hasattr(view, "get")):
            found.add(route)
    return found


class Ranks:
    def __init__(self, club: Club) -> None:
        def ranks(query: models.QuerySet[Any]) -> dict[int, int]:
            return {pk: i for i, pk in enumerate(query.order_by("pk").values_list("pk", flat=True))}

        self.slug = club.slug
        self.by_model = {
            "club": {club.pk: 0},
            "player": ranks(Player.objects.filter(club=club)),
            "tournament": ranks(Tournament.objects.filter(club=club)),
            "game": ranks(Game.objects.filter(club=club)),
            "list": ranks(RatingList.objects.filter(club=club)),
            "period": ranks(RatingPeriod.objects.filter(rating_list__club=club)),
            "invitation": ranks(Invitation.objects.filter(club=club)),
            "claim": ranks(PlayerClaim.objects.filter(club=club)),
        }
        self.users = dict(get_user_model()._default_manager.values_list("pk", "username"))

    def token(self, model: str, value: int) -> str:
        rank = self.by_model.get(model, {}).get(value)
        return f"<{model} {rank if rank is not None else '?'}>"

    def clean(self, value: Any, model: str, key: str = "") -> Any:
        if isinstance(value, dict):
            if value and set(value) <= {"before", "after"}:
                # An audit change: both sides are values of the field ``key``.
                return {k: self.clean(v, model, key) for k, v in value.items()}
            # An audit entry's values are the audited row's: their "id" is that model's.
            inner = KEY_MODELS.get(str(value.get("model", "")), model)
            if "object" in value and "model" in value and "id" in value:
                # An audit entry's own id is its history row's: compared by position.
                value = {**value, "id": "<entry>"}
            return {
                k: self.clean(v, inner if k in ("values", "changes") else model, k)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.clean(v, model, key) for v in value]
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            if key.endswith("_id"):
                key = key[: -len("_id")]
            if key in USER_KEYS:
                return self.users.get(value, "?")
            if key in ("id", "object"):
                return self.token(model, value)
            if key in KEY_MODELS:
                return self.token(KEY_MODELS[key], value)
            return value
        if isinstance(value, str):
            return self.text(value)
        return value

    def text(self, value: str) -> str:
        if value == self.slug:
            return "<club>"
        # The oEmbed discovery link names the page's own address, percent-encoded.
        value = re.sub(r'(/api/v1/oembed/\?url=)([^&"]*)', lambda m: m[1] + unquote(m[2]), value)
        value = value.replace(f"/clubs/{self.slug}/", "/clubs/<club>/")
        # Each page's own form token, not the club's.
        value = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", value)
        value = re.sub(r"https?://[^/\"']+", "", value)
        value = re.sub(
            r"\b(players|tournaments|games|vs)/(\d+)",
            lambda m: f"{m[1]}/{self.token(PATH_MODELS[m[1]], int(m[2]))}",
            value,
        )
        value = re.sub(r"#(\d+)\b", lambda m: self.token("player", int(m[1])), value)
        # The next game's choice of opponent: its options' values are player ids.
        value = re.sub(
            r'<select name="opponent".*?</select>',
            lambda block: re.sub(
                r'value="(\d+)"',
                lambda m: f'value="{self.token("player", int(m[1]))}"',
                block[0],
            ),
            value,
            flags=re.DOTALL,
        )
        return value

    def table(self, value: str) -> str:
        """A CSV download: its columns of ids through their tokens."""
        rows = list(csv.reader(io.StringIO(value)))
        if not rows:
            return value
        columns = {
            i: KEY_MODELS.get(name, "player" if name == "id" else "")
            for i, name in enumerate(rows[0])
            if name in KEY_MODELS or name == "id"
        }
        for row in rows[1:]:
            for i, model in columns.items():
                if i < len(row) and row[i].isdigit() and model:
                    row[i] = self.token(model, int(row[i]))
        return self.text("\n".join(",".join(row) for row in rows))

    def fide_txt(self, value: str) -> str:
        """FIDE's TXT list: FIDE's ``ID Number`` first (a FIDE ID, the same in the copy)
        and our own id in the last column (``Club-ID``), which the copy renumbers."""
        return self.text(
            re.sub(r"(?m)(\d+)[ \t]*$", lambda m: self.token("player", int(m[1])), value)
        )

    def page(self, value: str) -> str:
        return self.text(value)


def differences(one: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """The answers that differ, each with the first difference shown."""
    found = []
    for key in sorted(one.keys() | other.keys()):
        if one.get(key) != other.get(key):
            a, b = json.dumps(one.get(key)), json.dumps(other.get(key))
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), 0)
            found.append(
                f"{key}: ...{a[max(0, at - 80) : at + 80]} != ...{b[max(0, at - 80) : at + 80]}"
            )
    return found


def _get(client: APIClient, url: str) -> Any:
    response = client.get(url, HTTP_HOST="testserver")
    kind = response.get("Content-Type", "")
    if "json" in kind:
        return [response.status_code, response.json()]
    return [response.status_code, response.getvalue().decode("utf-8", "replace")]


def _pages(client: APIClient, url: str) -> list[Any]:
    rows: list[Any] = []
    joiner = "&" if "?" in url else "?"
    page = 1
    while True:
        status, body = _get(client, f"{url}{joiner}page_size=500&page={page}")
        assert status == 200, (url, status, body)
        rows.extend(body["results"])
        if not body["next"]:
            return rows
        page += 1


def club_answers(club: Club, *, user: Any) -> dict[str, Any]:
    """Every answer under ``club`` as ``user`` sees it (an owner: everything)."""
    client = APIClient()
    client.force_login(user)
    ranks = Ranks(club)
    api = f"/api/v1/clubs/{club.slug}/"
    site = f"/clubs/{club.slug}/"
    out: dict[str, Any] = {}

    def record(name: str, url: str, *, paged: bool = False) -> None:
        if paged:
            out[name] = ranks.clean(_pages(client, url), KEY_MODELS.get(name.split("/")[0], "club"))
            return
        status, body = _get(client, url)
        if isinstance(body, str):
            path = url.split("?")[0]
            clean = (
                ranks.table
                if path.endswith(".csv")
                else ranks.fide_txt
                if path.endswith(".txt")
                else ranks.page
            )
            out[name] = [status, clean(body)]
        else:
            out[name] = ranks.clean([status, body], KEY_MODELS.get(name.split("/")[0], "club"))

    record("club", api)
    record("club-page", site)
    record("club-page/embed", site + "embed/")
    record("tournament/list", api + "tournaments/", paged=True)
    record("tournament/pages", site + "tournaments/")
    record("member/list", api + "members/", paged=True)
    for username in sorted(club.memberships.values_list("user__username", flat=True)):
        record(f"member/{username}", api + f"members/{username}/")
    record("invitation/list", api + "invitations/", paged=True)
    for pk in club.invitations.values_list("pk", flat=True):
        record(f"invitation/{ranks.token('invitation', pk)}", api + f"invitations/{pk}/")
    record("claim/list", api + "claims/", paged=True)
    for pk in club.player_claims.values_list("pk", flat=True):
        record(f"claim/{ranks.token('claim', pk)}", api + f"claims/{pk}/")
    record("list/all", api + "lists/", paged=True)
    for rating_list in club.rating_lists.all():
        slug = rating_list.slug
        record(f"list/{slug}", api + f"lists/{slug}/")
        record(f"list/{slug}/page", site + f"lists/{slug}/")
        record(f"list/{slug}/periods", api + f"lists/{slug}/periods/", paged=True)
        record(f"list/{slug}/ratings", api + f"lists/{slug}/ratings/", paged=True)
        record(f"list/{slug}/ratings.csv", api + f"lists/{slug}/ratings.csv")
        record(f"list/{slug}/export.csv", site + f"lists/{slug}/export.csv")
        record(f"list/{slug}/export.txt", site + f"lists/{slug}/export.txt")
        record(f"list/{slug}/live", api + f"lists/{slug}/live/", paged=True)
        record(f"list/{slug}/live.csv", api + f"lists/{slug}/live.csv")
        record(f"list/{slug}/live/page", site + f"lists/{slug}/live/")
        record(f"list/{slug}/statistics", api + f"lists/{slug}/statistics/")
        record(f"list/{slug}/statistics/page", site + f"lists/{slug}/statistics/")
        record(f"list/{slug}/widget", f"/embed/clubs/{club.slug}/lists/{slug}/?n=50")
        record(f"list/{slug}/widget/live", f"/embed/clubs/{club.slug}/lists/{slug}/live/?n=50")
        for period in rating_list.periods.all():
            label = period.label
            record(f"period/{slug}/{label}", api + f"lists/{slug}/periods/{label}/")
            record(f"period/{slug}/{label}/preview", api + f"lists/{slug}/periods/{label}/preview/")
            record(f"period/{slug}/{label}/page", site + f"lists/{slug}/periods/{label}/")
            record(
                f"period/{slug}/{label}/changes",
                api + f"lists/{slug}/periods/{label}/changes/",
                paged=True,
            )
    record("player/list", api + "players/", paged=True)
    record("player/duplicates", api + "players/duplicates/")
    players = list(club.players.order_by("pk").values_list("pk", flat=True))
    for pk in players:
        name = ranks.token("player", pk)
        record(f"player/{name}", api + f"players/{pk}/")
        record(f"player/{name}/history", api + f"players/{pk}/history/", paged=True)
        record(f"player/{name}/k-history", api + f"players/{pk}/k-history/", paged=True)
    # The pages and downloads of every fourth player (each page reads many tables).
    for pk in players[::4]:
        name = ranks.token("player", pk)
        record(f"player/{name}/page", site + f"players/{pk}/")
        record(f"player/{name}/history.csv", site + f"players/{pk}/history.csv")
        record(f"player/{name}/widget", f"/embed/clubs/{club.slug}/players/{pk}/")
        opponent = players[(players.index(pk) + 1) % len(players)]
        for slug in club.rating_lists.order_by("slug").values_list("slug", flat=True):
            record(f"player/{name}/live/{slug}", api + f"players/{pk}/live/?list={slug}")
            # A game played today: the same date in both clubs, so the same forecast.
            query = f"?list={slug}&opponent={opponent}"
            record(f"player/{name}/forecast/{slug}", api + f"players/{pk}/forecast/{query}")
            record(f"player/{name}/next-game/{slug}", site + f"players/{pk}/next-game/{query}")
    for white, black in zip(players[::9], players[1::9], strict=False):
        name = ranks.token("player", white)
        record(f"player/{name}/vs", site + f"players/{white}/vs/{black}/")
    for pk in club.tournaments.values_list("pk", flat=True):
        name = ranks.token("tournament", pk)
        record(f"tournament/{name}", api + f"tournaments/{pk}/")
        record(f"tournament/{name}/page", site + f"tournaments/{pk}/")
        record(f"tournament/{name}/trf", site + f"tournaments/{pk}/export.trf")
        record(f"tournament/{name}/pgn", site + f"tournaments/{pk}/export.pgn")
        record(f"tournament/{name}/entries", api + f"tournaments/{pk}/entries/")
        record(f"tournament/{name}/forecast", api + f"tournaments/{pk}/forecast/")
        record(f"tournament/{name}/forecast/page", site + f"tournaments/{pk}/forecast/")
        record(f"tournament/{name}/forecast.csv", site + f"tournaments/{pk}/forecast.csv")
    record("game/list", api + "games/", paged=True)
    for pk in Game.objects.filter(club=club).order_by("pk").values_list("pk", flat=True)[::25]:
        record(f"game/{ranks.token('game', pk)}", api + f"games/{pk}/")
    for model in AUDIT_MODELS:
        value = _pages(client, api + f"audit/?model={model}")
        out[f"audit/{model}"] = ranks.clean(value, KEY_MODELS.get(model, model))
    return out


def main() -> None:
    """Print the answers of the club named on the command line (run with Django set up)."""
    slug = sys.argv[1]
    club = Club.objects.get(slug=slug)
    owner = club.memberships.filter(role="owner").order_by("pk").first()
    assert owner is not None
    json.dump(club_answers(club, user=owner.user), sys.stdout)
