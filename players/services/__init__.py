"""Services for clubs, members, players, lists and K overrides: the only code that writes them.

Every function is keyword-only, checks the caller's role through the selectors, owns its
transaction and raises players.errors domain errors (never DRF or admin errors).

Modules: :mod:`.clubs` (clubs and members, and retiring the cache of a club's public
views), :mod:`.lists` (a list's rules and its next month), :mod:`.entries` (a new list
with every player of the club on it, a new player on every list), :mod:`.players`
(players and the ratings they bring, one by one or in bulk for the imports), :mod:`.k_factor` (``k_for``, the K a player has for a period, and the officer's
override), :mod:`.tokens` (API tokens), :mod:`.invitations` (an owner's offer of a role, by
link), :mod:`.claims` (a member's claim of a player record, an officer's decision). Callers
import the services from here; the job queue, the webhooks and the rating e-mails have
rooms of their own (``players.jobs``, ``players.webhooks``, ``players.emails``).
"""

from __future__ import annotations

from players.services.claims import claim_create, claim_decide
from players.services.clubs import (
    club_create,
    club_live_changed,
    club_published_changed,
    club_update,
    embed_origins_checked,
    may_create_clubs,
    membership_remove,
    membership_set,
)
from players.services.entries import players_enter_list, rating_list_create
from players.services.invitations import (
    invitation_accept,
    invitation_accept_mine,
    invitation_accept_new_user,
    invitation_create,
    invitation_open,
    invitation_revoke,
    invitations_for,
)
from players.services.k_factor import k_for, k_override_set
from players.services.lists import (
    GLICKO_SETTINGS,
    LIST_DISPLAY,
    LIST_RULES,
    club_lists_locked,
    next_period_month,
    rating_list_update,
)
from players.services.players import (
    PLAYER_FIELDS,
    player_create,
    player_delete,
    player_update,
    players_add_bulk,
)
from players.services.tokens import (
    api_token_create,
    api_token_revoke,
    api_token_touch,
    api_tokens_revoke_all,
)

__all__ = [
    "GLICKO_SETTINGS",
    "LIST_DISPLAY",
    "LIST_RULES",
    "PLAYER_FIELDS",
    "api_token_create",
    "api_token_revoke",
    "api_token_touch",
    "api_tokens_revoke_all",
    "claim_create",
    "claim_decide",
    "club_create",
    "club_lists_locked",
    "club_live_changed",
    "club_published_changed",
    "club_update",
    "embed_origins_checked",
    "invitation_accept",
    "invitation_accept_mine",
    "invitation_accept_new_user",
    "invitation_create",
    "invitation_open",
    "invitation_revoke",
    "invitations_for",
    "k_for",
    "k_override_set",
    "may_create_clubs",
    "membership_remove",
    "membership_set",
    "next_period_month",
    "player_create",
    "player_delete",
    "player_update",
    "players_add_bulk",
    "players_enter_list",
    "rating_list_create",
    "rating_list_update",
]
