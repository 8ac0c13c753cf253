"""The page's vendored graphql-ws is exactly the pinned npm release (web/package.json,
web/package-lock.json): the copy the README's command makes, unchanged."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "node"


def test_vendored_graphql_ws_is_the_pinned_release(node: str):
    web = ROOT / "web"
    pinned = json.loads((web / "package.json").read_text())["devDependencies"]["graphql-ws"]
    locked = json.loads((web / "package-lock.json").read_text())
    assert locked["packages"]["node_modules/graphql-ws"]["version"] == pinned
    # tests/node pins the same release; its npm ci'd copy is the reference.
    installed = NODE_DIR / "node_modules" / "graphql-ws"
    assert json.loads((installed / "package.json").read_text())["version"] == pinned
    vendored = web / "vendor" / "graphql-ws"
    for path in sorted(vendored.glob("*.js")):
        assert path.read_bytes() == (installed / "dist" / path.name).read_bytes(), path.name
    imports = (vendored / "client.js").read_text()
    for line in imports.splitlines():
        if line.startswith(("import ", "export {")) and " from " in line:
            target = line.split(" from ")[1].strip(" ';")
            assert (vendored / Path(target).name).is_file(), f"client.js imports {target}"
