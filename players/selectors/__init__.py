"""Read helpers for clubs, roles, players and what closed periods published: access
scoping used by every interface (access.py), what a club records and published
(records.py), the club's cache generations (generations.py), the ratings a game is scored with (in_force.py) and jobs (jobs.py).

Each helper is set-based (annotate / prefetch), so a list of N rows costs a constant number
of queries. Callers import them from the package.
"""

from players.selectors.access import (
    MemberHome,
    User,
    club_get_visible,
    club_members,
    clubs_visible_to,
    member_home,
    membership_role,
    require_role,
    roles_by_club,
)
from players.selectors.generations import (
    Generation,
    club_generation,
    generation_key,
    generation_started,
    published_generation_key,
)
from players.selectors.in_force import InForceKey, ratings_in_force, with_fixed_start
from players.selectors.jobs import (
    job_get_visible,
    job_wait,
    jobs_visible_to,
    queue_oldest_queued_seconds,
)
from players.selectors.records import (
    DuplicatePair,
    duplicate_pairs,
    latest_closed_period,
    parse_month,
    period_get,
    player_history,
    player_k_history,
    player_ratings_for_list,
    players_for_club,
    published_list,
    rating_list_get,
    rules_rated_under,
    with_inactive,
    with_rules_rated_under,
)

__all__ = [
    "DuplicatePair",
    "Generation",
    "InForceKey",
    "MemberHome",
    "User",
    "club_generation",
    "club_get_visible",
    "club_members",
    "clubs_visible_to",
    "duplicate_pairs",
    "generation_key",
    "generation_started",
    "job_get_visible",
    "job_wait",
    "jobs_visible_to",
    "latest_closed_period",
    "member_home",
    "membership_role",
    "parse_month",
    "period_get",
    "player_history",
    "player_k_history",
    "player_ratings_for_list",
    "players_for_club",
    "published_generation_key",
    "published_list",
    "queue_oldest_queued_seconds",
    "rating_list_get",
    "ratings_in_force",
    "require_role",
    "roles_by_club",
    "rules_rated_under",
    "with_fixed_start",
    "with_inactive",
    "with_rules_rated_under",
]
