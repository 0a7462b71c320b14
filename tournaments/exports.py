"""The read side of exports: published lists, a player's history and a tournament as files.

Selectors that turn rows into the interchange package's plain records (ListRow,
HistoryRow, ParsedTournament) and hand them to its pure writers. Set-based: each export
costs a fixed number of queries whatever its size. Views and commands call these and only
deliver the text.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Literal

from players.errors import NotFoundError, ValidationFailed
from players.models import (
    Player,
    RatingChange,
    RatingList,
    RatingPeriod,
    Sex,
    month_start,
)
from players.names import NameOrder, display_name, surname_first
from players.rating.systems import RatingSystem
from players.selectors import (
    current_rows,
    latest_closed_period,
    parse_month,
    published_list,
    ratings_in_force,
)
from tournaments.interchange import (
    FORFEIT_RESULTS,
    ByeKind,
    GameResult,
    HistoryRow,
    ListRow,
    ParsedBye,
    ParsedGame,
    ParsedPlayer,
    ParsedTournament,
    StateValue,
    write_history_csv,
    write_list_csv,
    write_list_history_csv,
    write_list_txt,
    write_pgn,
    write_trf,
)
from tournaments.models import Game, Tournament, TournamentBye

ListFormat = Literal["csv", "txt"]
LIST_FORMATS: tuple[str, ...] = ("csv", "txt")


def export_period(*, rating_list: RatingList, month: str | None = None) -> RatingPeriod:
    """The closed period whose published list is wanted (default: the latest one)."""
    if month is None:
        period = latest_closed_period(rating_list=rating_list)
        if period is None:
            raise NotFoundError(f"The {rating_list.kind} list has no published period yet.")
        return period
    wanted = parse_month(month)
    period = RatingPeriod.objects.filter(
        rating_list=rating_list, month=wanted, status=RatingPeriod.Status.CLOSED
    ).first()
    if period is None:
        raise NotFoundError(f"No published {rating_list.kind} list for {month}.")
    return period


def list_rows(
    *, rating_list: RatingList, period: RatingPeriod, name_order: str | None = None
) -> list[ListRow]:
    """The list published after ``period``, ranked, as rows for the writers; names in
    ``name_order`` (default: the list's setting)."""
    order = name_order or rating_list.name_order
    system = rating_list.rating_system
    # Plain rows, not model instances: a 5,000-row list took seconds of Player and
    # RatingChange objects. The FIDE rating of the list's kind, where players keep one.
    fide = f"fide_{rating_list.kind}"
    has_fide = any(f.name == fide for f in Player._meta.get_fields())
    fields = (
        "player_id",
        "player__name",
        "player__title",
        "player__federation",
        "rating_after",
        "games",
        "player__birth_year",
        "inactive",
        "player__active",
        "k_next",
        "player__fide_id",
        "player__sex",
        "player__fide_list_month",
        "state_after",
        *((f"player__{fide}",) if has_fide else ()),
    )
    rows = []
    published = published_list(rating_list=rating_list, period=period)
    for values in published.values_list(*fields).iterator(chunk_size=2000):
        (player_id, name, title, federation, rating, games, birth_year) = values[:7]
        (inactive, active, k, fide_id, sex, fide_month, state) = values[7:14]
        # "i": inactive by FIDE's rule, or marked inactive by the club.
        inactive = inactive or not active
        flag = ("w" if sex == Sex.FEMALE else "") + ("i" if inactive else "")
        rows.append(
            ListRow(
                player_id=player_id,
                name=display_name(name, order),
                title=title,
                federation=federation,
                rating=rating,
                games=games,
                birth_year=birth_year,
                flag=flag,
                k=k,
                fide_id=fide_id,
                sex=sex,
                fide_rating=values[14] if has_fide else None,
                fide_month=f"{fide_month:%Y-%m}" if fide_month else "",
                state=_state_values(system, state, listed=True),
            )
        )
    return rows


def list_export(*, rating_list: RatingList, period: RatingPeriod, format: str) -> str:
    """The published list as CSV (names in the list's order) or FIDE-style fixed-width TXT
    (names Surname, Given, as FIDE's)."""
    if format not in LIST_FORMATS:
        raise ValidationFailed(
            f"format: {format!r} is not csv or txt.", fields={"format": ["Use csv or txt."]}
        )
    if format == "csv":
        return write_list_csv(list_rows(rating_list=rating_list, period=period))
    # The TXT follows FIDE's list, whose name column is "Surname, Given".
    rows = list_rows(rating_list=rating_list, period=period, name_order=NameOrder.SURNAME_FIRST)
    return write_list_txt(rows, kind=rating_list.kind)


def history_rows(*, player: Player) -> list[HistoryRow]:
    """Every closed period of the player on every list, oldest first."""
    changes = (
        current_rows(player=player)
        .select_related("period", "rating_list")
        .order_by("period__month", "rating_list__kind", "rating_list__slug")
    )
    return [
        _history_row(change, change.rating_list.slug, change.rating_list.rating_system)
        for change in changes
    ]


def _history_row(change: RatingChange, slug: str, system: RatingSystem) -> HistoryRow:
    return HistoryRow(
        period=change.period.label,
        list_kind=slug,
        rating_before=change.rating_before,
        rating_after=change.rating_after,
        change=change.change,
        change_unrounded=None
        if change.change_unrounded is None
        else Fraction(change.change_unrounded),
        games=change.games,
        score=Fraction(change.score),
        expected=Fraction(change.expected),
        k=change.k_factor,
        k_reason=change.k_reason,
        note=_note(change),
        state_before=_state_values(system, change.state_before),
        state_after=_state_values(system, change.state_after),
    )


def _state_values(
    system: RatingSystem, state: Mapping[str, float] | None, *, listed: bool = False
) -> tuple[StateValue, ...]:
    """The state the list's system keeps, by its declared fields (``listed``: only those
    it publishes on the list); none on a system that keeps none."""
    return tuple(
        StateValue(f.name, system.state_value(state, f.name), f.places)
        for f in system.state_fields
        if f.listed or not listed
    )


def list_history_csv(
    *, rating_list: RatingList, progress: Callable[[int], None] | None = None
) -> str:
    """Every row every close of the list published (the current ones: what a replay
    replaced is left out), by player, oldest period first."""
    changes = (
        current_rows(rating_list=rating_list)
        .select_related("period", "player")
        .order_by("player__name", "player_id", "period__month")
    )
    rows = []
    for change in changes.iterator(chunk_size=5000):
        rows.append(
            (
                change.player_id,
                display_name(change.player.name, rating_list.name_order),
                _history_row(change, rating_list.slug, rating_list.rating_system),
            )
        )
        if progress is not None and len(rows) % 1000 == 0:
            progress(1000)
    return write_list_history_csv(rows)


def _note(change: RatingChange) -> str:
    if not change.adjustment:
        return change.get_event_display()
    # rating_after includes it: say why it is more than rating_before + change.
    return f"{change.get_event_display()}; FIDE adjustment of 1 March 2024 +{change.adjustment}"


def history_csv(*, player: Player) -> str:
    return write_history_csv(history_rows(player=player))


def tournament_record(*, tournament: Tournament) -> ParsedTournament:
    """The tournament as the interchange record, ready for ``write_trf``.

    Each player's rating is the one in force at the tournament's start (the list published
    before its first month, as the close scores its games; unrated: blank), and their name
    is written ``Surname, Given`` as TRF has it. Start numbers go by that rating (highest
    first, unrated last), then name. Byes kept from the import are written as they were
    (H, F, U, Z); a round a player has neither a game nor a bye in is absent (``0000 -
    Z``). The headers kept (032 federation, 092 type, 122 time control, 102 arbiter) are
    written back. A round's date is its earliest game's.
    """
    games = list(
        Game.objects.filter(tournament=tournament)
        .select_related("white", "black")
        .order_by("round", "date", "id")
    )
    unnumbered = [game for game in games if game.round is None]
    if unnumbered:
        raise ValidationFailed(
            f"{len(unnumbered)} game(s) of {tournament.name} have no round; a TRF needs one "
            "for every game.",
            fields={"round": ["Every game needs a round to be written as TRF."]},
        )
    stored_byes = list(TournamentBye.objects.filter(tournament=tournament).select_related("player"))
    players: dict[int, Player] = {}
    for game in games:
        players[game.white_id] = game.white
        players[game.black_id] = game.black
    for bye in stored_byes:
        players[bye.player_id] = bye.player
    parsed_players = _numbered_players(tournament, players)
    rounds = max(
        [
            tournament.rounds or 0,
            *(game.round or 0 for game in games),
            *(bye.round for bye in stored_byes),
        ]
    )
    records, round_dates = _game_records(games, players, parsed_players, rounds)
    byes = tuple(
        ParsedBye(
            round=bye.round,
            player=parsed_players[bye.player_id].ref(),
            kind=ByeKind(bye.kind),
            date=round_dates[bye.round - 1],
            line=0,
        )
        for bye in stored_byes
    )
    return ParsedTournament(
        name=tournament.name,
        city=tournament.city,
        federation=tournament.federation,
        start_date=tournament.start_date,
        end_date=tournament.end_date,
        rounds=rounds,
        round_dates=tuple(round_dates),
        players=tuple(parsed_players.values()),
        games=tuple(records),
        byes=byes,
        warnings=(),
        tournament_type=tournament.tournament_type,
        time_control=tournament.time_control,
        extra_headers={"102": (tournament.arbiter,)} if tournament.arbiter else {},
    )


def _game_records(
    games: list[Game],
    players: dict[int, Player],
    parsed_players: dict[int, ParsedPlayer],
    rounds: int,
) -> tuple[list[ParsedGame], list[datetime.date | None]]:
    """The games as records and each round's date (its earliest game's); a player with two
    games in one round is refused (a TRF has one per player and round)."""
    round_dates: list[datetime.date | None] = [None] * rounds
    seen: dict[int, set[int]] = defaultdict(set)
    records: list[ParsedGame] = []
    for game in games:
        assert game.round is not None  # refused by the caller
        index = game.round - 1
        earliest = round_dates[index]
        if earliest is None or game.date < earliest:
            round_dates[index] = game.date
        for side in (game.white_id, game.black_id):
            if side in seen[game.round]:
                raise ValidationFailed(
                    f"{players[side].name} has two games in round {game.round}; a TRF has one "
                    "game per player and round.",
                    fields={"round": [f"Two games of one player in round {game.round}."]},
                )
            seen[game.round].add(side)
        result = GameResult(game.result)
        records.append(
            ParsedGame(
                round=game.round,
                date=game.date,
                white=parsed_players[game.white_id].ref(),
                black=parsed_players[game.black_id].ref(),
                result=result,
                # A forfeit is never rated, whatever the flag says.
                rated=game.rated and result not in FORFEIT_RESULTS,
                note="",
                line=0,
            )
        )
    return records, round_dates


def _numbered_players(
    tournament: Tournament, players: dict[int, Player]
) -> dict[int, ParsedPlayer]:
    """Player id -> the player with their start number, in start-number order: by the
    rating in force at the tournament's start (highest first, unrated last), then name."""
    key = (tournament.rating_list_id, month_start(tournament.start_date))
    # fixed_start=False: a club list's starting rating is not a rating the player holds.
    ratings = ratings_in_force(
        lists={tournament.rating_list_id: tournament.rating_list},
        months=[key],
        players=list(players),
        fixed_start=False,
    )[key]
    order = sorted(
        players.values(), key=lambda p: (-(ratings.get(p.pk) or 0), p.name.casefold(), p.pk)
    )
    return {
        player.pk: ParsedPlayer(
            start_no=number,
            name=surname_first(player.name),
            fide_id=player.fide_id,
            birth_date=player.birth_date,
            birth_year=player.birth_year,
            sex={Sex.MALE: "m", Sex.FEMALE: "w"}.get(Sex(player.sex), "") if player.sex else "",
            title=player.title,
            federation=player.federation,
            rating=ratings.get(player.pk),
            line=0,
        )
        for number, player in enumerate(order, start=1)
    }


def tournament_trf(*, tournament: Tournament) -> str:
    """The tournament as a TRF16 file (CR LF line ends)."""
    return write_trf(tournament_record(tournament=tournament))


def tournament_pgn(*, tournament: Tournament) -> str:
    """The tournament's games as PGN headers (``write_pgn``), in play order; players carry
    the rating in force at the tournament's start on its list (the list published before
    its first month, not today's) and their FIDE ID, as in the TRF. Unlike the TRF, games
    without a round are written too (``Round "?"``). Three queries: the games, then the
    ratings in force (published rows, entered ratings)."""
    games = list(
        Game.objects.filter(tournament=tournament)
        .select_related("white", "black")
        .order_by("date", "round", "id")
    )
    players: dict[int, Player] = {}
    for game in games:
        players[game.white_id] = game.white
        players[game.black_id] = game.black
    numbered = _numbered_players(tournament, players)
    record = ParsedTournament(
        name=tournament.name,
        city=tournament.city,
        federation="",
        start_date=tournament.start_date,
        end_date=tournament.end_date,
        rounds=tournament.rounds or 0,
        round_dates=(),
        players=tuple(numbered.values()),
        games=tuple(
            ParsedGame(
                round=game.round,
                date=game.date,
                white=numbered[game.white_id].ref(),
                black=numbered[game.black_id].ref(),
                result=GameResult(game.result),
                rated=game.rated,
                note="",
                line=0,
            )
            for game in games
        ),
        byes=(),
        warnings=(),
    )
    return write_pgn(record)
