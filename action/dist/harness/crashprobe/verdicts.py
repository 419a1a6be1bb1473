"""The names the protocol gives modes, crash kinds, outcomes and classes.

They are the strings src/core/crash/protocol.ts checks with zod (its `z.enum`s), so they
stay plain strings: they go into the JSON as they are.
"""


class Mode:
    DEFAULT = "default"        # sqlite3's default: an implicit transaction before a write
    AUTOCOMMIT = "autocommit"  # isolation_level=None: every statement commits on its own


MODES = (Mode.DEFAULT, Mode.AUTOCOMMIT)


class Crash:
    SOFT = "soft"  # the call raises the error it raises on failure
    HARD = "hard"  # the process ends at once
    NONE = "none"  # no crash: a normal run, repeated


KINDS = (Crash.SOFT, Crash.HARD)


class Outcome:
    """What the re-run after a crash (or a repeated normal run) did."""
    RECOVERED = "recovered"
    DOUBLE_APPLIED = "double-applied"
    HALF_DONE = "half-done"
    RERUN_FAILS = "rerun-fails"
    RERUN_HANGS = "rerun-hangs"
    NOT_REACHED = "not-reached"  # the crash run never got to its point: a note, not an outcome
    HARNESS_REFUSED = "harness-refused"  # a run wrote where the harness refuses: a note, not an outcome


class ScenarioClass:
    UNSAFE = "unsafe"                      # a crash in the default mode leaves a half-updated state
    SAFE_BY_ACCIDENT = "safe_by_accident"  # safe only in the default mode
    SAFE_BY_DESIGN = "safe_by_design"      # safe in both modes
    NOT_WORKING = "not_working"            # the normal run fails in the default mode
