"""docs/plugins.md is true: its tutorial's game is examples/tic_tac_toe to the byte, the
changes the tutorial makes to it (its diffs and new files) make a package that installs,
loads, passes the tutorial's own tests and answers as the page says, every excerpt of a
file of the repository is in that file, every listing parses, and the messages it shows
are the ones the service prints."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "plugins.md"
EXAMPLE = REPO / "examples" / "tic_tac_toe"
TUTORIAL = "tic_tac_toe/"  # the tutorial's folder: examples/tic_tac_toe in the repository
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclasses.dataclass(frozen=True)
class Block:
    lang: str
    body: str

    @property
    def path(self) -> str | None:
        """The file a listing names on its first line (``# path`` or ``// path``)."""
        first = self.body.split("\n", 1)[0]
        m = re.fullmatch(r"(?:#|//) ([\w./-]+\.(?:py|js|toml))", first)
        return m.group(1) if m else None

    @property
    def text(self) -> str:
        """The listing without the line naming its file."""
        return self.body.split("\n", 1)[1] if self.path else self.body


def blocks(lang: str | None = None) -> list[Block]:
    found = [Block(m.group(1), m.group(2)) for m in FENCE.finditer(DOC.read_text("utf-8"))]
    return [b for b in found if lang is None or b.lang == lang]


def apply_diff(text: str, diff: str) -> str:
    """A diff's hunks applied by their text: each hunk's old lines (context and ``-``) are
    found once in ``text`` and replaced by its new lines (context and ``+``)."""
    hunks = diff.split("\n@@\n")[1:]
    assert hunks, "a diff of the doc has no hunk"
    for hunk in hunks:
        old, new = [], []
        for line in hunk.rstrip("\n").split("\n"):
            sign, rest = line[:1], line[1:]
            if sign in (" ", "-"):
                old.append(rest)
            if sign in (" ", "+"):
                new.append(rest)
            assert sign in (" ", "-", "+"), f"not a diff line: {line!r}"
        before, after = "\n".join(old) + "\n", "\n".join(new) + "\n"
        assert text.count(before) == 1, f"a hunk of the doc does not apply:\n{before}"
        text = text.replace(before, after)
    return text


def test_the_tutorial_game_is_the_example():
    toml, python = blocks("toml")[0], blocks("python")[0]
    assert toml.body == (EXAMPLE / "pyproject.toml").read_text("utf-8")
    module = EXAMPLE / "tablestate_tic_tac_toe" / "__init__.py"
    assert python.body == module.read_text("utf-8")


def test_every_python_listing_parses():
    for block in blocks("python"):
        ast.parse(block.body)


def test_every_excerpt_of_a_repository_file_is_in_it():
    excerpts = [b for b in blocks() if b.path and (REPO / b.path).is_file()]
    assert len(excerpts) >= 5
    for block in excerpts:
        lines = iter((REPO / block.path).read_text("utf-8").splitlines())
        for line in block.text.splitlines():
            if line.strip():
                assert line in lines, f"{block.path}: not there (or not in order): {line!r}"


def test_the_javascript_listing_is_a_module():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs node to check the doc's view module")
        pytest.skip("no node to check the doc's view module")
    for block in blocks("js"):
        done = subprocess.run(
            [node, "--input-type=module", "--check"], input=block.body, capture_output=True,
            text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr


def build_tutorial(root: Path) -> Path:
    """The tutorial's package as it ends, where Python finds it before the installed
    example: the example with the doc's diffs applied, the doc's new files, and the
    distribution's metadata with the doc's last table of entry points."""
    site = root / "site"
    shutil.copytree(EXAMPLE / "tablestate_tic_tac_toe", site / "tablestate_tic_tac_toe")
    init = site / "tablestate_tic_tac_toe" / "__init__.py"
    for block in blocks():
        if block.lang == "diff":
            assert block.body.startswith(f"--- {TUTORIAL}tablestate_tic_tac_toe/__init__.py\n")
            init.write_text(apply_diff(init.read_text("utf-8"), block.body), "utf-8")
        elif block.path and block.path.startswith(TUTORIAL):
            rel = block.path.removeprefix(TUTORIAL)
            if (EXAMPLE / rel).exists():
                continue  # the example's own file: compared above
            target = (site if rel.startswith("tablestate_") else root) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, "utf-8")
    tables = [tomllib.loads(b.body) for b in blocks("toml") if not b.path]
    points = [t["project"]["entry-points"]["tablestate"] for t in tables if "project" in t]
    assert all("tablestate_tic_tac_toe" in p["tic-tac-toe"] for p in points)
    dist = site / "tablestate_tic_tac_toe-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tablestate-tic-tac-toe\nVersion: 0.1.0\n"
    )
    lines = [f"{name} = {module}" for name, module in points[-1].items()]
    (dist / "entry_points.txt").write_text("[tablestate]\n" + "\n".join(lines) + "\n")
    return site


