"""A table's chunks written behind the restore (``TableWriter``): each chunk held until the
next one's ids and users are looked up, then sent by ``players.bulk.CopyBehind`` while
that next chunk is checked; the database's refusal becomes the archive's error."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DataError

from players.bulk import CopyBehind, copy_behind
from tournaments.services.club_archive.tables import ArchiveError, Table


class TableWriter:
    def __init__(self, table: Table, behind: CopyBehind, *, kept_aside: bool) -> None:
        self.table = table
        self.behind = behind
        #: The rows are taken but not written here (memberships: an owner or invitations).
        self.kept_aside = kept_aside
        self._held: Callable[[], None] | None = None

    def hold_rows(self, values: list[Any]) -> None:
        """A chunk's rows (a list of values each), sent by the next ``send``."""
        if values and not self.kept_aside:
            self._held = lambda: self.behind.write(values)

    def hold_columns(self, columns: list[list[Any]], count: int) -> None:
        """A chunk's rows kept as columns, sent by the next ``send``."""
        if count and not self.kept_aside:
            self._held = lambda: self.behind.write_columns(columns)

    def send(self) -> None:
        """The chunk held, written behind the caller (the connection is the writer's until
        ``wait``)."""
        held, self._held = self._held, None
        if held is not None:
            with self._refused():
                held()

    def wait(self) -> None:
        """The last chunk sent is written: the connection is the caller's."""
        with self._refused():
            self.behind.wait()

    @contextmanager
    def _refused(self) -> Iterator[None]:
        try:
            yield
        except ValueError as error:  # a column the file lacks and the table needs
            raise ArchiveError(f"{self.table.label}: {error}") from None
        except DataError as error:
            # A value the server's own input refused (the text of a date or a Decimal it
            # parses itself: fast.server_parses); nothing is written.
            raise ArchiveError(f"{self.table.label}: {first_line(error)}") from None


@contextmanager
def table_writer(table: Table, columns: list[str], *, kept_aside: bool) -> Iterator[TableWriter]:
    """A ``TableWriter`` whose last chunk is written when the block ends."""
    with copy_behind(table.model, columns) as behind:
        writer = TableWriter(table, behind, kept_aside=kept_aside)
        yield writer
        writer.wait()
        writer.send()
        writer.wait()


def first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
