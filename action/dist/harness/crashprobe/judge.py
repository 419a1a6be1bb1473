"""The generic oracle of the contract: no per-function checker.

Values that differ between two normal runs on their own (ids from the clock,
random tokens) are found by calibration and compared by their shape only.
"""
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from .state import State, Table
from .verdicts import Outcome

_VOLATILE_TOKEN = re.compile(r"[0-9a-fA-F]{8,}|[0-9a-zA-Z_-]{16,}|\d+")


def shape(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return "#num"
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return _VOLATILE_TOKEN.sub("#", str(value))


_NAME_TOKENS = re.compile(r"[/._-]|[^/._-]+")
VARIES = "*"


def name_tokens(name: str) -> Tuple[str, ...]:
    """A file's relative path cut into its parts and the separators between them."""
    return tuple(_NAME_TOKENS.findall(name))


@dataclass(frozen=True)
class NamePattern:
    """The names of files two normal runs name differently: the parts that varied are `*`."""
    tokens: Tuple[str, ...]

    def matches(self, tokens: Tuple[str, ...]) -> bool:
        return len(tokens) == len(self.tokens) and all(p == VARIES or p == t for p, t in zip(self.tokens, tokens))

    def __str__(self) -> str:
        return "".join(self.tokens)


@dataclass
class Masks:
    columns: Set[Tuple[str, str, str]] = field(default_factory=set)
    files: Set[str] = field(default_factory=set)
    names: Set[NamePattern] = field(default_factory=set)
    email_fields: Set[str] = field(default_factory=set)
    notes: List[str] = field(default_factory=list)
    # Per masked column, the patterns its text values follow (a random file name `b6/71/2fac….val`):
    # a value that follows one compares as the pattern, as a file's name does.
    values: Dict[Tuple[str, str, str], Set[NamePattern]] = field(default_factory=dict)

    def merge(self, other: "Masks") -> "Masks":
        values = {k: set(v) for k, v in self.values.items()}
        for k, v in other.values.items():
            values.setdefault(k, set()).update(v)
        return Masks(
            self.columns | other.columns,
            self.files | other.files,
            self.names | other.names,
            self.email_fields | other.email_fields,
            self.notes + other.notes,
            values,
        )

    def cell(self, column: Tuple[str, str, str], value):
        """A masked column's value as it is compared: its pattern when it follows one, else its shape."""
        if isinstance(value, str) and column in self.values:
            pattern = _matching(self.values[column], value)
            if pattern is not None:
                return str(pattern)
        return shape(value)

    def file_key(self, name: str) -> str:
        pattern = _matching(self.names, name) if self.names else None
        return str(pattern) if pattern is not None else name


def _matching(patterns: Set[NamePattern], text: str) -> Optional[NamePattern]:
    tokens = name_tokens(text)
    for pattern in sorted(patterns, key=str):
        if pattern.matches(tokens):
            return pattern
    return None


def _name_patterns(first: Set[str], second: Set[str]) -> Tuple[Set[NamePattern], bool]:
    """Patterns for the names only one of two normal runs has: names alike but for some
    parts (a random folder, a token, a time stamp) pair up, and those parts vary.
    Returns the patterns and whether every such name found its pair."""
    only_first, only_second = sorted(first - second), sorted(second - first)
    groups: Dict[tuple, Tuple[List[tuple], List[tuple]]] = {}
    for names, side in ((only_first, 0), (only_second, 1)):
        for name in names:
            tokens = name_tokens(name)
            skeleton = tuple(t if _is_separator(t) else "" for t in tokens)
            groups.setdefault(skeleton, ([], []))[side].append(tokens)
    patterns: Set[NamePattern] = set()
    paired = True
    for a_side, b_side in groups.values():
        if len(a_side) != len(b_side):
            paired = False
            continue
        columns = list(zip(*(a_side + b_side)))
        varies = [len(set(column)) > 1 for column in columns]
        base = a_side[0]
        patterns.add(NamePattern(tuple(VARIES if v else t for t, v in zip(base, varies))))
    return patterns, paired


def _value_patterns(first: list, second: list) -> Set[NamePattern]:
    """Patterns for the text values of a column that vary between two normal runs, paired as
    file names are; only the patterns with a part that stays (a separator, `.val`): a pattern
    that is all `*` says nothing the shape does not."""
    texts = [{v for v in values if isinstance(v, str)} for values in (first, second)]
    patterns, _ = _name_patterns(texts[0], texts[1])
    return {p for p in patterns if any(t != VARIES for t in p.tokens)}


def _is_separator(token: str) -> bool:
    return token in ("/", ".", "_", "-")


def calibrate(first: State, second: State) -> Masks:
    """Compare two normal runs from the same start, at different clocks and seeds."""
    masks = Masks()
    for db in first.dbs.keys() & second.dbs.keys():
        for name in first.dbs[db].keys() & second.dbs[db].keys():
            a, b = first.dbs[db][name], second.dbs[db][name]
            if a.columns != b.columns:
                continue
            if len(a.rows) != len(b.rows):
                masks.notes.append(f"{db}:{name} has a different number of rows in two normal runs")
                continue
            for index, column in enumerate(a.columns):
                a_values, b_values = [r[index] for r in a.rows], [r[index] for r in b.rows]
                if sorted(map(repr, a_values)) != sorted(map(repr, b_values)):
                    masks.columns.add((db, name, column))
                    patterns = _value_patterns(a_values, b_values)
                    if patterns:
                        masks.values[(db, name, column)] = patterns
    if set(first.files) != set(second.files):
        masks.names, paired = _name_patterns(set(first.files), set(second.files))
        if not paired:
            masks.notes.append("two normal runs leave different files")
    second_by_key = {masks.file_key(n): c for n, c in second.files.items()}
    for name, content in first.files.items():
        other = second_by_key.get(masks.file_key(name))
        if other is not None and other != content:
            masks.files.add(masks.file_key(name))
    for a, b in zip(first.emails, second.emails):
        for key in a.keys() | b.keys():
            if a.get(key) != b.get(key):
                masks.email_fields.add(key)
    return masks


def _texts(state: State) -> str:
    parts = []
    for tables in state.dbs.values():
        for table in tables.values():
            for row in table.rows:
                parts.extend(v for v in row if isinstance(v, str))
    return "\0".join(parts)


def orphans(state: State, before: State, normal: State, masks: Optional["Masks"] = None) -> Set[str]:
    """Files that make no state half-updated: leftovers in neither reference state, and
    files of a kind a database row names in a reference state (by the same name, or by a
    name of the same random pattern) that no row of this state names."""
    key = masks.file_key if masks else (lambda name: name)
    result = set()
    known = {key(name) for name in before.files} | {key(name) for name in normal.files}
    texts = _texts(state) if state.dbs else ""
    reference_texts = _texts(before) + "\0" + _texts(normal) if state.dbs else ""
    named_kinds = {key(name) for name in list(before.files) + list(normal.files)
                   if state.dbs and _base(name) in reference_texts}
    for name in state.files:
        if key(name) not in known:
            result.add(name)
        elif state.dbs and key(name) in named_kinds and _base(name) not in texts:
            result.add(name)
    return result


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def canonical(state: State, masks: Masks, drop: Set[str] = frozenset()):
    dbs = {}
    for db, tables in state.dbs.items():
        out = {}
        for name, table in tables.items():
            masked = [i for i, c in enumerate(table.columns) if (db, name, c) in masks.columns]
            rows = [tuple(masks.cell((db, name, table.columns[i]), v) if i in masked else v for i, v in enumerate(r))
                    for r in table.rows]
            out[name] = (table.columns, sorted(map(repr, rows)))
        dbs[db] = out
    files = sorted(
        (masks.file_key(name), repr(shape(content) if masks.file_key(name) in masks.files else content))
        for name, content in state.files.items()
        if name not in drop
    )
    emails = sorted(
        repr(sorted((k, shape(v) if k in masks.email_fields else v) for k, v in e.items())) for e in state.emails
    )
    return dbs, files, emails


def _without_new_empty_tables(state: State, before: State) -> State:
    """A table (or database) the crash created but left empty holds no data: a library that
    makes its schema on first use is not half-updated by a crash right after that."""
    dbs = {}
    for db, tables in state.dbs.items():
        kept = {name: table for name, table in tables.items()
                if table.rows or name in before.dbs.get(db, {})}
        if kept or db in before.dbs:
            dbs[db] = kept
    return State(files=state.files, dbs=dbs, emails=state.emails)


def half_updated(after_crash: State, before: State, normal: State, masks: Masks) -> bool:
    dropped = orphans(after_crash, before, normal, masks)
    seen = canonical(_without_new_empty_tables(after_crash, before), masks, dropped)
    return seen != canonical(before, masks) and seen != canonical(normal, masks)


def _number(value) -> Optional[float]:
    if isinstance(value, bool):
        return None
    return value if isinstance(value, (int, float)) else None


def _keyed(table: Table) -> Optional[Dict[tuple, tuple]]:
    if not table.pk:
        return None
    index = [table.columns.index(c) for c in table.pk]
    keyed = {}
    for row in table.rows:
        keyed[tuple(row[i] for i in index)] = row
    return keyed if len(keyed) == len(table.rows) else None


class Effects(NamedTuple):
    """Where a state has more of some effect than the normal run leaves (done again), and where less."""
    more: List[str]
    less: List[str]


def compare_effects(after: State, normal: State, before: State, masks: Masks) -> Effects:
    """Where `after` has more of some effect than the normal run, and where less."""
    more: List[str] = []
    less: List[str] = []
    for db in normal.dbs.keys() | after.dbs.keys():
        n_tables, a_tables = normal.dbs.get(db, {}), after.dbs.get(db)
        if a_tables is None:
            less.append(f"database {db} is missing")
            continue
        for name in n_tables.keys() | a_tables.keys():
            n, a = n_tables.get(name), a_tables.get(name)
            if n is None:
                more.append(f"table {name} exists only after the re-run")
                continue
            if a is None or a.columns != n.columns:
                less.append(f"table {name} does not have the normal run's columns")
                continue
            rows = _compare_rows(db, name, a, n, before.dbs.get(db, {}).get(name), masks)
            more += rows.more
            less += rows.less
    a_emails = Counter(canonical(State(emails=after.emails), masks)[2])
    n_emails = Counter(canonical(State(emails=normal.emails), masks)[2])
    if a_emails - n_emails:
        more.append(f"{sum((a_emails - n_emails).values())} email(s) sent again")
    if n_emails - a_emails:
        less.append(f"{sum((n_emails - a_emails).values())} email(s) never sent")
    dropped = orphans(after, before, normal, masks)
    a_files: Dict[str, List[bytes]] = {}
    n_files: Dict[str, List[bytes]] = {}
    for files, into in ((after.files, a_files), (normal.files, n_files)):
        for name, content in files.items():
            if files is after.files and name in dropped:
                continue
            into.setdefault(masks.file_key(name), []).append(content)
    b_files = {masks.file_key(name): content for name, content in before.files.items()}
    consumes = bool(b_files.keys() - n_files.keys())  # one run takes files away (a file queue's get)
    for key in sorted(a_files.keys() | n_files.keys()):
        a_list, n_list = a_files.get(key, []), n_files.get(key, [])
        if len(a_list) > len(n_list):
            more.append(f"file {key} was written again")
        elif len(a_list) < len(n_list) and consumes and key in b_files:
            more.append(f"file {key} taken away as well")
        elif len(a_list) < len(n_list):
            less.append(f"file {key} is missing")
        elif len(a_list) == 1:
            file = _compare_file(key, a_list[0], n_list[0], b_files.get(key), masks)
            more += file.more
            less += file.less
        elif sorted(map(shape, a_list)) != sorted(map(shape, n_list)):
            less.append(f"files {key} differ from the normal run's")
    return Effects(more, less)


_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")


def _numbers_moved_further(a: bytes, n: bytes, b: Optional[bytes]) -> Optional[bool]:
    """For files alike but for their numbers (a counter or a total kept in JSON, INI,
    CSV): True when some number moved further from where it started than one run
    moves it, False when it moved less, None when the files are not alike that way."""
    if b is None or _NUMBER.sub(b"#", a) != _NUMBER.sub(b"#", n) or _NUMBER.sub(b"#", b) != _NUMBER.sub(b"#", n):
        return None
    further = False
    for av, nv, bv in zip(_NUMBER.findall(a), _NUMBER.findall(n), _NUMBER.findall(b)):
        moved, expected = float(av) - float(bv), float(nv) - float(bv)
        if moved == expected:
            continue
        if expected == 0 or (moved * expected > 0 and abs(moved) > abs(expected)):
            further = True
        else:
            return False
    return further


def _compare_file(key: str, a: bytes, n: bytes, b: Optional[bytes], masks: Masks) -> Effects:
    if key in masks.files:
        if shape(a) == shape(n):
            return Effects([], [])
        differs = [f"file {key} differs"]
        return Effects(differs, []) if len(a) > len(n) else Effects([], differs)
    if a == n:
        return Effects([], [])
    numbers = _numbers_moved_further(a, n, b)
    if numbers is True:
        return Effects([f"file {key}: a number moved further than one run moves it"], [])
    if numbers is None and (a.startswith(n) or len(a) > len(n) and not (Counter(n.splitlines()) - Counter(a.splitlines()))):
        return Effects([f"file {key} was appended to again"], [])
    return Effects([], [f"file {key} does not hold the normal run's content"])


def _compare_rows(db, name, a: Table, n: Table, b: Optional[Table], masks: Masks) -> Effects:
    more: List[str] = []
    less: List[str] = []
    masked = {i for i, c in enumerate(n.columns) if (db, name, c) in masks.columns}
    pk_masked = any(n.columns.index(c) in masked for c in n.pk)
    a_keyed, n_keyed = _keyed(a), _keyed(n)
    b_same = b is not None and b.columns == n.columns
    if a_keyed is None or n_keyed is None or pk_masked:
        def norm(rows):
            return Counter(repr(tuple(masks.cell((db, name, n.columns[i]), v) if i in masked else v
                                      for i, v in enumerate(r))) for r in rows)
        a_rows, n_rows = norm(a.rows), norm(n.rows)
        b_rows = norm(b.rows) if b_same else Counter()
        extra, missing = a_rows - n_rows, n_rows - a_rows
        consumed_again = rows_consumed_again(missing, b_rows, n_rows)
        if len(a.rows) > len(n.rows):
            more.append(f"{name}: {len(a.rows) - len(n.rows)} extra row(s)")
        elif consumed_again:
            more.append(f"{name}: {consumed_again} more row(s) taken out than one run takes")
        elif len(a.rows) < len(n.rows):
            less.append(f"{name}: {len(n.rows) - len(a.rows)} row(s) missing")
        elif extra or missing:
            less.append(f"{name}: rows differ from the normal run")
        return Effects(more, less)
    b_keyed = _keyed(b) if b_same else None
    for key in a_keyed.keys() - n_keyed.keys():
        more.append(f"{name}: extra row {key!r}")
    consumes = b_keyed is not None and bool(b_keyed.keys() - n_keyed.keys())
    for key in n_keyed.keys() - a_keyed.keys():
        if consumes and key in b_keyed:
            # One run takes rows out of this table (a queue's get, a pop): taking out another is doing it twice.
            more.append(f"{name}: row {key!r} taken out as well")
        else:
            less.append(f"{name}: row {key!r} missing")
    for key in a_keyed.keys() & n_keyed.keys():
        a_row, n_row = a_keyed[key], n_keyed[key]
        for i, column in enumerate(n.columns):
            av, nv = a_row[i], n_row[i]
            if i in masked:
                av, nv = masks.cell((db, name, column), av), masks.cell((db, name, column), nv)
            if av == nv:
                continue
            an, nn = _number(av), _number(nv)
            base = _number(b_keyed[key][i]) if b_keyed and key in b_keyed else None
            if an is not None and nn is not None and base is not None:
                moved, expected = an - base, nn - base
                if expected == 0 or (moved * expected > 0 and abs(moved) > abs(expected)):
                    more.append(f"{name}.{column} of {key!r} moved to {av!r}, normal run: {nv!r}")
                    continue
            less.append(f"{name}.{column} of {key!r} is {av!r}, normal run: {nv!r}")
    return Effects(more, less)


def rows_consumed_again(missing: Counter, before: Counter, normal: Counter) -> int:
    """How many of the rows missing after the re-run were there before and kept by one run,
    in a table that one run takes rows out of; 0 when the table is not consumed from."""
    if not missing or not (before - normal):
        return 0
    return sum((missing & before).values()) if sum((missing & before).values()) == sum(missing.values()) else 0


class RerunOutcome(NamedTuple):
    outcome: str  # verdicts.Outcome
    reasons: List[str]  # what differs from the normal run, the effects done again first


def outcome(after_rerun: State, normal: State, before: State, masks: Masks) -> RerunOutcome:
    dropped = orphans(after_rerun, before, normal, masks)
    if canonical(after_rerun, masks, dropped) == canonical(normal, masks):
        return RerunOutcome(Outcome.RECOVERED, [])
    more, less = compare_effects(after_rerun, normal, before, masks)
    if more:
        return RerunOutcome(Outcome.DOUBLE_APPLIED, more + less)
    if less:
        return RerunOutcome(Outcome.HALF_DONE, less)
    return RerunOutcome(Outcome.RECOVERED, [])


EMPTY = "(empty)"
ABSENT = "(absent)"
PRESENT = "(present)"


def _short(value):
    if isinstance(value, bytes):
        if not value:
            return EMPTY
        text = value.decode("utf-8", "replace")
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, str) and not value:
        return EMPTY
    return value


