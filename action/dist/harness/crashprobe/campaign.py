"""Runs one scenario through the contract's campaign and classifies its target."""
import os
import shutil
import signal
from typing import Callable, Dict, List, Optional

from . import judge
from .state import State, StateView, capture

FIRST_RUN_CLOCK = 1_768_478_400.0  # 2026-01-15 12:00:00 UTC
RERUN_DELAY = 600.0  # the operator re-runs ten minutes later
FIRST_RUN_SEED = 20_261_107
RERUN_SEED = 20_261_108
MODES = ("default", "autocommit")


class ScenarioError(Exception):
    pass


class _CheckTimeout(Exception):
    pass


def _check_timed_out(signum, frame):
    raise _CheckTimeout()


def select_points(trace: List[dict], limit: int):
    """First, middle and last repetition of each call site, in order of first hit; at most `limit`."""
    reps: Dict[tuple, int] = {}
    order: List[tuple] = []
    for hit in trace:
        key = (hit["path"], hit["line"], hit["call"])
        if key not in reps:
            order.append(key)
        reps[key] = max(reps.get(key, 0), hit["repetition"])
    points = []
    for key in order:
        n = reps[key]
        for rep in sorted({1, (n + 1) // 2, n}):
            points.append({"path": key[0], "line": key[1], "call": key[2], "repetition": rep})
    ordered = sorted(points, key=lambda p: next(i for i, h in enumerate(trace) if
                                               (h["path"], h["line"], h["call"], h["repetition"]) ==
                                               (p["path"], p["line"], p["call"], p["repetition"])))
    return ordered[:limit], len(ordered) > limit


class Campaign:
    def __init__(self, runner, work: str, root: str, limits: dict, max_points: int, progress: Callable):
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

    def _spec(self, scenario, mode: str, clock: float, seed: int, crash=None, seed_only=False) -> dict:
        return {
            "scenario": scenario.name, "root": self.root, "folder": self.folder, "control": self.control,
            "outbox": self.outbox, "report": os.path.join(self.control, "report.json"),
            "log": os.path.join(self.control, "output.log"), "mode": mode, "clock": clock, "seed": seed,
            "crash": crash, "seed_only": seed_only, "limits": self.limits,
        }

    def _run(self, spec: dict) -> dict:
        report_path = spec["report"]
        if os.path.exists(report_path):
            os.remove(report_path)
        report = self.runner.run(spec)
        if report.get("status") == "scenario-raised":
            raise ScenarioError(f"the scenario function raised: {report.get('error')}")
        if report.get("status") == "harness-error":
            raise ScenarioError(f"the harness failed inside a run: {report.get('error')}")
        return report

    def _first_run(self, scenario, mode, crash=None) -> dict:
        self._fresh_folder()
        self._fresh_control()
        return self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK, FIRST_RUN_SEED, crash))

    def _rerun(self, scenario, mode) -> dict:
        return self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK + RERUN_DELAY, RERUN_SEED))

    def _state(self) -> State:
        return capture(self.folder, self.outbox)

    def _check(self, scenario) -> Optional[str]:
        """Runs the scenario's `check=fn` on the current state. It reads copies of the
        databases only, so it runs here, under an alarm, rather than in a fork of its own."""
        if scenario.check is None:
            return None
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

    # -- the campaign --------------------------------------------------------------------
    def judge(self, scenario) -> dict:
        shutil.rmtree(self.template, ignore_errors=True)
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        self._fresh_control()
        self._run(self._spec(scenario, "default", FIRST_RUN_CLOCK, FIRST_RUN_SEED, seed_only=True))
        os.rename(self.folder, self.template)
        before = capture(self.template, os.path.join(self.template, "\0none"))

        modes: Dict[str, dict] = {}
        normals: Dict[str, State] = {}
        masks_of: Dict[str, judge.Masks] = {}
        failures: List[dict] = []
        orphan_left = False
        for mode in MODES:
            result = self._judge_mode(scenario, mode, before, normals, masks_of, failures)
            orphan_left = orphan_left or result.pop("_orphan_left")
            modes[mode] = result
        return self._classify(scenario, modes, failures, orphan_left)

    def _judge_mode(self, scenario, mode, before, normals, masks_of, failures) -> dict:
        first = self._first_run(scenario, mode)
        if first["status"] != "ok":
            return {"works": False, "half_updated": False, "crash_points": 0,
                    "error": f"the normal run fails: {first.get('error')}", "_orphan_left": False}
        normal = self._state()
        check_error = self._check(scenario)
        rerun = self._rerun(scenario, mode)
        after_normal_rerun = self._state()
        rerun_check = self._check(scenario)

        self._fresh_folder()
        self._fresh_control()
        second = self._run(self._spec(scenario, mode, FIRST_RUN_CLOCK + RERUN_DELAY, RERUN_SEED))
        masks = judge.calibrate(normal, self._state()) if second["status"] == "ok" else judge.Masks()
        masks_of[mode] = masks
        normals[mode] = normal
        result = {"works": True, "half_updated": False, "crash_points": 0}
        if masks.notes:
            result["calibration_notes"] = masks.notes
        if check_error:
            result.update(works=False, error=f"the normal run breaks the scenario's check: {check_error}")
            return dict(result, _orphan_left=False)
        if mode != "default" and "default" in normals and masks_of.get("default"):
            both = masks.merge(masks_of["default"])
            if judge.canonical(normal, both) != judge.canonical(normals["default"], both):
                cells = judge.evidence({"default": normals["default"], "normal": normal}, both)
                result.update(works=False, error="the normal run leaves a different state than in the default mode",
                              difference=cells)
                return dict(result, _orphan_left=False)
        if mode != "default" and "default" not in normals:
            result.update(works=False, error="not judged: the code does not work in the default mode")
            return dict(result, _orphan_left=False)

        repeat = "rerun-fails" if rerun["status"] != "ok" else judge.outcome(after_normal_rerun, normal, before, masks)[0]
        if rerun_check and repeat == "recovered":
            repeat = "half-done"
        if repeat != "recovered":
            failures.append({"mode": mode, "crash": "none", "point": None, "outcome": repeat, "half_updated": False,
                             "detail": "a normal run, repeated",
                             "error": rerun.get("error") if repeat == "rerun-fails" else None,
                             "evidence": judge.evidence({"before": before, "after_run": normal,
                                                         "after_rerun": after_normal_rerun, "normal": normal}, masks)})

        points, capped = select_points(first["trace"], self.max_points)
        result["crash_points"] = len(points)
        if capped:
            result["crash_points_capped"] = True
        orphan_left = False
        for index, point in enumerate(points):
            for kind in ("soft", "hard"):
                self.progress(scenario.name, mode, index * 2 + (kind == "hard") + 1, len(points) * 2)
                failure, orphan = self._crash_and_rerun(scenario, mode, point, kind, before, normal, masks)
                orphan_left = orphan_left or orphan
                if failure:
                    if failure["half_updated"]:
                        result["half_updated"] = True
                    failures.append(failure)
        return dict(result, _orphan_left=orphan_left)

    def _crash_and_rerun(self, scenario, mode, point, kind, before, normal, masks):
        crashed = self._first_run(scenario, mode, crash=dict(point, kind=kind))
        if not crashed.get("crashed") and crashed["status"] != "crashed-hard":
            note = crashed.get("error") if crashed["status"] == "limit" else "the run did not reach this crash point again"
            return {"mode": mode, "crash": kind, "point": point, "outcome": "not-reached", "half_updated": False,
                    "detail": note, "evidence": []}, False
        after_crash = self._state()
        crash_check = self._check(scenario)
        rerun = self._rerun(scenario, mode)
        after_rerun = self._state()
        rerun_check = self._check(scenario)
        if rerun["status"] != "ok":
            result, reasons = "rerun-fails", [rerun.get("error") or rerun["status"]]
        else:
            result, reasons = judge.outcome(after_rerun, normal, before, masks)
            if rerun_check and result == "recovered":
                result, reasons = "half-done", [rerun_check]
        if scenario.resumable:
            half = result != "recovered"
        else:
            half = bool(crash_check) or judge.half_updated(after_crash, before, normal, masks)
        orphan = bool(judge.orphans(after_rerun, before, normal, masks))
        if not half and result == "recovered" and not orphan:
            return None, False
        return {
            "mode": mode, "crash": kind, "point": point, "outcome": result, "half_updated": half,
            "orphaned_files": sorted(judge.orphans(after_rerun, before, normal, masks)),
            "reasons": reasons[:5] + ([crash_check] if crash_check else []),
            "error": rerun.get("error") if result == "rerun-fails" else None,
            "evidence": judge.evidence({"before": before, "after_crash": after_crash, "after_rerun": after_rerun,
                                        "normal": normal}, masks),
        }, orphan

    def _classify(self, scenario, modes, failures, orphan_left) -> dict:
        default, autocommit = modes["default"], modes["autocommit"]
        if not default["works"]:
            klass = "not_working"
        elif default["half_updated"]:
            klass = "unsafe"
        elif not autocommit["works"] or autocommit["half_updated"]:
            klass = "safe_by_accident"
        else:
            klass = "safe_by_design"
        working = {m for m, r in modes.items() if r["works"]}
        crash_outcomes = [f for f in failures if f["crash"] != "none" and f["mode"] in working]
        fully = (len(working) == 2 and not orphan_left
                 and all(f["outcome"] in ("recovered", "not-reached") for f in crash_outcomes))
        double = any(f["outcome"] == "double-applied" for f in failures if f["mode"] in working)
        counted = [f for f in failures if f["mode"] in working and f["outcome"] != "not-reached"]
        notes = [f for f in failures if f["outcome"] == "not-reached"]
        return {
            "name": scenario.name, "target": scenario.target, "resumable": scenario.resumable,
            "class": klass, "fully_crash_safe": fully, "double_applies": double,
            "modes": modes, "failures": counted, "notes": [f"{n['mode']} {n['crash']} crash at "
                                                          f"{n['point']['path']}:{n['point']['line']}: {n['detail']}"
                                                          for n in notes],
        }
