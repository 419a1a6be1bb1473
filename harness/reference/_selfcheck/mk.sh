#!/bin/sh
# mk.sh TASK SOLUTION MODULE : scaffold one reference solution (pyproject, app/, symlink)
set -e
d="$(dirname "$0")/../$1/$2"
mkdir -p "$d/app"
printf '[project]\nname = "%s"\nversion = "0.1.0"\n' "$(echo "$1-$2" | tr _ -)" > "$d/pyproject.toml"
: > "$d/app/__init__.py"
ln -sfn ../task_scenarios.py "$d/crash_scenarios.py"
