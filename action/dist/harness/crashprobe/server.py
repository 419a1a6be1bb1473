"""The harness's entry point: one process per scenario file.

Reads a JSON request on stdin and writes JSON lines on stdout (the protocol
that src/core/crash/protocol.ts checks with zod): `progress`, `scenario`,
`error`, and a final `done`. Everything the code under test prints goes to
stderr, so it can never corrupt the protocol.
"""
import json
import os
import signal
import sys
import time


def main() -> int:
    request = json.loads(sys.stdin.read())
    try:
        # A session of its own, without a terminal, once: each run then needs only a process group (run.py).
        os.setsid()
    except OSError:
        pass  # already a group leader (bubblewrap's --new-session made it one)
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def emit(message: dict) -> None:
        protocol.write(json.dumps(message, default=repr) + "\n")
        protocol.flush()

    from . import patches

    patches.install()
    from . import HARNESS_VERSION, loader, messages, sandbox
    from .campaign import Campaign, ScenarioError
    from .intercept_sqlite import OPEN_CONNECTIONS
    from .runners import CountingRunner, ForkRunner, SpawnRunner

    scenario_file = request["scenario_file"]
    root = request["root"]
    work = request["work"]
    os.makedirs(work, mode=0o711, exist_ok=True)
    limits = dict(request.get("limits") or {})
    limits.setdefault("wall_seconds", 20)
    harness_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    limits["drop_privileges"] = bool(request.get("drop_privileges", True))
    file_cpu = int(request.get("file_cpu_seconds") or 300)
    # Nothing from the repository has run yet: the limits and the uid drop come first.
    for note in sandbox.limit_server(limits, file_cpu, [sys.executable, root, harness_dir, work,
                                                        os.path.dirname(os.path.abspath(scenario_file))], work):
        emit(messages.note(note))
    # A scenario file or target whose import blocks ends the server (SIGALRM's default action);
    # one that spins ends at the CPU soft limit (SIGXCPU). The caller reports either per file.
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(max(30, 3 * int(limits["wall_seconds"])))
    started = time.monotonic()
    try:
        scenarios = loader.load_scenarios(scenario_file, root)
    except loader.LoadError as exc:
        signal.alarm(0)
        emit(messages.file_error(scenario_file, str(exc)))
        emit(messages.done(0, time.monotonic() - started))
        return 2
    index = {}
    failed = False
    for scenario in scenarios:
        try:
            index[scenario.name] = (scenario, loader.load_target(scenario, root, scenario_file))
        except loader.LoadError as exc:
            failed = True
            emit(messages.scenario_error(scenario_file, scenario.name, scenario.line, str(exc)))
    scenarios = [s for s in scenarios if s.name in index]
    signal.alarm(0)
    sandbox.imports_done(file_cpu)
    isolation = request.get("isolation", "fork")
    if isolation == "fork" and len(OPEN_CONNECTIONS):
        emit(messages.note("the target opens a SQLite connection when imported; "
                           "falling back to --isolation spawn for this file"))
        isolation = "spawn"
    runner = CountingRunner(ForkRunner(index) if isolation == "fork" else SpawnRunner(scenario_file, dict(os.environ)))

    def progress(name, mode, done, total):
        if done == total or done % 10 == 0:
            emit(messages.progress(name, mode, done, total))

    for position, scenario in enumerate(scenarios):
        campaign = Campaign(runner, os.path.join(work, f"s{position}"), root, limits,
                            int(request.get("max_points", 40)), progress,
                            reuse_reruns=bool(request.get("reuse_reruns", True)))
        try:
            verdict = campaign.judge(scenario)
        except ScenarioError as exc:
            failed = True
            emit(messages.scenario_error(scenario_file, scenario.name, scenario.line,
                                         f"{scenario_file}:{scenario.line}: scenario {scenario.name}: {exc}"))
            continue
        emit(messages.scenario_verdict(verdict, scenario_file, scenario.line, HARNESS_VERSION, isolation))
    emit(messages.done(runner.runs, time.monotonic() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
