"""The "row N" of a message: label and weight checks count the rows of the data they were given from 0, and a
caller that gave them a part of its data (a fold, a partition, joined files) says which row of its own it is."""

from __future__ import annotations

import re

__all__ = ["ROW", "renumber_rows"]

#: A row reference in a check's message: "row 7", "first at row 7".
ROW = re.compile(r"\brow (\d+)\b")


def renumber_rows(message: str, rows) -> str:
    """``message`` with each "row N" read as a row of ``rows`` (the caller's row numbers of the part that was
    checked) and written as ``rows[N]``; references outside ``rows`` are left as they are.

    >>> renumber_rows("label of row 1 is nan; row 5 too", [10, 12, 14])
    'label of row 12 is nan; row 5 too'
    """
    return ROW.sub(lambda m: f"row {rows[int(m.group(1))]}" if int(m.group(1)) < len(rows) else m.group(0), message)
