"""The player's corner of the member's home: for each player record linked to the account
(by an officer by hand, or by an approved claim), the current ratings with the next K,
the live figures, the games still to be rated and the history's CSV download; and the
claims the member made or, as an officer, has to decide.

Reads only: the player page's own helpers (standings, live figures) and the selectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse

from players.models import Player, PlayerClaim
from players.selectors import claims_of_user, claims_to_decide
from ratings_site.pages.live import LiveDetail, live_details
from ratings_site.pages.player import ListStanding, player_lists
from tournaments.models import Game
from tournaments.selectors import games_to_be_rated


@dataclass(frozen=True)
class GameToRate:
    """One of the player's games in a period not closed yet, from their side."""

    game: Game
    colour: str
    opponent: Player


@dataclass
class Corner:
    player: Player
    standings: list[ListStanding]
    live: list[LiveDetail]
    history_csv: str
    games: list[GameToRate] = field(default_factory=list)


@dataclass(frozen=True)
class Claims:
    mine: list[PlayerClaim]
    to_decide: list[PlayerClaim]


def corners(*, players: list[Player]) -> list[Corner]:
    """One corner per record (``players``: the member's, their clubs selected): three
    queries each for the standings, one for the live lists, and one for every record's
    games to be rated together."""
    found: list[Corner] = []
    for player in players:
        lists = player_lists(player=player)
        found.append(
            Corner(
                player=player,
                standings=lists.standings,
                live=live_details(club=player.club, player=player, lists=lists.lists),
                history_csv=reverse("player-history-csv", args=[player.club.slug, player.pk]),
            )
        )
    by_player = {corner.player.pk: corner for corner in found}
    for game in games_to_be_rated(player_ids=list(by_player)):
        for player_id, colour, opponent in (
            (game.white_id, "white", game.black),
            (game.black_id, "black", game.white),
        ):
            if player_id in by_player:
                by_player[player_id].games.append(GameToRate(game, colour, opponent))
    return found


def member_claims(*, user: AbstractBaseUser) -> Claims:
    return Claims(
        mine=list(claims_of_user(user=user).order_by("-created", "-id")[:50]),
        to_decide=claims_to_decide(user=user),
    )
