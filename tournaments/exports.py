"""The read side of exports: published lists, a player's history and a tournament as files.

Selectors that turn rows into the interchange package's plain records (ListRow,
HistoryRow, ParsedTournament) and hand them to its pure writers. Set-based: each export
costs a fixed number of queries whatever its size. Views and commands call these and only
deliver the text.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Literal

from players.errors import NotFoundError, ValidationFailed
from players.models import Player, PlayerRating, RatingChange, RatingList, RatingPeriod, Sex
from players.selectors import latest_closed_period, parse_month, published_list
from tournaments.interchange import (
    FORFEIT_RESULTS,
    GameResult,
    HistoryRow,
    ListRow,
    ParsedGame,
    ParsedPlayer,
    ParsedTournament,
    write_history_csv,
    write_list_csv,
    write_list_history_csv,
    write_list_txt,
    write_pgn,
    write_trf,
)
from tournaments.models import Game, Tournament

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


def list_rows(*, rating_list: RatingList, period: RatingPeriod) -> list[ListRow]:
    """The list published after ``period``, ranked, as rows for the writers."""
    rows = []
    for change in published_list(rating_list=rating_list, period=period):
        player = change.player
        # "i": inactive by FIDE's rule, or marked inactive by the club.
        inactive = getattr(change, "inactive", False) or not player.active
        flag = ("w" if player.sex == Sex.FEMALE else "") + ("i" if inactive else "")
        rows.append(
            ListRow(
                player_id=player.pk,
                name=player.name,
                title=player.title,
                federation=player.federation,
                rating=change.rating_after,
                games=change.games,
                birth_year=player.birth_year,
                flag=flag,
                k=change.k_next,
                fide_id=player.fide_id,
                sex=player.sex,
                rd=change.rd_after,
            )
        )
    return rows


def list_export(*, rating_list: RatingList, period: RatingPeriod, format: str) -> str:
    """The published list as CSV or FIDE-style fixed-width TXT."""
    if format not in LIST_FORMATS:
        raise ValidationFailed(
            f"format: {format!r} is not csv or txt.", fields={"format": ["Use csv or txt."]}
        )
    rows = list_rows(rating_list=rating_list, period=period)
    return write_list_csv(rows) if format == "csv" else write_list_txt(rows)


def history_rows(*, player: Player) -> list[HistoryRow]:
    """Every closed period of the player on every list, oldest first."""
    changes = (
        RatingChange.objects.filter(player=player, current=True)
        .select_related("period", "rating_list")
        .order_by("period__month", "rating_list__kind", "rating_list__slug")
    )
    return [_history_row(change, change.rating_list.slug) for change in changes]


def _history_row(change: RatingChange, slug: str) -> HistoryRow:
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
        rd_before=change.rd_before,
        rd_after=change.rd_after,
        volatility_before=change.volatility_before,
        volatility_after=change.volatility_after,
    )


def list_history_csv(
    *, rating_list: RatingList, progress: Callable[[int], None] | None = None
) -> str:
    """Every row every close of the list published (the current ones: what a replay
    replaced is left out), by player, oldest period first."""
    changes = (
        RatingChange.objects.filter(rating_list=rating_list, current=True)
        .select_related("period", "player")
        .order_by("player__name", "player_id", "period__month")
    )
    rows = []
    for change in changes.iterator(chunk_size=5000):
        rows.append((change.player_id, change.player.name, _history_row(change, rating_list.slug)))
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

    Start numbers go by the players' current rating on the tournament's list (highest
    first, unrated last), then name. Byes are not stored, so a round a player did not play
    is written as absent (``0000 - Z``). A round's date is its earliest game's.
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
    players: dict[int, Player] = {}
    for game in games:
        players[game.white_id] = game.white
        players[game.black_id] = game.black
    parsed_players = _numbered_players(tournament, players)
    rounds = max([tournament.rounds or 0, *(game.round or 0 for game in games)])
    round_dates: list[datetime.date | None] = [None] * rounds
    seen: dict[int, set[int]] = defaultdict(set)
    records: list[ParsedGame] = []
    for game in games:
        assert game.round is not None  # refused above
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
    return ParsedTournament(
        name=tournament.name,
        city=tournament.city,
        federation="",
        start_date=tournament.start_date,
        end_date=tournament.end_date,
        rounds=rounds,
        round_dates=tuple(round_dates),
        players=tuple(parsed_players.values()),
        games=tuple(records),
        byes=(),
        warnings=(),
    )


def _numbered_players(
    tournament: Tournament, players: dict[int, Player]
) -> dict[int, ParsedPlayer]:
    """Player id -> the player with their start number, in start-number order: by current
    rating on the tournament's list (highest first, unrated last), then name."""
    ratings = dict(
        PlayerRating.objects.filter(
            rating_list_id=tournament.rating_list_id, player_id__in=list(players)
        ).values_list("player_id", "rating")
    )
    order = sorted(
        players.values(), key=lambda p: (-(ratings.get(p.pk) or 0), p.name.casefold(), p.pk)
    )
    return {
        player.pk: ParsedPlayer(
            start_no=number,
            name=player.name,
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
    their current rating on the tournament's list and their FIDE ID, as in the TRF. Unlike
    the TRF, games without a round are written too (``Round "?"``). Two queries."""
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
