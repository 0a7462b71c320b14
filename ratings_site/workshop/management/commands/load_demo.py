"""Demo data: a club with a year of closed rating periods, built through the services.

``make run`` calls ``load_demo --if-empty`` so a new database opens on something to look
at. Everything rating-related is written by the services (player_create, tournament_create,
games_create_bulk, period_close), exactly as club staff would produce it; only the login
accounts are created directly (there is no user service: accounts are Django's).

The results are drawn from a seeded random generator, so the same seed and the same
current month give the same club. A few players are scripted so the story the demo tells
is always there: a newcomer who earns a first rating, a player who crosses 2400 (and gets
K 10 for good), one who drops below the 1400 floor, juniors on K 40.
"""

from __future__ import annotations

import datetime
import random
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from players import services as player_services
from players.models import (
    Club,
    Player,
    RatingList,
    RatingPeriod,
    Role,
    add_months,
    month_start,
)
from players.rating import ListKind
from tournaments import services
from tournaments.models import Game, Tournament

CLUB_NAME = "Riverside Chess Club"
CLUB_SLUG = "riverside"
OTHER_CLUB_NAME = "Northgate Chess Society"
OTHER_CLUB_SLUG = "northgate"
CLOSED_MONTHS = 12
ROUND_DAYS = (3, 10, 17, 24)
RAPID_DAY = 27

# name, birth year, sex, standard rating (None: unrated), rated games so far
ROSTER: tuple[tuple[str, int, str, int | None, int], ...] = (
    ("Viktor Aronsen", 1988, "M", 2378, 240),  # crosses 2400
    ("Helena Marsh", 1979, "F", 2331, 310),
    ("Tomasz Kowal", 1985, "M", 2296, 205),
    ("Imogen Reyes", 1992, "F", 2254, 180),
    ("Samuel Okafor", 1990, "M", 2212, 150),
    ("Greta Lindqvist", 1983, "F", 2175, 260),
    ("Rafael Duarte", 1975, "M", 2140, 400),
    ("Nadia Petrova", 1996, "F", 2102, 95),
    ("Oliver Brandt", 1969, "M", 2066, 520),
    ("Chloe Whitaker", 1999, "F", 2031, 88),
    ("Marcus Hale", 1981, "M", 1998, 130),
    ("Priya Raman", 1994, "F", 1962, 72),
    ("Jonas Eriksen", 1972, "M", 1935, 300),
    ("Aisha Bello", 2001, "F", 1907, 54),
    ("Lukas Berger", 1987, "M", 1880, 140),
    ("Mei Tanaka", 1998, "F", 1852, 61),
    ("Daniel Fischer", 1966, "M", 1826, 480),
    ("Sofia Castillo", 1993, "F", 1798, 77),
    ("Patrick Doyle", 1977, "M", 1771, 210),
    ("Hannah Weiss", 1990, "F", 1745, 66),
    ("George Nkemelu", 1984, "M", 1719, 120),
    ("Elena Voss", 1970, "F", 1693, 350),
    ("Arjun Mehta", 1997, "M", 1667, 45),
    ("Beatrice Moreau", 1986, "F", 1640, 90),
    ("Connor Walsh", 1991, "M", 1612, 38),
    ("Ingrid Solberg", 1963, "F", 1588, 410),
    ("Felix Wagner", 1995, "M", 1561, 52),
    ("Rosa Jimenez", 1980, "F", 1533, 140),
    ("Dennis Hale", 1958, "M", 1424, 14),  # drops below the floor
    ("Ruth Abernathy", 1955, "F", 1506, 290),
    # Juniors: K 40 while under 18 and below 2300.
    ("Leo Novak", 2010, "M", 1942, 60),
    ("Maya Chen", 2011, "F", 1811, 44),
    ("Ethan Brooks", 2012, "M", 1702, 35),
    ("Zara Ahmed", 2009, "F", 1655, 58),
    ("Noah Kim", 2013, "M", 1560, 22),
    ("Lily Evans", 2012, "F", 1498, 18),
    ("Oscar Lund", 2010, "M", 1620, 40),
    ("Ava Rossi", 2011, "F", 1575, 31),
    ("Jakub Wozniak", 2008, "M", 1735, 70),
)
NEWCOMER = ("Tariq Hassan", 2001, "M")  # joins unrated in the third month
CROSSER = "Viktor Aronsen"
FALLER = "Dennis Hale"
# The newcomer's results in play order: the first a win (an event with no points would
# be disregarded, FIDE 8.2.1), about half the points overall.
NEWCOMER_SCORES = ("1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2")