def _row_cells(db: str, name: str, columns, key, rows: Dict[str, Optional[tuple]], masks: Masks) -> List[dict]:
    """The cells of one row that differ between the states. Where the row is absent in some
    states, the columns that tell the present rows apart are shown (absent elsewhere); when
    the present rows agree, one `(row)` cell shows the row, so no two different values print alike."""
    label = "/".join(map(str, key))
    present = {k: r for k, r in rows.items() if r is not None}
    cells = []
    for i, column in enumerate(columns):
        values = {k: (r[i] if i < len(r) else None) for k, r in present.items()}
        comparable = {k: masks.cell((db, name, column), v) if (db, name, column) in masks.columns else v
                      for k, v in values.items()}
        if len(set(map(repr, comparable.values()))) > 1:
            cells.append({"db": db, "table": name, "key": label, "column": column,
                          "values": {k: ABSENT if rows[k] is None else _short(values[k]) for k in rows}})
    if not cells and len(present) < len(rows):
        cells.append({"db": db, "table": name, "key": label, "column": "(row)",
                      "values": {k: ABSENT if r is None else _short(_row_text(r)) for k, r in rows.items()}})
    return cells


def _file_value(contents: List[bytes]):
    if not contents:
        return ABSENT
    return _short(contents[0]) if len(contents) == 1 else f"({len(contents)} files)"


