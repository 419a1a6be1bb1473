"""The protocol's messages, one function each: the lines the server prints on stdout, which
src/core/crash/protocol.ts (harnessMessageSchema) parses. Key order is kept as the TypeScript
side has always seen it."""
from .results import ScenarioVerdict


def note(message: str) -> dict:
    return {"type": "note", "message": message}


def progress(scenario: str, mode: str, done: int, total: int) -> dict:
    return {"type": "progress", "scenario": scenario, "mode": mode, "done": done, "total": total}


def file_error(file: str, message: str) -> dict:
    """The scenario file as a whole cannot be loaded."""
    return {"type": "error", "file": file, "message": message}


def scenario_error(file: str, scenario: str, line: int, message: str) -> dict:
    return {"type": "error", "file": file, "scenario": scenario, "line": line, "message": message}


def scenario_verdict(verdict: ScenarioVerdict, file: str, line: int, harness_version: str, isolation: str) -> dict:
    return dict(verdict.to_json(), type="scenario", file=file, line=line, harness_version=harness_version,
                isolation=isolation)


def done(runs: int, seconds: float) -> dict:
    return {"type": "done", "runs": runs, "seconds": seconds}
