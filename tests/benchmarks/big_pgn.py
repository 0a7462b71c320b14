"""The noisy neighbour's largest file: a PGN of headers only in which nearly every game
names two players never seen before (the issue's 60 MB file: about 509,000 games and a
million names), written to disk a block at a time."""

from __future__ import annotations

from pathlib import Path

#: One game: six header tags and the result, about 114 bytes.
_GAME = (
    '[Event "Open {index}"]\n[Date "2026.10.{day:02d}"]\n'
    '[White "Player {white:07d}, A"]\n[Black "Player {black:07d}, B"]\n'
    '[Result "1-0"]\n\n1-0\n\n'
)


def write_pgn(path: Path, *, games: int, players: int | None = None, first: int = 0) -> int:
    """Write ``games`` games to ``path`` naming ``players`` players in all (default: two
    new ones a game), numbered from ``first``; returns its size in bytes."""
    names = players or 2 * games
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, games, 10_000):
            out.write(
                "".join(
                    _GAME.format(
                        index=i % 97,
                        day=1 + i % 28,
                        white=first + 2 * i % names,
                        black=first + (2 * i + 1) % names,
                    )
                    for i in range(start, min(games, start + 10_000))
                )
            )
    return path.stat().st_size
