"""Clubs, members and roles, players, their rating lists and everything recorded about
them: current ratings, K history, monthly periods, published rating changes and runs, and the jobs that do long work.

Only services write these rows (players/services/, tournaments/services/). Invariants the
rules depend on are also database constraints, so a bug elsewhere cannot store a rating of
-5 or a second standard list.
"""

from players.models.accounts import (
    INVITATION_VALID_FOR,
    ApiToken,
    Invitation,
    InvitationStatus,
)
from players.models.claims import ClaimStatus, PlayerClaim
from players.models.clubs import RESERVED_SLUGS, Club, Membership, Player, PlayerMerge
from players.models.common import (
    K_MAX,
    K_MIN,
    RATING_MAX,
    RATING_MIN,
    ExpectedMethod,
    FirstRatingPolicy,
    KChangeReason,
    KPolicy,
    KReason,
    Role,
    Sex,
    Title,
    k_range_check,
    list_kind_choices,
    list_kind_values,
    rating_range_check,
    translated_choices,
    translated_label,
)
from players.models.jobs import Job
from players.models.lists import (
    FIDE_RULES_CHOICES,
    LIST_PRESETS,
    SYSTEM_PRESETS,
    KFactorChange,
    PlayerRating,
    RatingList,
    list_presets,
)
from players.models.periods import (
    EARLIEST_DATE,
    INACTIVE_AFTER_MONTHS,
    RatingChange,
    RatingPeriod,
    RatingRun,
    date_out_of_bounds,
    inactive_cutoff,
    latest_date,
)
from players.models.webhooks import (
    PING_EVENT,
    WEBHOOK_EVENTS,
    NotificationPreference,
    RatingEmails,
    Webhook,
    WebhookDelivery,
)
from players.rating.months import add_months, month_label, month_start

__all__ = [
    "EARLIEST_DATE",
    "FIDE_RULES_CHOICES",
    "INACTIVE_AFTER_MONTHS",
    "INVITATION_VALID_FOR",
    "K_MAX",
    "K_MIN",
    "LIST_PRESETS",
    "PING_EVENT",
    "RATING_MAX",
    "RATING_MIN",
    "RESERVED_SLUGS",
    "SYSTEM_PRESETS",
    "WEBHOOK_EVENTS",
    "ApiToken",
    "ClaimStatus",
    "Club",
    "ExpectedMethod",
    "FirstRatingPolicy",
    "Invitation",
    "InvitationStatus",
    "Job",
    "KChangeReason",
    "KFactorChange",
    "KPolicy",
    "KReason",
    "Membership",
    "NotificationPreference",
    "Player",
    "PlayerClaim",
    "PlayerMerge",
    "PlayerRating",
    "RatingChange",
    "RatingEmails",
    "RatingList",
    "RatingPeriod",
    "RatingRun",
    "Role",
    "Sex",
    "Title",
    "Webhook",
    "WebhookDelivery",
    "add_months",
    "date_out_of_bounds",
    "inactive_cutoff",
    "k_range_check",
    "latest_date",
    "list_kind_choices",
    "list_kind_values",
    "list_presets",
    "month_label",
    "month_start",
    "rating_range_check",
    "translated_choices",
    "translated_label",
]