def run(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(site.parent)])}
    return subprocess.run(
        [sys.executable, "-c", code, str(site)], cwd=site.parent, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


PLAY = """
import importlib, sys, tablestate_tic_tac_toe as ttt
from tablestate import cli, webviews
from tablestate.engine.bots import choose
from tablestate.testing import GameDriver
assert ttt.__file__.startswith(sys.argv[1]), ttt.__file__  # the tutorial's, not the example
assert cli.main(["plugins"]) == 0
tests = importlib.import_module("tests.test_tic_tac_toe")
for name in dir(tests):
    if name.startswith("test_"):
        getattr(tests, name)()
d = GameDriver(ttt.GAME, 2)
for seat, (r, c) in [(0, (0, 0)), (1, (1, 0)), (0, (0, 1)), (1, (1, 1))]:
    d.move(seat, tests.mark(r, c))
assert choose(ttt.GAME, d.state, 0, "normal", d.rng, d.rules) == tests.mark(0, 2)
assert webviews.locate(ttt.GAME.web_view).module == "view.js"
print("played")
"""


def test_the_tutorial_builds_a_plugin_that_plays_as_the_doc_says(tmp_path: Path):
    site = build_tutorial(tmp_path)
    (tmp_path / "tests" / "__init__.py").touch()
    done = run(site, PLAY)
    assert done.returncode == 0, done.stderr[-3000:]
    listed = done.stdout.splitlines()
    assert listed[-1] == "played"
    shown = [line for b in blocks("") for line in b.body.splitlines() if "\tentry point of" in line]
    assert len(shown) == 2
    for line in shown:
        assert line in listed, (line, listed)


MISTAKES = {
    "legal move": (
        "return [Mark(r, c) for r in range(3)",
        "return [Mark(r + 1, c + 1) for r in range(3)",
    ),
    "view of a spectator": (
        "\n\n@hookimpl\n",
        "\nGAME = replace(GAME, view=lambda s, seat: {'board': [[int(bool(c)) for c in row] "
        "for row in s.board], 'seats': list(s.seats)})\n\n\n@hookimpl\n",
    ),
}


@pytest.mark.parametrize("where", MISTAKES)
def test_a_start_up_refusal_reads_as_the_doc_shows(tmp_path: Path, where: str):
    shown = [
        line
        for b in blocks("")
        for line in b.body.splitlines()
        if line.startswith("tablestate: plugin") and f": {where}" in line
    ]
    assert len(shown) == 1
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE / "tablestate_tic_tac_toe", site / "tablestate_tic_tac_toe")
    init = site / "tablestate_tic_tac_toe" / "__init__.py"
    old, new = MISTAKES[where]
    text = init.read_text("utf-8")
    assert text.count(old) == 1
    init.write_text(text.replace(old, new), "utf-8")
    done = run(site, "import sys; from tablestate import cli; sys.exit(cli.main(['plugins']))")
    assert done.returncode == 2
    assert done.stderr.strip() == shown[0]


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    found = set()
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_link_of_the_page_leads_somewhere():
    text = FENCE.sub("", DOC.read_text("utf-8"))
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(links) > 20
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        target, _, anchor = link.partition("#")
        path = (DOC.parent / target).resolve() if target else DOC
        assert path.exists(), link
        if anchor:
            assert anchor in anchors(path), link
