"""Club, member, player and K-override services: roles, validation, history records."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from players.errors import ConflictError, NotFoundError, PermissionDeniedError, ValidationFailed
from players.models import KFactorChange, Membership, PlayerRating, RatingList, Role
from players.selectors import clubs_visible_to, membership_role, require_role
from players.services import (
    club_create,
    k_override_set,
    membership_set,
    player_create,
    player_update,
)

pytestmark = pytest.mark.django_db


def _user(name: str) -> object:
    return get_user_model().objects.create_user(name)


def test_club_create_makes_owner_and_three_fide_lists() -> None:
    owner = _user("o")
    club = club_create(name="Kings", slug="kings", public=False, by=owner)
    assert membership_role(owner, club) == Role.OWNER
    lists = {rl.kind: rl for rl in RatingList.objects.filter(club=club)}
    assert set(lists) == {"standard", "rapid", "blitz"}
    assert lists["standard"].floor == 1400
    assert lists["rapid"].rules().list_kind == "rapid"
    with pytest.raises(ValidationFailed) as caught:
        club_create(name="Other", slug="kings", by=owner)
    assert "slug" in caught.value.fields


def test_visibility_and_roles() -> None:
    owner, viewer, stranger = _user("o"), _user("v"), _user("s")
    private = club_create(name="Private", slug="p", public=False, by=owner)
    public = club_create(name="Public", slug="q", public=True, by=owner)
    membership_set(club=private, user=viewer, role=Role.VIEWER, by=owner)
    assert set(clubs_visible_to(viewer)) == {private, public}
    assert set(clubs_visible_to(stranger)) == {public}
    from django.contrib.auth.models import AnonymousUser

    assert set(clubs_visible_to(AnonymousUser())) == {public}
    with pytest.raises(NotFoundError):
        require_role(stranger, private, Role.VIEWER)
    with pytest.raises(PermissionDeniedError):
        require_role(viewer, private, Role.ARBITER)
    with pytest.raises(PermissionDeniedError):
        membership_set(club=private, user=stranger, role=Role.OWNER, by=viewer)
    with pytest.raises(ConflictError, match="at least one owner"):
        membership_set(club=private, user=owner, role=Role.VIEWER, by=owner)
    assert Membership.objects.filter(club=private).count() == 2


def test_player_create_records_entered_ratings_as_history_start() -> None:
    owner = _user("o")
    club = club_create(name="Kings", slug="kings", by=owner)
    player = player_create(
        club=club,
        by=owner,
        name="Ann",
        birth_year=2009,
        ratings=[{"list": "standard", "rating": 1850, "rated_games": 45, "reached_2400": False}],
    )
    standard = PlayerRating.objects.get(player=player, rating_list__kind="standard")
    assert (standard.rating, standard.entry_rating, standard.entry_rated_games) == (1850, 1850, 45)
    assert standard.k_reason in {"junior", "standard"}
    rapid = PlayerRating.objects.get(player=player, rating_list__kind="rapid")
    assert rapid.rating is None
    assert KFactorChange.objects.filter(player=player).count() == 3
    with pytest.raises(ValidationFailed) as caught:
        player_create(
            club=club, by=owner, name="Bob", ratings=[{"list": "standard", "rating": 5000}]
        )
    assert "ratings[0].rating" in caught.value.fields


def test_birth_year_follows_birth_date() -> None:
    import datetime

    owner = _user("o")
    club = club_create(name="Kings", slug="kings", by=owner)
    player = player_create(club=club, by=owner, name="Ann", birth_date=datetime.date(2001, 5, 2))
    assert player.birth_year == 2001
    player_update(player=player, by=owner, birth_year=2002)
    assert (player.birth_date, player.birth_year) == (None, 2002)
    with pytest.raises(ValidationFailed):
        player_update(
            player=player, by=owner, birth_date=datetime.date(2003, 1, 1), birth_year=2002
        )


def test_k_override_is_recorded() -> None:
    owner, arbiter = _user("o"), _user("a")
    club = club_create(name="Kings", slug="kings", by=owner)
    membership_set(club=club, user=arbiter, role=Role.ARBITER, by=owner)
    player = player_create(
        club=club,
        by=owner,
        name="Ann",
        ratings=[{"list": "standard", "rating": 2100, "rated_games": 90}],
    )
    rating = PlayerRating.objects.get(player=player, rating_list__kind="standard")
    with pytest.raises(PermissionDeniedError):
        k_override_set(player_rating=rating, k=30, note="profile", by=arbiter)
    with pytest.raises(ValidationFailed):
        k_override_set(player_rating=rating, k=0, note="profile", by=owner)
    updated = k_override_set(player_rating=rating, k=30, note="FIDE profile says 30", by=owner)
    assert (updated.k_factor, updated.k_reason, updated.k_override) == (30, "manual", 30)
    change = KFactorChange.objects.get(player=player, reason="manual")
    assert (change.old_k, change.new_k, change.note) == (20, 30, "FIDE profile says 30")
