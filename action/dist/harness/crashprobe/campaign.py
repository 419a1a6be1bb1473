"""Runs one scenario through the contract's campaign and classifies its target."""
import os
import shutil
import signal
from typing import Callable, Dict, List, NamedTuple, Optional

from . import judge
from .classify import classify
from .judge import RerunOutcome
from .reports import RunReport, Status
from .rerun_cache import RerunCache, start_key
from .results import Failure, ModeJudgement, ModeResult, ScenarioVerdict, Usage
from .run_spec import RunSpec
from .state import State, StateView, capture
from .verdicts import KINDS, MODES, Crash, Mode, Outcome

FIRST_RUN_CLOCK = 1_768_478_400.0  # 2026-01-15 12:00:00 UTC
RERUN_DELAY = 600.0  # the operator re-runs ten minutes later
# Each kind of run draws its own random numbers: a value the seeding run makes through the
# library never collides with one the first run makes, and a crashed run's random names are
# not the normal run's, so a torn file it leaves is never taken for the normal one.
SEEDING_SEED = 20_261_106
FIRST_RUN_SEED = 20_261_107
RERUN_SEED = 20_261_108
CALIBRATION_SEED = 20_261_109
CRASH_SEED = 20_261_110


class ScenarioError(Exception):
    pass


class _CheckTimeout(Exception):
    pass


def _check_timed_out(signum, frame):
    raise _CheckTimeout()


class Selection(NamedTuple):
    points: List[dict]
    capped: bool  # there were more than the limit


