"""Which SQL statements change the database (crash points) and which only read."""
import re

_COMMENTS = re.compile(r"(--[^\n]*\n?)|(/\*.*?\*/)", re.S)
_WRITE_IN_WITH = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.I)


def first_word(sql: str) -> str:
    text = _COMMENTS.sub(" ", sql).strip()
    match = re.match(r"[A-Za-z]+", text)
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

