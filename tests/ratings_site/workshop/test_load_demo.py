"""load_demo builds the demo club through the services; --if-empty leaves a database alone."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from players.models import (
    Club,
    KFactorChange,
    Membership,
    Player,
    PlayerRating,
    RatingChange,
    RatingPeriod,
    RatingRun,
)
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def load(*args: str) -> str:
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def test_demo_builds_the_described_club() -> None:
    output = load()
    riverside = Club.objects.get(slug="riverside")
    assert riverside.name == "Riverside Chess Club"
    assert riverside.public
    assert set(riverside.rating_lists.values_list("kind", flat=True)) >= {"standard", "rapid"}
    assert 38 <= Player.objects.filter(club=riverside).count() <= 42
    juniors = Player.objects.filter(club=riverside, birth_year__gte=2008).count()
    assert juniors >= 5

    standard = riverside.rating_lists.get(kind="standard")
    periods = RatingPeriod.objects.filter(rating_list=standard)
    assert periods.filter(status="closed").count() == 12
    assert periods.filter(status="open").count() == 1
    assert Game.objects.filter(period__in=periods.filter(status="open")).exists()
    assert RatingPeriod.objects.filter(rating_list__club=riverside, status="closed").count() == 24
    assert RatingRun.objects.filter(kind="close", rating_list=standard).count() == 12

    # The story the demo tells.
    first = RatingChange.objects.get(event="first_rating", rating_list=standard, current=True)
    assert first.player.name == "Tariq Hassan"
    assert first.rating_after is not None
    assert first.rating_after >= 1400
    crosser = PlayerRating.objects.get(player__name="Viktor Aronsen", rating_list=standard)
    assert crosser.reached_2400
    assert (crosser.k_factor, crosser.k_reason) == (10, "reached_2400")
    assert KFactorChange.objects.filter(
        player=crosser.player, reason="reached_2400", new_k=10
    ).exists()
    fell = RatingChange.objects.filter(event="below_floor", rating_list=standard)
    assert fell.filter(player__name="Dennis Hale").exists()
    assert PlayerRating.objects.get(player__name="Dennis Hale", rating_list=standard).rating is None
    assert PlayerRating.objects.filter(
        player__club=riverside, rating_list=standard, k_reason="junior"
    ).exists()

    # The second club shows scoping: private, with a few players, none of Riverside's staff.
    northgate = Club.objects.get(slug="northgate")
    assert not northgate.public
    assert 3 <= Player.objects.filter(club=northgate).count() <= 8
    users = get_user_model()._default_manager
    assert users.get(username="admin").is_superuser
    for username, role in (("officer", "officer"), ("arbiter", "arbiter")):
        user = users.get(username=username)
        assert user.is_staff
        assert not user.is_superuser
        assert list(Membership.objects.filter(user=user).values_list("club__slug", "role")) == [
            ("riverside", role)
        ]

    # The passwords are printed once and work.
    match = re.search(r"Admin login: admin / (\S+) at http://127\.0\.0\.1:8000/admin/", output)
    assert match is not None
    assert users.get(username="admin").check_password(match.group(1))
    officer = re.search(r"\(rating officer of Riverside Chess Club\): officer / (\S+)", output)
    assert officer is not None
    assert users.get(username="officer").check_password(officer.group(1))
    assert "arbiter / " in output


def test_if_empty_loads_once_and_then_does_nothing() -> None:
    assert "Admin login" in load("--if-empty")
    counts = (Club.objects.count(), Player.objects.count(), Game.objects.count())
    again = load("--if-empty")
    assert "nothing loaded" in again
    assert "Admin login" not in again
    assert (Club.objects.count(), Player.objects.count(), Game.objects.count()) == counts


def test_if_empty_does_not_touch_a_database_with_a_club() -> None:
    Club.objects.create(slug="existing", name="Existing")
    assert "nothing loaded" in load("--if-empty")
    assert Club.objects.count() == 1
    assert not get_user_model()._default_manager.filter(username="admin").exists()


@pytest.mark.parametrize("day", [1, 2, 28])
def test_demo_loads_on_any_day_of_the_month(monkeypatch: pytest.MonkeyPatch, day: int) -> None:
    # On the first days of a month the open month's rounds (the 3rd and the 10th) lie after
    # tomorrow, which the services refuse; the demo dates them today instead. The whole
    # service layer reads today from timezone.localdate, so patching it moves the calendar.
    from django.utils import timezone

    real_today = timezone.localdate()
    today = real_today.replace(day=day)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: today)

    load()

    open_games = Game.objects.filter(period__status="open")
    assert open_games.exists()
    assert max(open_games.values_list("date", flat=True)) <= today
    assert min(open_games.values_list("date", flat=True)).month == today.month


def test_every_demo_players_k_history_ends_with_the_k_in_force() -> None:
    """Issue 24's bar: read in the order the API, the admin and the player page give it
    (oldest first), the last row of each player's K history is the K they have now."""
    load()
    ratings = PlayerRating.objects.filter(k_factor__isnull=False).select_related("player")
    assert ratings.count() > 40
    for rating in ratings:
        last = (
            KFactorChange.objects.filter(
                player=rating.player, rating_list_id=rating.rating_list_id, current=True
            )
            .order_by("effective_month", "id")
            .last()
        )
        assert last is not None, rating.player.name
        assert (last.new_k, last.new_reason) == (rating.k_factor, rating.k_reason), (
            rating.player.name,
            rating.rating_list.kind,
        )