def select_points(trace: List[dict], limit: int) -> Selection:
    """First, middle and last repetition of each call site, in order of first hit; at most `limit`.
    A repetition the trace does not list (a bulk call records only some) takes the place of
    the nearest earlier one that it does."""
    reps: Dict[tuple, int] = {}
    position: Dict[tuple, int] = {}
    sites: Dict[tuple, dict] = {}
    for index, hit in enumerate(trace):
        site = _site(hit)
        sites.setdefault(site, {k: v for k, v in hit.items() if k != "repetition"})
        reps[site] = max(reps.get(site, 0), hit["repetition"])
        position.setdefault((site, hit["repetition"]), index)
    points = []
    for site, n in reps.items():
        for rep in sorted({1, (n + 1) // 2, n}):
            known = max((r for (s, r) in position if s == site and r <= rep), default=1)
            points.append((position[(site, known)], rep, dict(sites[site], repetition=rep)))
    points.sort(key=lambda p: (p[0], p[1]))
    ordered = [p[2] for p in points]
    return Selection(ordered[:limit], len(ordered) > limit)


def _site(hit: dict) -> tuple:
    return (hit["path"], hit["line"], hit["call"], hit.get("statement"), tuple(hit.get("via") or ()))


class Campaign:
    def __init__(self, runner, work: str, root: str, limits: dict, max_points: int, progress: Callable,
                 reuse_reruns: bool = True):
        self.runner = runner
        self.work = work
        self.root = root
        self.limits = limits
        self.max_points = max_points
        self.progress = progress
        self.folder = os.path.join(work, "scenario")
        self.template = os.path.join(work, "template")
        self.control = os.path.join(work, "control")
        self.scratch = os.path.join(work, "scratch")
        self.usage = Usage()
        self._checked: Dict[bytes, Optional[str]] = {}
        self._reruns = RerunCache() if reuse_reruns else None  # off: every crash point gets its own re-run

    # -- folders -------------------------------------------------------------------------
    def _fresh_control(self) -> None:
        shutil.rmtree(self.control, ignore_errors=True)
        os.makedirs(self.control, mode=0o777)

    def _fresh_folder(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.copytree(self.template, self.folder, symlinks=True)

    @property
    def outbox(self) -> str:
        return os.path.join(self.control, "emails.jsonl")

    def _spec(self, scenario, mode: str, clock: float, seed: int, crash=None, seed_only=False,
              record_usage=False) -> RunSpec:
        return RunSpec(
            scenario=scenario.name, root=self.root, folder=self.folder, control=self.control,
            outbox=self.outbox, report=os.path.join(self.control, "report.json"),
            heartbeat=os.path.join(self.control, "heartbeat"),
            log=os.path.join(self.control, "output.log"), mode=mode, clock=clock, seed=seed,
            crash=crash, seed_only=seed_only, limits=self.limits, record_usage=record_usage,
        )

    def _run(self, spec: RunSpec) -> RunReport:
        report = self.runner.run(spec)
        if report.status == Status.SCENARIO_RAISED:
            raise ScenarioError(f"the scenario function raised: {report.error}")
        if report.status == Status.HARNESS_ERROR:
            raise ScenarioError(f"the harness failed inside a run: {report.error}")
        if report.status == Status.HANG and spec.seed_only:
            raise ScenarioError(f"the scenario function hangs while seeding: {report.error}")
        return report

    def _first_run(self, scenario, mode, crash=None, record_usage=False) -> RunReport:
        self._fresh_folder()
        self._fresh_control()
        seed = FIRST_RUN_SEED if crash is None else CRASH_SEED
        return self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK, seed, crash, record_usage=record_usage))

    def _rerun(self, scenario, mode) -> RunReport:
        return self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK + RERUN_DELAY, RERUN_SEED))

    def _rerun_from(self, scenario, mode, start: State):
        """The re-run from `start` (the state on disk now) and the state it leaves: run, or taken
        from an earlier re-run that started from the same state (rerun_cache.py). A reused one's
        check result is in `_checked` already (it was checked when it ran); the folder on disk is
        then not its state, and nothing reads the folder before the next run refreshes it."""
        if self._reruns is None:
            report = self._rerun(scenario, mode)
            return report, self._state()
        key = start_key(mode, start, self.folder, os.path.join(self.control, "tmp"))
        seen = self._reruns.get(key)
        if seen is not None and (scenario.check is None or seen.after.digest in self._checked):
            return seen.report, seen.after
        report = self._rerun(scenario, mode)
        after = self._state()
        self._reruns.put(key, report, after)
        return report, after

    def _state(self) -> State:
        return capture(self.folder, self.outbox)

    def _check(self, scenario, state: State) -> Optional[str]:
        """Runs the scenario's `check=fn` on the current state, just captured as `state`. It reads
        copies of the databases only, so it runs here, under an alarm, rather than in a fork of its
        own. A state it has judged before (same digest of all it can see) gets the same answer."""
        if scenario.check is None:
            return None
        if state.digest is not None and state.digest in self._checked:
            return self._checked[state.digest]
        result = self._run_check(scenario)
        if state.digest is not None:
            self._checked[state.digest] = result
        return result

    def _run_check(self, scenario) -> Optional[str]:
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch)
        view = StateView(self.folder, self.outbox, self.scratch)
        previous = signal.signal(signal.SIGALRM, _check_timed_out)
        signal.alarm(int(self.limits.get("wall_seconds", 20)))
        try:
            scenario.check(view)
            return None
        except AssertionError as exc:
            return "check failed: " + (str(exc) or "AssertionError")
        except _CheckTimeout:
            return "check did not finish within the wall-clock limit"
        except Exception as exc:
            return f"check raised {type(exc).__name__}: {exc}"
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
            view.close()

    @staticmethod
    def _refused(report: RunReport, which: str) -> str:
        return (f"{which}: the harness refused a write to {report.refused} (a crash run may only write inside its "
                f"scenario folder and its temp folder; give the target a path from world.path())")

    # -- the campaign --------------------------------------------------------------------
    def judge(self, scenario) -> ScenarioVerdict:
        shutil.rmtree(self.template, ignore_errors=True)
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        self._fresh_control()
        self._run(self._spec(scenario, Mode.DEFAULT, FIRST_RUN_CLOCK, SEEDING_SEED, seed_only=True))
        os.rename(self.folder, self.template)
        before = capture(self.template, os.path.join(self.template, "\0none"))

        judged: Dict[str, ModeJudgement] = {}
        for mode in MODES:
            judged[mode] = self._judge_mode(scenario, mode, before, judged.get(Mode.DEFAULT))
        return classify(scenario, judged, self.usage)

    def _judge_mode(self, scenario, mode: str, before: State, default: Optional[ModeJudgement]) -> ModeJudgement:
        """`default` is the default mode's judgement when `mode` is another: its normal state
        is the one this mode's normal run must leave too."""
        first = self._first_run(scenario, mode, record_usage=True)
        if first.refused:
            raise ScenarioError("not judged: " + self._refused(first, f"the normal run in {mode} mode"))
        if first.status == Status.HANG:
            return ModeJudgement(ModeResult(works=False, error=f"the normal run hangs: {first.error}"))
        if not first.ok:
            return ModeJudgement(ModeResult(works=False, error=f"the normal run fails: {first.error}"))
        self.usage.add(first)
        normal = self._state()
        check_error = self._check(scenario, normal)
        rerun, after_normal_rerun = self._rerun_from(scenario, mode, normal)
        rerun_check = self._check(scenario, after_normal_rerun)

        self._fresh_folder()
        self._fresh_control()
        second = self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK + RERUN_DELAY, CALIBRATION_SEED))
        masks = judge.calibrate(normal, self._state()) if second.ok else judge.Masks()
        result = ModeResult(works=True, calibration_notes=list(masks.notes))
        judgement = ModeJudgement(result, normal=normal, masks=masks)
        if check_error:
            result.works, result.error = False, f"the normal run breaks the scenario's check: {check_error}"
            return judgement
        default_normal = default.normal if default is not None else None
        if mode != Mode.DEFAULT and default_normal is not None:
            both = masks.merge(default.masks)
            if judge.canonical(normal, both) != judge.canonical(default_normal, both):
                result.works = False
                result.error = "the normal run leaves a different state than in the default mode"
                result.difference = judge.evidence({"default": default_normal, "normal": normal}, both)
                return judgement
        if mode != Mode.DEFAULT and default_normal is None:
            result.works, result.error = False, "not judged: the code does not work in the default mode"
            return judgement

        repeat, _ = self._rerun_outcome(rerun, after_normal_rerun, normal, before, masks, rerun_check)
        if repeat == Outcome.HARNESS_REFUSED:
            judgement.notes.append(self._refused(rerun, f"{mode} mode, the normal run repeated"))
        elif repeat != Outcome.RECOVERED:
            judgement.failures.append(Failure(
                mode=mode, crash=Crash.NONE, point=None, outcome=repeat, half_updated=False,
                detail="a normal run, repeated",
                error=rerun.error if repeat in (Outcome.RERUN_FAILS, Outcome.RERUN_HANGS) else None,
                evidence=judge.evidence({"before": before, "after_run": normal,
                                         "after_rerun": after_normal_rerun, "normal": normal}, masks)))

        points, capped = select_points(first.trace, self.max_points)
        result.crash_points = len(points)
        result.crash_points_capped = capped
        for index, point in enumerate(points):
            for kind in KINDS:
                self.progress(scenario.name, mode, index * 2 + (kind == Crash.HARD) + 1, len(points) * 2)
                failure = self._crash_and_rerun(scenario, mode, point, kind, before, normal, masks)
                if failure:
                    result.half_updated = result.half_updated or failure.half_updated
                    result.orphan_left = result.orphan_left or bool(failure.orphaned_files)
                    judgement.failures.append(failure)
        return judgement

    def _rerun_outcome(self, rerun: RunReport, after: State, normal: State, before: State, masks,
                       check_error: Optional[str]) -> RerunOutcome:
        if rerun.refused:
            return RerunOutcome(Outcome.HARNESS_REFUSED, [self._refused(rerun, "the re-run")])
        if rerun.status == Status.HANG:
            return RerunOutcome(Outcome.RERUN_HANGS, [rerun.error or "the re-run hangs"])
        if not rerun.ok:
            return RerunOutcome(Outcome.RERUN_FAILS, [rerun.error or rerun.status])
        judged = judge.outcome(after, normal, before, masks)
        if check_error and judged.outcome == Outcome.RECOVERED:
            return RerunOutcome(Outcome.HALF_DONE, [check_error])
        return judged

    def _crash_and_rerun(self, scenario, mode, point, kind, before, normal, masks) -> Optional[Failure]:
        """The failure a crash at `point` leads to, None when the re-run recovers from it cleanly.
        A failure's `orphaned_files` are the files the re-run left behind."""
        crashed = self._first_run(scenario, mode, crash=dict(point, kind=kind))
        if not crashed.reached_crash:
            if crashed.refused:
                note = self._refused(crashed, "the crash run")
            elif crashed.status in (Status.LIMIT, Status.HANG):
                note = crashed.error
            else:
                note = "the run did not reach this crash point again"
            return Failure(mode=mode, crash=kind, point=point, outcome=Outcome.NOT_REACHED, half_updated=False,
                           detail=note)
        after_crash = self._state()
        crash_check = self._check(scenario, after_crash)
        rerun, after_rerun = self._rerun_from(scenario, mode, after_crash)
        rerun_check = self._check(scenario, after_rerun)
        result, reasons = self._rerun_outcome(rerun, after_rerun, normal, before, masks, rerun_check)
        if result == Outcome.HARNESS_REFUSED:
            return Failure(mode=mode, crash=kind, point=point, outcome=Outcome.NOT_REACHED, half_updated=False,
                           detail=reasons[0])
        if scenario.resumable:
            half = result != Outcome.RECOVERED
        else:
            half = bool(crash_check) or judge.half_updated(after_crash, before, normal, masks)
        orphaned = judge.orphans(after_rerun, before, normal, masks)
        if not half and result == Outcome.RECOVERED and not orphaned:
            return None
        if crashed.status == Status.HANG:
            reasons = reasons + ["the crashed run hung after the crash and was ended"]
        return Failure(
            mode=mode, crash=kind, point=point, outcome=result, half_updated=half,
            orphaned_files=sorted(orphaned),
            reasons=reasons[:5] + ([crash_check] if crash_check else []),
            error=rerun.error if result in (Outcome.RERUN_FAILS, Outcome.RERUN_HANGS) else None,
            evidence=judge.evidence({"before": before, "after_crash": after_crash, "after_rerun": after_rerun,
                                     "normal": normal}, masks),
        )
