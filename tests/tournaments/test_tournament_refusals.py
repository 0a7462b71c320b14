"""A tournament's fields are refused one at a time, in a fixed order (name, list, start and
end date, their order and bounds, rounds): the first bad field of a form is the one named,
whatever else is wrong with it."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.errors import ValidationFailed
from tests.tournaments.helpers import make_club, make_owner
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
GOOD: dict[str, Any] = {
    "name": "Open",
    "rating_list": "standard",
    "start_date": OCT,
    "end_date": OCT,
    "rounds": 5,
}


@pytest.mark.parametrize(
    ("bad", "field", "message"),
    [
        # Each case also breaks every field after the one named.
        (
            {"name": " ", "rating_list": "nope", "start_date": None, "rounds": 0},
            "name",
            "A tournament needs a name.",
        ),
        (
            {"rating_list": "nope", "start_date": None, "rounds": 0},
            "list",
            "No such list in this club.",
        ),
        (
            {"start_date": None, "end_date": None, "rounds": 0},
            "start_date",
            "A start date is required.",
        ),
        ({"end_date": "2026-10-05", "rounds": 0}, "end_date", "An end date is required."),
        (
            {"end_date": OCT - datetime.timedelta(days=1), "rounds": 0},
            "end_date",
            "The tournament cannot end before it starts.",
        ),
        ({"rounds": 0}, "rounds", "From 1 to 99."),
        ({"rounds": "5"}, "rounds", "From 1 to 99."),
    ],
)
def test_the_first_bad_field_is_the_one_named(
    bad: dict[str, Any], field: str, message: str
) -> None:
    owner = make_owner()
    club = make_club(owner)
    with pytest.raises(ValidationFailed) as refused:
        tournament_create(club=club, by=owner, **(GOOD | bad))
    assert refused.value.fields == {field: [message]}


def test_a_date_out_of_bounds_is_named_start_first() -> None:
    owner = make_owner()
    club = make_club(owner)
    far = datetime.date(1000, 1, 1)
    with pytest.raises(ValidationFailed) as refused:
        tournament_create(club=club, by=owner, **(GOOD | {"start_date": far, "rounds": 0}))
    assert list(refused.value.fields) == ["start_date"]


def test_a_good_tournament_keeps_its_cleaned_fields() -> None:
    owner = make_owner()
    club = make_club(owner)
    made = tournament_create(
        club=club, by=owner, **(GOOD | {"name": "  Open  ", "city": " Big \n City "})
    )
    assert (made.name, made.city, made.rating_list.slug) == ("Open", "Big City", "standard")
