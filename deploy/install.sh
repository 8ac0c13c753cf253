#!/bin/sh
# Install Tablestate from a source tree into a new virtual environment: the install steps
# of the container image (deploy/Dockerfile runs this script, and tests/deploy runs it
# too, so both take the very same steps).
#
#   deploy/install.sh [SOURCE_DIR] [VENV_DIR]
#
# SOURCE_DIR: a tree holding pyproject.toml, README.md, service/ and plugins/ (default: the
# checkout this script is in). VENV_DIR: where the environment goes (default:
# /opt/tablestate/venv). PYTHON names the interpreter (default: python3). pip's own
# settings apply (PIP_INDEX_URL, its cache). Every dependency is installed at the version
# of SOURCE_DIR/requirements/lock.txt (scripts/lock writes it) when the tree has one;
# PIP_CONSTRAINT, when set, names another constraints file instead (empty: none, the
# newest releases pyproject.toml admits). Only wheels are used for the dependencies, so no
# compiler is needed.
set -eu

SRC="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
VENV="${2:-/opt/tablestate/venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -f "$SRC/pyproject.toml" ]; then
  echo "install.sh: no pyproject.toml in $SRC" >&2
  exit 2
fi
if [ -e "$VENV" ]; then
  echo "install.sh: $VENV exists; give a new folder" >&2
  exit 2
fi

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
if [ -z "${PIP_CONSTRAINT+set}" ] && [ -f "$SRC/requirements/lock.txt" ]; then
  PIP_CONSTRAINT="$SRC/requirements/lock.txt"
  export PIP_CONSTRAINT
fi

"$PYTHON" -m venv "$VENV"
# Dependencies come as wheels only (a missing wheel fails here rather than pulling in a
# compiler); the project itself is built from SOURCE_DIR, not installed in editable mode.
"$VENV/bin/python" -m pip install --only-binary=:all: --no-binary=tablestate "$SRC"

# The games are found through entry points: fail the build now if none loads.
"$VENV/bin/tablestate" plugins >/dev/null
# Byte-compile now: the container's root filesystem is read-only at run time.
"$VENV/bin/python" -m compileall -q "$VENV/lib" >/dev/null
echo "install.sh: tablestate installed in $VENV"
