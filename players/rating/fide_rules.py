"""FIDE's rating rules as they stood on each date since July 2014: dated rule sets and the
lookup that picks the one in force (FIDE applies a change to tournaments that start on or
after its date; an event spanning a month end keeps the rules of its start).

The timeline is the one our reference keeps (FIDE Rating Regulations, section 10 of
../shared/reference/fide-rules.md); an entry marked sure or likely there is taken as it
stands. Where the timeline is open or silent, the choice made here:

- 400-point rule, January 2022 to February 2024 (standard list): "a player may benefit
  from only one upgrade under this rule, for the game in which the rating difference is
  greatest" in each tournament. Applied to the player it benefits, the higher-rated one:
  of their games more than 400 above the opponent, only the one with the largest
  difference is capped, the others count the real difference (the first of equal ones, in
  the order the period lists its games). How it applies to the lower-rated side is open:
  the cap is no benefit to them (it lowers what they can win), so they keep it in every
  game. A month's games outside tournaments count as one event. Rapid and blitz keep the
  cap in every game (the text is the standard regulations').
- Junior limit before July 2017 ("until the 18th birthday", start date likely): the
  tracker knows birth years only, so a player is junior through the year of their 17th
  birthday (never longer than the rule allowed); since July 2017, through the year of the
  18th birthday.
- Rapid and blitz K before October 2022: 20 for everyone (reported from about 2018; taken
  from July 2014, the start of this timeline), with the 700 rule.
- The 700 rule from July 2017 (start date likely), on every list.
- The rapid/blitz one-off of 1 October 2022 (a rating more than 100 below the standard
  rating raised to standard - 100, marked likely) is applied on lists that follow the
  rules by date, in the close of September 2022, against the club's own standard list
  of 1 October 2022 (players.rating.adjustment). A list pinned to one rule set skips it,
  as it skips every change of date.
- Before July 2014 (other K values, a 1200 floor, nine games for a first rating) is out of
  scope: such months are rated with the July 2014 rules.
- FIDE's adjustment of 1 March 2024 is not a rule set: it stays the list's own setting
  (``ListSettings.adjust_march_2024``).

Per game (by its tournament's start): the 2650 exception to the 400-point cap, the
rapid/blitz 600/2600 rule and the 2022-2024 cap in one game per event. Per player and
period, by the latest start among the player's events of the period (a tournament's first
day; the month's for games outside tournaments; for an unrated player, the pooled events'
too): K and the junior limit, the 700 rule, the floor and the first-rating formula. So a
tournament begun before a change keeps the old rules for whoever played only in it (or in
events as old); a player who also played under the month's rules takes the month's, those
of the list the close publishes (``elo_games.player_rule_days``).
"""

from __future__ import annotations

import bisect
import datetime
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FideRuleSet:
    """The rules in force from ``since`` until the next set's date."""

    name: str
    since: datetime.date
    # The 400-point cap: a standard player rated 2650+ uses the real difference.
    exception_2650: bool
    # Rapid and blitz: a game 600+ apart with a player above 2600 is not rated.
    fast_gap: bool
    # Ratings below it are not published (7.1.4), first ratings included.
    floor: int
    # First ratings: the 2024 formula (two 1800 draws, 2200 cap) or the 2014 one.
    first_rating_2024: bool
    # K x n <= 700 (8.3.3).
    cap_700: bool
    # Junior K (40 under 2300) through the year in which the player turns this age.
    junior_max_age: int
    # Rapid and blitz: one K of 20 for everyone (else the standard list's K rules).
    fast_k_20: bool
    # Standard, 2022-01 to 2024-02: the 400-point cap helps a player in one game per event.
    cap_once_per_event: bool = False


RULE_SETS: tuple[FideRuleSet, ...] = (
    FideRuleSet("2014-07", datetime.date(2014, 7, 1), False, False, 1000, False, False, 17, True),
    FideRuleSet("2017-07", datetime.date(2017, 7, 1), False, False, 1000, False, True, 18, True),
    FideRuleSet(
        "2022-01", datetime.date(2022, 1, 1), False, False, 1000, False, True, 18, True, True
    ),
    FideRuleSet(
        "2022-10", datetime.date(2022, 10, 1), False, False, 1000, False, True, 18, False, True
    ),
    FideRuleSet("2024-03", datetime.date(2024, 3, 1), False, False, 1400, True, True, 18, False),
    FideRuleSet("2024-12", datetime.date(2024, 12, 1), False, True, 1400, True, True, 18, False),
    FideRuleSet("2025-10", datetime.date(2025, 10, 1), True, True, 1400, True, True, 18, False),
)
RULE_SETS_BY_NAME: dict[str, FideRuleSet] = {rule_set.name: rule_set for rule_set in RULE_SETS}
# Today's rules: what a list pinned to "today" uses, whatever the date.
TODAY = RULE_SETS[-1]
# A list's choice: the rules by date, or one rule set by name.
BY_DATE = "by_date"
_STARTS = [rule_set.since for rule_set in RULE_SETS]


def rules_in_force(day: datetime.date) -> FideRuleSet:
    """The rule set in force on ``day`` (a tournament's start, a period's first day); days
    before July 2014 get the July 2014 rules (earlier rules are out of scope)."""
    index = bisect.bisect_right(_STARTS, day) - 1
    return RULE_SETS[max(index, 0)]


def rule_set_for(choice: str, day: datetime.date) -> FideRuleSet:
    """A list's choice (``BY_DATE`` or a rule set's name) on ``day``."""
    if choice == BY_DATE:
        return rules_in_force(day)
    try:
        return RULE_SETS_BY_NAME[choice]
    except KeyError:
        raise ValueError(f"unknown FIDE rule set {choice!r}") from None
