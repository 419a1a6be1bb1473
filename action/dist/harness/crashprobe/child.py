"""Entry point of a run in a fresh interpreter (`--isolation spawn`)."""
import json
import sys

from . import patches
from .run_spec import RunSpec


def main() -> None:
    spec = RunSpec.from_json(json.loads(sys.stdin.read()))
    patches.install()
    from . import loader, run

    scenarios = {s.name: s for s in loader.load_scenarios(spec.scenario_file, spec.root)}
    scenario = scenarios[spec.scenario]
    target = None if spec.seed_only else loader.load_target(scenario, spec.root, spec.scenario_file)
    run.execute(spec, scenario, target)


if __name__ == "__main__":
    main()
