"""Reading the tables of a doc that the docs tests compare with the code."""

from __future__ import annotations


def table_after(text: str, name: str, doc: str) -> list[list[str]]:
    """The body rows (cells stripped) of the table right after ``<!-- table: name -->`` in
    ``text`` (the file ``doc``); fails, naming the doc, when the marker or the table is missing."""
    marker = f"<!-- table: {name} -->"
    assert marker in text, f"{doc} lacks the marker {marker}"
    rows = []
    for line in text.split(marker, 1)[1].lstrip("\n").splitlines():
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    assert len(rows) > 2, f"no table after {marker} in {doc}"
    return rows[2:]  # past the header and the separator
