"""From each mode's judgement to the scenario's class: the contract's decision table."""
from typing import Dict

from .results import ModeJudgement, ScenarioVerdict, Usage
from .verdicts import Crash, Mode, Outcome, ScenarioClass


def classify(scenario, judged: Dict[str, ModeJudgement], usage: Usage) -> ScenarioVerdict:
    """`judged` holds both modes, the default mode first (the order of the JSON's `modes`)."""
    modes = {mode: judgement.result for mode, judgement in judged.items()}
    failures = [failure for judgement in judged.values() for failure in judgement.failures]
    default, autocommit = modes[Mode.DEFAULT], modes[Mode.AUTOCOMMIT]
    if not default.works:
        scenario_class = ScenarioClass.NOT_WORKING
    elif default.half_updated:
        scenario_class = ScenarioClass.UNSAFE
    elif not autocommit.works or autocommit.half_updated:
        scenario_class = ScenarioClass.SAFE_BY_ACCIDENT
    else:
        scenario_class = ScenarioClass.SAFE_BY_DESIGN
    working = {mode for mode, result in modes.items() if result.works}
    orphan_left = any(result.orphan_left for result in modes.values())
    crash_outcomes = [f for f in failures if f.crash != Crash.NONE and f.mode in working]
    fully = (len(working) == 2 and not orphan_left
             and all(f.outcome in (Outcome.RECOVERED, Outcome.NOT_REACHED) for f in crash_outcomes))
    double = any(f.outcome == Outcome.DOUBLE_APPLIED for f in failures if f.mode in working)
    counted = [f for f in failures if f.mode in working and f.outcome != Outcome.NOT_REACHED]
    not_reached = [f"{f.mode} {f.crash} crash at {f.point['path']}:{f.point['line']}: {f.detail}"
                   for f in failures if f.outcome == Outcome.NOT_REACHED]
    return ScenarioVerdict(
        name=scenario.name, target=scenario.target, resumable=scenario.resumable,
        idempotent=scenario.idempotent,
        scenario_class=scenario_class, fully_crash_safe=fully, double_applies=double,
        modes=modes, failures=counted,
        notes=not_reached + [note for judgement in judged.values() for note in judgement.notes],
        usage=usage,
    )
