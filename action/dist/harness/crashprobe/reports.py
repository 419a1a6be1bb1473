"""What a run reports back to the campaign, and the names of its statuses."""
from dataclasses import dataclass, field
from typing import List, Optional


class Status:
    OK = "ok"                      # the target returned
    RAISED = "raised"              # the target raised
    CRASHED_HARD = "crashed-hard"  # the run ended itself at its hard crash point
    HANG = "hang"                  # every thread blocked, nothing changing: the runner ended it
    LIMIT = "limit"                # wall clock, CPU, memory, a signal or no report at all
    REFUSED = "harness-refused"    # the target wrote where the harness does not let a run write
    SCENARIO_RAISED = "scenario-raised"
    HARNESS_ERROR = "harness-error"


@dataclass
class RunReport:
    status: str
    error: Optional[str] = None
    trace: List[dict] = field(default_factory=list)
    crashed: Optional[dict] = None
    seconds: float = 0.0
    refused: Optional[str] = None  # the path of a write the harness refused
    imports: List[dict] = field(default_factory=list)
    executed: List[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: dict) -> "RunReport":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known.setdefault("status", Status.LIMIT)
        report = cls(**known)
        report.trace = list(report.trace or [])
        return report

    @property
    def ok(self) -> bool:
        return self.status == Status.OK

    @property
    def reached_crash(self) -> bool:
        return self.crashed is not None or self.status == Status.CRASHED_HARD
