"""bench/peers/lib/capture_samples.js keeps the raw samples a peer loadgen summarizes.

A stand-in loadgen (a ``loadgen.js`` beside a ``../lib/stats.js``, the layout of the peers'
benchmark) runs with the preload, as run_all.sh runs the peers' loadgens.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "bench" / "peers" / "lib" / "capture_samples.js"
STATS = ROOT / "bench" / "peers" / "lib" / "stats.js"

LOADGEN = """
const S = require('../lib/stats');
const phase = process.argv[2];
const out = phase === 'C'
  ? { fanout: S.summarize([3, 1, 2]), mover: S.summarize([0.5, 0.25]) }
  : { latency: S.summarize([1.23456, 2]) };
console.log(JSON.stringify(out));
process.exit(Number(process.argv[3] || 0));
"""


def _run(tmp: Path, phase: str, rc: int = 0, with_dir: bool = True) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs node")
        pytest.skip("node is not installed")
    (tmp / "bgio").mkdir(exist_ok=True)
    (tmp / "lib").mkdir(exist_ok=True)
    shutil.copy(STATS, tmp / "lib" / "stats.js")
    (tmp / "bgio" / "loadgen.js").write_text(LOADGEN)
    env = {**os.environ, "NODE_OPTIONS": f"--require {CAPTURE}"}
    if with_dir:
        env["PEER_SAMPLES_DIR"] = str(tmp / "samples")
    else:
        env.pop("PEER_SAMPLES_DIR", None)
    cmd = [node, str(tmp / "bgio" / "loadgen.js"), phase, str(rc)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env, check=False)


def test_phases_samples_are_written_in_the_loadgen_format(tmp_path):
    assert _run(tmp_path, "A").returncode == 0
    assert _run(tmp_path, "C").returncode == 0
    files = {json.loads(f.read_text())["phase"]: json.loads(f.read_text())
             for f in (tmp_path / "samples").glob("bgio_*.json")}  # fmt: skip
    assert files["A"] == {"server": "bgio", "phase": "A", "latency": [1.235, 2]}
    assert files["C"] == {
        "server": "bgio",
        "phase": "C",
        "fanout": [3, 1, 2],
        "mover_latency": [0.5, 0.25],
    }


def test_nothing_written_without_a_folder_or_on_failure(tmp_path):
    done = _run(tmp_path, "A", with_dir=False)
    assert done.returncode == 0 and json.loads(done.stdout)["latency"]["n"] == 2
    assert _run(tmp_path, "A", rc=1).returncode == 1
    assert not (tmp_path / "samples").exists()
