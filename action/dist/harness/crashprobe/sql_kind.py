"""Which SQL statements change the database (crash points) and which only read."""
import re

_COMMENTS = re.compile(r"(--[^\n]*\n?)|(/\*.*?\*/)", re.S)
_WRITE_IN_WITH = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.I)
# Compiled here, in the server: a forked run starts with an empty `re` cache of its own otherwise.
_WORD = re.compile(r"[A-Za-z]+")


def first_word(sql: str) -> str:
    text = _COMMENTS.sub(" ", sql).strip()
    match = _WORD.match(text)
    return match.group(0).upper() if match else ""


def is_plain_read(sql: str) -> bool:
    word = first_word(sql)
    if word in ("SELECT", "VALUES", "EXPLAIN"):
        return True
    if word == "WITH":
        return not _WRITE_IN_WITH.search(_COMMENTS.sub(" ", sql))
    if word == "PRAGMA":
        return "=" not in sql
    return False



def split_script(script: str):
    """The statements of an `executescript` script, in order, each with its `;`."""
    import sqlite3

    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            parts = _split_complete(current)
            statements.extend(parts)
            current = ""
    if current.strip():
        statements.append(current.strip())
    return [s for s in statements if _COMMENTS.sub(" ", s).strip(" \t\r\n;")]


def _split_complete(text: str):
    """Splits text that holds one or more complete statements on the `;` that end them."""
    import sqlite3

    out, start = [], 0
    for index, char in enumerate(text):
        if char == ";" and sqlite3.complete_statement(text[start:index + 1]):
            out.append(text[start:index + 1].strip())
            start = index + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out
