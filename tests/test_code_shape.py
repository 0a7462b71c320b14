"""The code's shape (issue 38, item 4): no function or method in product code above a
cyclomatic complexity of 15 (radon's measure) and no module above 500 lines
(docs/developers/architecture.md, "Sizes"). A function that grows past the bar is split by what each
part decides, not by line count. Fast tier: radon's Python API over the source text, no
subprocess, no database."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import add_inner_blocks, cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ratings_site", "players", "tournaments")
MAX_COMPLEXITY = 15
MAX_LINES = 500

# Functions allowed above the bar, each with its complexity when listed: none today. An
# entry says why a function cannot be split by what it decides; the test below fails on an
# entry no longer needed.
ALLOWED: dict[str, int] = {}


def _modules() -> Iterator[tuple[str, str]]:
    """(path from the project's root, source) of every product module but migrations."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.relative_to(ROOT).parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def _measured(source: str) -> dict[str, tuple[int, int]]:
    """Each function's, method's and closure's (line, complexity) in ``source``, by name
    (``Class.method``, ``outer.inner`` for a closure: radon counts a closure apart from
    the function around it). Of two with one name (a property's getter and setter) the
    more complex counts."""
    measured: dict[str, tuple[int, int]] = {}
    for block in add_inner_blocks(cc_visit(source)):
        known = measured.get(block.fullname)
        if isinstance(block, Function) and (known is None or known[1] < block.complexity):
            measured[block.fullname] = (block.lineno, block.complexity)
    return measured


@functools.cache
def _complexities() -> dict[str, tuple[int, int]]:
    """Every function's, method's and closure's (line, complexity), by ``path::name``
    (``Class.method``, ``outer.inner`` for a closure); measured once for both tests
    (about 2 s of CPU)."""
    return {
        f"{path}::{name}": figures
        for path, source in _modules()
        for name, figures in _measured(source).items()
    }


def test_no_function_is_above_the_complexity_bar() -> None:
    offenders = [
        f"{key.replace('::', f':{line} ')} has complexity {complexity}"
        for key, (line, complexity) in sorted(_complexities().items())
        if complexity > MAX_COMPLEXITY and key not in ALLOWED
    ]
    assert not offenders, (
        f"above complexity {MAX_COMPLEXITY} (split by what each part decides):\n"
        + "\n".join(offenders)
    )


def test_no_module_is_above_the_line_bar() -> None:
    offenders = [
        f"{path} has {len(source.splitlines())} lines"
        for path, source in _modules()
        if len(source.splitlines()) > MAX_LINES
    ]
    assert not offenders, (
        f"above {MAX_LINES} lines (make it a package split by what each part does):\n"
        + "\n".join(offenders)
    )


def test_allowed_entries_are_still_needed() -> None:
    """An entry whose function was split (or renamed, or moved) goes, so that the list
    cannot hide a function that grows back."""
    complexities = _complexities()
    stale = [
        key for key in ALLOWED if key not in complexities or complexities[key][1] <= MAX_COMPLEXITY
    ]
    assert not stale, "remove from ALLOWED (split or gone):\n" + "\n".join(stale)


def test_the_measure_sees_branches_methods_and_closures() -> None:
    """The checker's own check: 16 branches are above the bar wherever they are."""
    branches = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(15))
    source = (
        f"def flat(x):\n{branches}    return -1\n"
        "class Kind:\n"
        f"    def method(self, x):\n{branches.replace('    ', '        ')}        return -1\n"
        "def outer():\n"
        f"    def inner(x):\n{branches.replace('    ', '        ')}        return -1\n"
        "    return inner\n"
    )
    measured = {name: complexity for name, (_, complexity) in _measured(source).items()}
    assert measured == {"flat": 16, "Kind.method": 16, "outer": 1, "outer.inner": 16}
