"""What one run is asked to do. The campaign builds it; a runner hands it to the run, through
a fork or, for a fresh interpreter (child.py), as JSON on its stdin."""
from dataclasses import asdict, dataclass, fields
from typing import Optional


@dataclass
class RunSpec:
    scenario: str  # the scenario's name
    root: str  # the repository root
    folder: str  # the scenario folder: the state the run changes
    control: str  # the harness's folder for this run: report, heartbeat, log, outbox, temp folder
    outbox: str
    report: str
    heartbeat: Optional[str]
    log: str
    mode: str  # verdicts.Mode
    clock: float  # the simulated clock at the start
    seed: int
    limits: dict
    crash: Optional[dict] = None  # the crash point with its `kind`; None for a normal run
    seed_only: bool = False  # the seeding run: the scenario function only, the target is not called
    record_usage: bool = False
    scenario_file: Optional[str] = None  # for a fresh interpreter, which loads the scenario itself

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "RunSpec":
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
