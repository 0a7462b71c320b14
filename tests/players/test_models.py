"""Database constraints hold even when a bug bypasses the services."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from players.models import (
    Club,
    Membership,
    Player,
    PlayerRating,
    RatingList,
    RatingPeriod,
    Role,
    list_presets,
)
from players.rating import ListKind
from tournaments.models import Game


def _club() -> tuple[Club, RatingList]:
    club = Club.objects.create(slug="c", name="C")
    preset = dict(list_presets()["FIDE standard"])
    rating_list = RatingList.objects.create(club=club, preset="FIDE standard", **preset)
    return club, rating_list


def test_role_order() -> None:
    assert Role.at_least(Role.OFFICER) == [Role.OFFICER, Role.OWNER]
    assert Role.at_least(Role.VIEWER) == [Role.VIEWER, Role.ARBITER, Role.OFFICER, Role.OWNER]
    assert Role.includes(Role.OWNER, Role.ARBITER)
    assert not Role.includes(Role.ARBITER, Role.OFFICER)


@pytest.mark.django_db
def test_one_list_per_kind_per_club() -> None:
    club, _ = _club()
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingList.objects.create(club=club, **list_presets()["FIDE standard"])


@pytest.mark.django_db
@pytest.mark.parametrize("rating", [-1, 4001])
def test_rating_range(rating: int) -> None:
    club, rating_list = _club()
    player = Player.objects.create(club=club, name="A")
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerRating.objects.create(player=player, rating_list=rating_list, rating=rating)


@pytest.mark.django_db
@pytest.mark.parametrize(("policy", "fixed_k"), [("fixed", None), ("fixed", 0), ("fide", 101)])
def test_fixed_k_required_and_in_range(policy: str, fixed_k: int | None) -> None:
    club = Club.objects.create(slug="d", name="D")
    fields = {**list_presets()["FIDE rapid"], "k_policy": policy, "fixed_k": fixed_k}
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingList.objects.create(club=club, **fields)


@pytest.mark.django_db
def test_fide_id_unique_in_club_only_when_present() -> None:
    club, _ = _club()
    Player.objects.create(club=club, name="A")
    Player.objects.create(club=club, name="B")
    Player.objects.create(club=club, name="C", fide_id=5)
    other = Club.objects.create(slug="o", name="O")
    Player.objects.create(club=other, name="C", fide_id=5)
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(club=club, name="D", fide_id=5)


@pytest.mark.django_db
def test_game_white_is_not_black_and_result_valid() -> None:
    club, rating_list = _club()
    a = Player.objects.create(club=club, name="A")
    b = Player.objects.create(club=club, name="B")
    period = RatingPeriod.objects.create(rating_list=rating_list, month=datetime.date(2026, 1, 1))
    base = {"club": club, "rating_list": rating_list, "period": period, "date": period.month}
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(**base, white=a, black=a, result="1-0")
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(**base, white=a, black=b, result="2-0")
    Game.objects.create(**base, white=a, black=b, result="+-")
    assert str(period) == "C standard 2026-01"


@pytest.mark.django_db
def test_membership_unique() -> None:
    club, _ = _club()
    user = get_user_model().objects.create_user("u")
    Membership.objects.create(user=user, club=club, role=Role.OWNER)
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(user=user, club=club, role=Role.VIEWER)
    assert RatingList.objects.get(club=club).list_kind is ListKind.STANDARD
