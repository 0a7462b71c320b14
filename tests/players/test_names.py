"""The name key, surname/given splitting and display (players.names: pure, no database)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from players.names import (
    NameOrder,
    _all_capitals,
    display_name,
    given_first,
    name_key,
    name_similarity,
    split_name,
    surname_first,
)

REPO_ROOT = Path(__file__).resolve().parents[2]

# The forms the issue names for one person, and a few more a file may carry.
ARONSEN_FORMS = [
    "Aronsen, Viktor",
    "Viktor Aronsen",
    "ARONSEN Viktor",
    "Arönsen, Viktor",
    "  aronsen ,viktor ",
    "Aronsen Viktor",
    "Aro\u0308nsen, Viktor",  # o + combining diaeresis (decomposed form)
    "Aronsen,Viktor.",
]


@pytest.mark.parametrize("form", ARONSEN_FORMS)
def test_every_form_of_one_name_has_one_key(form: str) -> None:
    assert name_key(form) == "aronsen viktor"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Søren Kierkegaard", "Kierkegaard, Soren"),
        ("Łukasz Wójcik", "WOJCIK Lukasz"),
        ("Strauß, Anna", "Anna STRAUSS"),
        ("O'Neil, Mary-Kate", "Mary Kate O Neil"),
        ("Đorđević, Ana", "Ana Dordevic"),
    ],
)
def test_letters_without_a_separable_accent_and_punctuation(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Aronsen, Viktor", "Aronsen, Viktoria"),
        ("Aronsen, Viktor", "Aronson, Viktor"),
        ("Aronsen, Viktor", "Aronsen"),
    ],
)
def test_different_names_keep_different_keys(a: str, b: str) -> None:
    assert name_key(a) != name_key(b)


@pytest.mark.parametrize(
    ("name", "surname", "given"),
    [
        ("Aronsen, Viktor", "Aronsen", "Viktor"),
        ("Viktor Aronsen", "Aronsen", "Viktor"),
        ("ARONSEN Viktor", "Aronsen", "Viktor"),
        ("VAN DER BERG Jan Peter", "Van Der Berg", "Jan Peter"),
        ("Jan van der Berg", "van der Berg", "Jan"),
        ("Anna Maria Schmidt", "Schmidt", "Anna Maria"),
        ("Carlsen", "Carlsen", ""),
        ("de la Cruz, Ana", "de la Cruz", "Ana"),
    ],
)
def test_split_name(name: str, surname: str, given: str) -> None:
    assert split_name(name) == (surname, given)


def test_display_in_either_order() -> None:
    assert surname_first("Viktor Aronsen") == "Aronsen, Viktor"
    assert given_first("Aronsen, Viktor") == "Viktor Aronsen"
    assert display_name("ARONSEN Viktor", NameOrder.SURNAME_FIRST) == "Aronsen, Viktor"
    assert display_name("Aronsen, Viktor", NameOrder.GIVEN_FIRST) == "Viktor Aronsen"
    assert display_name("Carlsen", NameOrder.GIVEN_FIRST) == "Carlsen"


def test_similarity_rates_a_typo_high_and_another_name_low() -> None:
    assert name_similarity(name_key("Aronsen, Viktor"), name_key("Aronson, Viktor")) > 0.9
    assert name_similarity(name_key("Aronsen, Viktor"), name_key("Berg, Jan")) < 0.5
    assert name_similarity("abc", "abc") == 1.0


@pytest.mark.slow
def test_names_module_imports_no_django() -> None:
    probe = (
        "import sys, players.names; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr


# Words a name may hold: capitals, particles, accents, punctuation, uncased letters and
# cased signs that are no letters (the circled ones).
_NAME_TEXT = st.lists(
    st.sampled_from([*"aAbBzZéÉ ,.-'\tⓐⒶ李ªß0", "van", "de", "AR", "Ar"]), max_size=12
).map("".join)


@given(_NAME_TEXT)
def test_given_first_is_split_name_joined_given_first(name: str) -> None:
    # given_first answers most names without splitting them: the same as the split.
    surname, given = split_name(name)
    assert given_first(name) == (f"{given} {surname}" if given else surname)


@given(st.text(alphabet=st.sampled_from(list("aAbBéÉ-'.ⓐⒶ李ªß0")), max_size=6))
def test_all_capitals_shortcut_is_the_full_rule(word: str) -> None:
    letters = [char for char in word if char.isalpha()]
    assert _all_capitals(word) == (len(letters) > 1 and all(c.isupper() for c in letters))