OTHER_ROSTER: tuple[tuple[str, int, str, int | None, int], ...] = (
    ("Walter Grey", 1960, "M", 1850, 200),
    ("Anna Kowalczyk", 1989, "F", 1790, 80),
    ("Pedro Alves", 1978, "M", 1720, 150),
    ("Julia Horvath", 2002, "F", 1655, 40),
    ("Simon Price", 1993, "M", 1600, 60),
)


@dataclass
class Account:
    username: str
    password: str
    role: str


def _result(rng: random.Random, white: int, black: int) -> str:
    """A plausible result for players of these strengths (Elo expectation plus draws)."""
    expected = 1 / (1 + 10 ** ((black - white) / 400))
    draw = 0.3 * (1 - abs(expected - 0.5) * 2) + 0.05
    roll = rng.random()
    if roll < draw:
        return "1/2-1/2"
    return "1-0" if roll < draw + (1 - draw) * expected else "0-1"


def _flip(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0"}.get(result, result)


class Command(BaseCommand):
    help = "Load the demo club (a year of closed periods and an open one) through the services."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any club exists (what `make run` uses).",
        )
        parser.add_argument("--seed", type=int, default=1851, help="Random seed (default 1851).")
        parser.add_argument(
            "--site",
            default="http://127.0.0.1:8000",
            help="Where the site will answer, for the printed admin URL (`make run` passes "
            "its HOST).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and Club.objects.exists():
            self.stdout.write("Demo data: the database has clubs already; nothing loaded.")
            return
        started = timezone.now()
        demo = DemoBuilder(seed=options["seed"], today=timezone.localdate())
        accounts = demo.build()
        seconds = (timezone.now() - started).total_seconds()
        self.stdout.write(
            self.style.SUCCESS(f"Demo data loaded in {seconds:.1f} s: {demo.summary()}.")
        )
        admin = accounts[0]
        # Printed once: the passwords are random and stored only as hashes.
        self.stdout.write(
            f"Admin login: {admin.username} / {admin.password} at "
            f"{options['site'].rstrip('/')}/admin/"
        )
        for account in accounts[1:]:
            self.stdout.write(
                f"Club staff login ({account.role}): {account.username} / {account.password}"
            )


class DemoBuilder:
    """Builds the demo club month by month: enter games, close the period, next month."""

    def __init__(self, *, seed: int, today: datetime.date) -> None:
        self.rng = random.Random(seed)
        self.today = today
        self.open_month = month_start(today)
        self.first_month = add_months(self.open_month, -CLOSED_MONTHS)
        # Strength used to draw results: the entered rating, fixed for the whole year, so
        # the draw does not depend on what the close computed.
        self.strength: dict[int, int] = {}
        self.players: dict[str, Player] = {}
        self.newcomer_games = 0
        self.counts: dict[str, int] = {"games": 0, "periods": 0}

    # -- accounts and clubs ---------------------------------------------------------------

    def _user(self, username: str, *, superuser: bool = False) -> tuple[AbstractUser, str]:
        password = secrets.token_urlsafe(12)
        manager: Any = get_user_model()._default_manager
        if superuser:
            user = manager.create_superuser(
                username=username, email=f"{username}@example.org", password=password
            )
        else:
            user = manager.create_user(
                username=username,
                email=f"{username}@example.org",
                password=password,
                is_staff=True,
            )
        return user, password

    def build(self) -> list[Account]:
        admin, admin_password = self._user("admin", superuser=True)
        officer, officer_password = self._user("officer")
        arbiter, arbiter_password = self._user("arbiter")
        self.admin = admin

        club = player_services.club_create(name=CLUB_NAME, slug=CLUB_SLUG, public=True, by=admin)
        self.club = club
        player_services.membership_set(club=club, user=officer, role=Role.OFFICER, by=admin)
        player_services.membership_set(club=club, user=arbiter, role=Role.ARBITER, by=admin)
        lists = {rl.kind: rl for rl in RatingList.objects.filter(club=club)}
        self.standard = lists[ListKind.STANDARD.value]
        self.rapid = lists[ListKind.RAPID.value]

        for name, year, sex, rating, games in ROSTER:
            self._player(club, name, year, sex, rating, games)

        for index in range(CLOSED_MONTHS + 1):
            month = add_months(self.first_month, index)
            if index == 2:
                self._newcomer_joins(club)
            self._standard_month(month, index)
            self._rapid_month(month, index)
            if month < self.open_month:
                self._close(self.standard, month)
                self._close(self.rapid, month)

        self._other_club(admin)
        return [
            Account("admin", admin_password, "superuser"),
            Account("officer", officer_password, f"rating officer of {CLUB_NAME}"),
            Account("arbiter", arbiter_password, f"arbiter of {CLUB_NAME}"),
        ]

    def _player(
        self,
        club: Club,
        name: str,
        year: int,
        sex: str,
        rating: int | None,
        games: int,
    ) -> Player:
        ratings: list[dict[str, Any]] = []
        if rating is not None:
            ratings = [
                {"list": ListKind.STANDARD.value, "rating": rating, "rated_games": games},
                # Rapid ratings sit a little below standard for most club players.
                {
                    "list": ListKind.RAPID.value,
                    "rating": max(1400, rating - self.rng.randint(0, 80)),
                    "rated_games": games // 3,
                },
            ]
        player = player_services.player_create(
            club=club,
            by=self.admin,
            name=name,
            birth_year=year,
            sex=sex,
            federation="ENG",
            ratings=ratings,
        )
        self.players[name] = player
        self.strength[player.pk] = rating if rating is not None else 1700
        return player

    def _newcomer_joins(self, club: Club) -> None:
        name, year, sex = NEWCOMER
        self._player(club, name, year, sex, None, 0)

    # -- games ------------------------------------------------------------------------------

    def _pairings(self, month_index: int) -> list[tuple[Player, Player]]:
        """One round: the crosser meets the strongest early on, the faller stronger
        players; everyone else is paired at random."""
        pool = [p for name, p in self.players.items() if name != FALLER or month_index < 2]
        self.rng.shuffle(pool)
        pairs: list[tuple[Player, Player]] = []
        crosser = self.players[CROSSER]
        if month_index < 3:
            pool.remove(crosser)
            strong = sorted(pool, key=lambda p: -self.strength[p.pk])[:4]
            opponent = self.rng.choice(strong)
            pool.remove(opponent)
            pairs.append((crosser, opponent))
        faller = self.players[FALLER]
        if faller in pool:
            pool.remove(faller)
            middle = [p for p in pool if 1550 <= self.strength[p.pk] <= 1750]
            opponent = self.rng.choice(middle)
            pool.remove(opponent)
            pairs.append((opponent, faller))
        if len(pool) % 2:
            pool.pop()  # a bye: the odd player sits the round out
        pairs.extend((pool[i], pool[i + 1]) for i in range(0, len(pool), 2))
        return pairs

    def _scripted(self, white: Player, black: Player, month_index: int) -> str:
        names = (white.name, black.name)
        if CROSSER in names and month_index < 3:
            return "1-0" if white.name == CROSSER else "0-1"
        if FALLER in names:
            return "0-1" if white.name == FALLER else "1-0"
        if NEWCOMER[0] in names:
            score = NEWCOMER_SCORES[self.newcomer_games % len(NEWCOMER_SCORES)]
            self.newcomer_games += 1
            return score if white.name == NEWCOMER[0] else _flip(score)
        return _result(self.rng, self.strength[white.pk], self.strength[black.pk])

    def _open_day(self, day: int) -> datetime.date:
        """A round day in the open month, no later than today: games dated after tomorrow
        are refused, so early in a month the first rounds move back to today."""
        return self.open_month.replace(day=min(day, self.today.day))

    def _standard_month(self, month: datetime.date, index: int) -> None:
        if month < self.open_month:
            dates = [month.replace(day=day) for day in ROUND_DAYS]
            end_date = add_months(month, 1) - datetime.timedelta(days=1)
        else:
            dates = [self._open_day(day) for day in ROUND_DAYS[:2]]
            end_date = self._open_day(ROUND_DAYS[-1])
        tournament = services.tournament_create(
            club=self.club,
            by=self.admin,
            name=f"Riverside Monthly {month:%B %Y}",
            rating_list=self.standard,
            start_date=dates[0],
            end_date=end_date,
            rounds=len(ROUND_DAYS),
            city="Riverside",
        )
        items: list[dict[str, Any]] = []
        for number, date in enumerate(dates, start=1):
            for white, black in self._pairings(index):
                items.append(
                    {
                        "tournament": tournament,
                        "date": date,
                        "round": number,
                        "white": white,
                        "black": black,
                        "result": self._scripted(white, black, index),
                    }
                )
        services.games_create_bulk(club=self.club, by=self.admin, games=items)
        self.counts["games"] += len(items)

    def _rapid_month(self, month: datetime.date, index: int) -> None:
        if month >= self.open_month:
            return
        day = month.replace(day=RAPID_DAY)
        tournament = services.tournament_create(
            club=self.club,
            by=self.admin,
            name=f"Riverside Rapid {month:%B %Y}",
            rating_list=self.rapid,
            start_date=day,
            end_date=day,
            rounds=3,
            city="Riverside",
        )
        # Rapid ratings of rated players only: the rapid night is for regulars.
        players = [p for name, p in self.players.items() if name not in (FALLER, NEWCOMER[0])]
        items: list[dict[str, Any]] = []
        for number in range(1, 4):
            chosen = self.rng.sample(players, 20)
            for i in range(0, len(chosen), 2):
                white, black = chosen[i], chosen[i + 1]
                items.append(
                    {
                        "tournament": tournament,
                        "date": day,
                        "round": number,
                        "white": white,
                        "black": black,
                        "result": _result(
                            self.rng, self.strength[white.pk], self.strength[black.pk]
                        ),
                    }
                )
        services.games_create_bulk(club=self.club, by=self.admin, games=items)
        self.counts["games"] += len(items)

    def _close(self, rating_list: RatingList, month: datetime.date) -> None:
        period = RatingPeriod.objects.get(rating_list=rating_list, month=month)
        services.period_close(period=period, by=self.admin)
        self.counts["periods"] += 1

    # -- the second club --------------------------------------------------------------------

    def _other_club(self, admin: AbstractUser) -> None:
        """A private club with a few players: the officer and arbiter of Riverside do not
        see it, which shows the admin's scoping."""
        club = player_services.club_create(
            name=OTHER_CLUB_NAME, slug=OTHER_CLUB_SLUG, public=False, by=admin
        )
        players = [
            player_services.player_create(
                club=club,
                by=admin,
                name=name,
                birth_year=year,
                sex=sex,
                federation="ENG",
                ratings=[{"list": ListKind.STANDARD.value, "rating": rating, "rated_games": games}],
            )
            for name, year, sex, rating, games in OTHER_ROSTER
        ]
        standard = RatingList.objects.get(club=club, kind=ListKind.STANDARD.value)
        day = self._open_day(ROUND_DAYS[0])
        tournament = services.tournament_create(
            club=club,
            by=admin,
            name=f"Northgate Club Night {self.open_month:%B %Y}",
            rating_list=standard,
            start_date=day,
            end_date=day,
            rounds=2,
        )
        items = [
            {
                "tournament": tournament,
                "date": day,
                "round": 1 + number // 2,
                "white": players[i],
                "black": players[j],
                "result": _result(self.rng, 1700, 1700),
            }
            for number, (i, j) in enumerate([(0, 1), (2, 3), (1, 4), (3, 0)])
        ]
        services.games_create_bulk(club=club, by=admin, games=items)
        self.counts["games"] += len(items)

    def summary(self) -> str:
        return (
            f"{Club.objects.count()} clubs, {Player.objects.count()} players, "
            f"{Tournament.objects.count()} tournaments, {Game.objects.count()} games, "
            f"{self.counts['periods']} periods closed"
        )
