"""What a campaign finds: failures, each mode's result, and the scenario's verdict.

`to_json()` is the protocol's edge (src/core/crash/protocol.ts checks it with zod): the keys,
their order and which are left out when empty are part of the protocol, so they are written
out here rather than left to `asdict`.
"""
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Set

from .judge import Masks
from .reports import RunReport
from .state import State


@dataclass
class Failure:
    mode: str
    crash: str  # verdicts.Crash: soft, hard, or none (a normal run, repeated)
    point: Optional[dict]
    outcome: str  # verdicts.Outcome
    half_updated: bool
    evidence: List[dict] = field(default_factory=list)
    detail: Optional[str] = None
    error: Optional[str] = None
    orphaned_files: Optional[List[str]] = None  # set for crash runs: files no re-run removes
    reasons: Optional[List[str]] = None

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None or k in ("point", "error")}


@dataclass
class ModeResult:
    works: bool
    half_updated: bool = False
    crash_points: int = 0
    crash_points_capped: bool = False
    error: Optional[str] = None
    calibration_notes: List[str] = field(default_factory=list)
    difference: Optional[List[dict]] = None
    orphan_left: bool = False  # a crash left a file no re-run removes (not in the JSON)

    def to_json(self) -> dict:
        out = {"works": self.works, "half_updated": self.half_updated, "crash_points": self.crash_points}
        if self.crash_points_capped:
            out["crash_points_capped"] = True
        if self.error is not None:
            out["error"] = self.error
        if self.calibration_notes:
            out["calibration_notes"] = self.calibration_notes
        if self.difference is not None:
            out["difference"] = self.difference
        return out


@dataclass
class ModeJudgement:
    """One mode's campaign: its result and failures, and what the next mode is compared with."""
    result: ModeResult
    failures: List[Failure] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    normal: Optional[State] = None  # the state a normal run leaves; None when the normal run failed
    masks: Optional[Masks] = None  # what varies between two normal runs in this mode


@dataclass
class Usage:
    """What the normal runs used: repository files imported (with sha256), functions executed."""
    imports: Dict[str, str] = field(default_factory=dict)
    executed: Set[str] = field(default_factory=set)

    def add(self, report: RunReport) -> None:
        for item in report.imports:
            self.imports[item["path"]] = item["sha256"]
        self.executed.update(report.executed)

    def to_json(self) -> dict:
        return {"imports": [{"path": p, "sha256": self.imports[p]} for p in sorted(self.imports)],
                "executed": sorted(self.executed)}


@dataclass
class ScenarioVerdict:
    """A scenario's verdict: the protocol's `scenario` message, less what the server adds
    (type, file, line, harness_version, isolation)."""
    name: str
    target: str
    resumable: bool
    idempotent: bool
    scenario_class: str  # verdicts.ScenarioClass; `class` in the JSON
    fully_crash_safe: bool
    double_applies: bool
    modes: Dict[str, ModeResult]
    failures: List[Failure]  # the ones the protocol lists: in modes that work, crash points reached
    notes: List[str]
    usage: Usage

    def to_json(self) -> dict:
        return dict({
            "name": self.name, "target": self.target, "resumable": self.resumable,
            "idempotent": self.idempotent,
            "class": self.scenario_class, "fully_crash_safe": self.fully_crash_safe,
            "double_applies": self.double_applies,
            "modes": {m: r.to_json() for m, r in self.modes.items()},
            "failures": [f.to_json() for f in self.failures],
            "notes": self.notes,
        }, **self.usage.to_json())
