"""The officer's month, guarded: a month that has not ended closes only when the caller says
it is an early close (API body, admin tick box, command flag, job parameter); the period's
admin page has the actions' buttons; the open periods come first; the officer's home says
which month is due.

"Today" is the real date: the month of today is never over and the month before always is,
so the tests need no clock."""

from __future__ import annotations

import datetime
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from players.errors import MonthNotOverError
from players.models import Job, RatingChange, RatingPeriod, Role, add_months, month_label
from players.services import membership_set
from tests.api.conftest import assert_error_shape, client_for
from tests.players.admin_world import make_user
from tests.tournaments.helpers import make_club, make_player, play
from tournaments.services import period_close

pytestmark = pytest.mark.django_db


def _this_month() -> datetime.date:
    return timezone.localdate().replace(day=1)


def _last_day(month: datetime.date) -> str:
    return (add_months(month, 1) - datetime.timedelta(days=1)).isoformat()


class Month:
    """A club with an officer, a viewer and games in last month and this month."""

    def __init__(self) -> None:
        self.owner = make_user("owner", superuser=True)
        self.club = make_club(self.owner, slug="month")
        self.officer = make_user("officer")
        self.viewer = make_user("viewer")
        membership_set(club=self.club, user=self.officer, role=Role.OFFICER, by=self.owner)
        membership_set(club=self.club, user=self.viewer, role=Role.VIEWER, by=self.owner)
        a = make_player(self.club, self.owner, "Ada", 1800)
        b = make_player(self.club, self.owner, "Bea", 1700)
        this = _this_month()
        last = add_months(this, -1)
        play(self.club, self.owner, [(a, b, "1-0"), (b, a, "1/2-1/2")], date=last.replace(day=5))
        play(self.club, self.owner, [(a, b, "0-1")], date=timezone.localdate())
        self.last = RatingPeriod.objects.get(rating_list__club=self.club, month=last)
        self.current = RatingPeriod.objects.get(rating_list__club=self.club, month=this)


@pytest.fixture
def month() -> Month:
    return Month()


def _status(period: RatingPeriod) -> str:
    period.refresh_from_db()
    return period.status


# -- the service --------------------------------------------------------------------------


def test_the_service_refuses_a_running_month_and_closes_it_early_when_told(month: Month) -> None:
    period_close(period=month.last, by=month.officer)
    with pytest.raises(MonthNotOverError) as refused:
        period_close(period=month.current, by=month.officer)
    assert refused.value.code == "month_not_over"
    assert _last_day(month.current.month) in refused.value.message
    assert _status(month.current) == "open"
    assert not RatingChange.objects.filter(period=month.current).exists()

    period_close(period=month.current, by=month.officer, early=True)
    assert _status(month.current) == "closed"


# -- the API -------------------------------------------------------------------------------


def _close_url(period: RatingPeriod) -> str:
    return f"/api/v1/clubs/month/lists/standard/periods/{period.label}/close/"


def test_the_api_answers_409_month_not_over_naming_the_last_day(month: Month) -> None:
    api = client_for(month.officer)
    assert api.post(_close_url(month.last), {}, format="json").status_code == 200
    answer = api.post(_close_url(month.current), {}, format="json")
    assert answer.status_code == 409
    body = answer.json()
    assert_error_shape(body)
    assert body["error"]["code"] == "month_not_over"
    assert _last_day(month.current.month) in body["error"]["message"]
    assert "early" in body["error"]["fields"]
    assert _status(month.current) == "open"
    assert not Job.objects.filter(kind="close", params__period=month.current.pk).exists()

    explicit = api.post(_close_url(month.current), {"early": False}, format="json")
    assert explicit.status_code == 409

    early = api.post(_close_url(month.current), {"early": True}, format="json")
    assert early.status_code == 200, early.content[:300]
    assert early.json()["status"] == "closed"
    assert _status(month.current) == "closed"


def test_the_api_names_a_bad_early_value(month: Month) -> None:
    answer = client_for(month.officer).post(
        _close_url(month.last), {"early": "perhaps"}, format="json"
    )
    assert answer.status_code == 400
    assert "early" in answer.json()["error"]["fields"]
    assert _status(month.last) == "open"


def test_an_ended_month_closes_without_saying_early(month: Month) -> None:
    answer = client_for(month.officer).post(_close_url(month.last))
    assert answer.status_code == 200, answer.content[:300]
    assert _status(month.last) == "closed"


# -- the admin -----------------------------------------------------------------------------