def _row_text(row: tuple) -> str:
    text = repr(tuple(row))
    return text if len(text) <= 60 else text[:57] + "..."


def evidence(states: Dict[str, Optional[State]], masks: Masks, limit: int = 12) -> List[dict]:
    """The cells that differ between the states, keyed by table, row key and column."""
    names = [k for k, v in states.items() if v is not None]
    cells: List[dict] = []
    reference = states["normal"]
    for db in sorted(reference.dbs):
        for name in sorted(reference.dbs[db]):
            columns = reference.dbs[db][name].columns
            keyed = {k: (_keyed(s.dbs.get(db, {}).get(name)) if s.dbs.get(db, {}).get(name) else {}) for k, s in states.items() if s}
            if any(v is None for v in keyed.values()):
                counts = {k: len(s.dbs.get(db, {}).get(name).rows) if s.dbs.get(db, {}).get(name) else ABSENT for k, s in states.items() if s}
                if len(set(map(repr, counts.values()))) > 1:
                    cells.append({"db": db, "table": name, "key": "*", "column": "(row count)", "values": counts})
                continue
            keys = sorted(set().union(*[set(v) for v in keyed.values()]), key=repr)
            for key in keys:
                cells.extend(_row_cells(db, name, columns, key, {k: keyed[k].get(key) for k in names}, masks))
    # Files by name, or by the pattern of their random name: a value file the re-run names anew is
    # one line of evidence, not one line per random name.
    by_key = {k: {} for k in names}
    for k in names:
        for file, content in states[k].files.items():
            by_key[k].setdefault(masks.file_key(file), []).append(content)
    for file in sorted(set().union(*[set(by_key[k]) for k in names])):
        values = {k: _file_value(by_key[k].get(file, [])) for k in names}
        if len(set(map(repr, values.values()))) > 1:
            cells.append({"file": file, "values": values})
    email_counts = {k: len(states[k].emails) for k in names}
    if len(set(email_counts.values())) > 1:
        cells.append({"emails": "sent", "values": email_counts})
    return sorted(cells, key=_telling_first)[:limit]


def _telling_first(cell: dict) -> int:
    """A reader takes the first cell as the example: after a crash, one that is neither the
    state before nor the normal one (what half-updated means), then one the re-run got wrong."""
    values = cell["values"]
    if "after_crash" in values and values["after_crash"] not in (values.get("before"), values.get("normal")):
        return 0
    if "after_rerun" in values and values["after_rerun"] != values.get("normal"):
        return 1
    return 2