def _admin(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


CHANGELIST = "admin:players_ratingperiod_changelist"


def _act(client: Client, action: str, period: RatingPeriod, **extra: Any) -> Any:
    return client.post(
        reverse(CHANGELIST),
        {"action": action, "_selected_action": [period.pk], **extra},
        follow=True,
    )


def test_the_admin_confirmation_says_the_month_is_not_over_and_needs_the_box(
    month: Month,
) -> None:
    client = _admin(month.officer)
    period_close(period=month.last, by=month.officer)
    last_day = _last_day(month.current.month)

    page = _act(client, "close_period", month.current)
    html = page.content.decode()
    assert f"is not over: its last day is {last_day}" in html
    assert 'name="early"' in html

    # Confirmed without the box: the same page again, with the reason; nothing queued.
    again = _act(client, "close_period", month.current, post="yes")
    html = again.content.decode()
    assert "Tick the box to close before the month is over." in html
    assert not Job.objects.filter(kind="close").exists()
    assert _status(month.current) == "open"

    done = _act(client, "close_period", month.current, post="yes", early="yes")
    job = Job.objects.get(kind="close")
    assert job.params == {"period": month.current.pk, "early": True}
    assert done.redirect_chain[-1][0] == reverse("admin:players_job_change", args=[job.pk])
    assert _status(month.current) == "closed"


def test_the_admin_confirmation_of_an_ended_month_has_no_box(month: Month) -> None:
    page = _act(_admin(month.officer), "close_period", month.last)
    html = page.content.decode()
    assert "is not over" not in html
    assert 'name="early"' not in html


def test_the_admin_preview_of_a_running_month_asks_for_the_box(month: Month) -> None:
    client = _admin(month.officer)
    period_close(period=month.last, by=month.officer)
    page = client.get(reverse("admin:players_ratingperiod_preview", args=[month.current.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Closing <strong>{month.current}</strong> would rate 1 game" in html
    assert 'name="early"' in html


def _buttons(client: Client, period: RatingPeriod) -> set[str]:
    page = client.get(reverse("admin:players_ratingperiod_change", args=[period.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="closelink">Close<' not in html
    return {
        name
        for name in ("preview_period", "close_period", "reopen_period", "replay_list")
        if f'name="action" value="{name}"' in html
    }


def test_the_period_page_has_the_buttons_the_role_and_state_allow(month: Month) -> None:
    officer = _admin(month.officer)
    assert _buttons(officer, month.last) == {"preview_period", "close_period"}
    assert _buttons(_admin(month.viewer), month.last) == set()

    # The close button goes through the list's action: its confirmation first.
    page = _act(officer, "close_period", month.last)
    assert "Yes, close and publish" in page.content.decode()
    assert _status(month.last) == "open"

    period_close(period=month.last, by=month.officer)
    assert _buttons(officer, month.last) == {"reopen_period"}
    _act(officer, "reopen_period", month.last)
    assert _status(month.last) == "needs_replay"
    assert _buttons(officer, month.last) == {"preview_period", "replay_list"}
    _act(officer, "replay_list", month.last)
    assert _status(month.last) == "closed"


def test_the_periods_list_shows_the_open_periods_first(month: Month) -> None:
    period_close(period=month.last, by=month.officer)
    page = _admin(month.officer).get(reverse(CHANGELIST))
    html = page.content.decode()
    current = html.index(f">{month_label(month.current.month)}<")
    closed = html.index(f">{month_label(month.last.month)}<")
    assert current < closed


# -- the command ---------------------------------------------------------------------------


def _command(period: RatingPeriod, *flags: str) -> str:
    out = StringIO()
    call_command(
        "close_period",
        "--club=month",
        f"--period={period.label}",
        "--user=officer",
        *flags,
        stdout=out,
        stderr=StringIO(),
        verbosity=0,
    )
    return out.getvalue()


def test_the_command_refuses_a_running_month_without_early(month: Month) -> None:
    _command(month.last)
    assert _status(month.last) == "closed"
    with pytest.raises(CommandError, match=_last_day(month.current.month)):
        _command(month.current)
    assert _status(month.current) == "open"
    with pytest.raises(CommandError, match=_last_day(month.current.month)):
        _command(month.current, "--queue")
    assert not Job.objects.filter(kind="close").exists()
    _command(month.current, "--early")
    assert _status(month.current) == "closed"


def test_a_queued_job_without_early_refuses_too(month: Month) -> None:
    from players.jobs import job_start

    period_close(period=month.last, by=month.officer)
    job = job_start(
        kind="close", club=month.club, by=month.officer, params={"period": month.current.pk}
    )
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error["code"] == "month_not_over"
    assert _status(month.current) == "open"


# -- the officer's home --------------------------------------------------------------------


def test_the_officers_home_names_the_month_due_with_its_games_and_a_preview(
    month: Month,
) -> None:
    page = _admin(month.officer).get(reverse("account-home"))
    html = page.content.decode()
    assert 'id="periods-due"' in html
    assert f"<td>{month.last.label}</td>" in html
    assert "<td>2</td>" in html
    preview = reverse("admin:players_ratingperiod_preview", args=[month.last.pk])
    assert f'href="{preview}"' in html
    # The running month is not due.
    assert f"<td>{month.current.label}</td>" not in html

    period_close(period=month.last, by=month.officer)
    html = _admin(month.officer).get(reverse("account-home")).content.decode()
    assert "No month is due to close" in html

    viewer = _admin(month.viewer).get(reverse("account-home")).content.decode()
    assert "periods-due" not in viewer
