"""requirements/lock.txt read as pip reads it: one ``name==version`` a line, each perhaps
with an environment marker (the lock is universal, so a package may have one pin per range
of Python versions). The checks of tests/deploy/test_lock.py, as functions of text and
mappings, so that they can be shown to fail on a made-up lock."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "lock.txt"
# The folders scripts/test installs in editable mode: pip builds them, the lock leaves them out.
OWN_PROJECTS = (
    ROOT,
    ROOT / "tests" / "example_plugin",
    ROOT / "examples" / "tic_tac_toe",
    ROOT / "examples" / "liars_dice",
)
# pip's own tools, which a virtual environment starts with.
INSTALLERS = frozenset({"pip", "setuptools"})


@dataclass(frozen=True)
class Pin:
    name: NormalizedName
    version: str
    marker: Marker | None

    def applies(self, environment: Mapping[str, str] | None = None) -> bool:
        """Whether pip installing here (or in ``environment``) follows this pin."""
        return self.marker is None or self.marker.evaluate(dict(environment or {}))


def read_lock(text: str) -> list[Pin]:
    """The pins of a constraints file. A line pip would refuse as a constraint (extras, a
    URL, an editable, anything but one exact version) raises ValueError."""
    pins = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            raise ValueError(f"line {number}: an option, not a pin: {raw!r}")
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        if requirement.extras or requirement.url or len(specifiers) != 1:
            raise ValueError(f"line {number}: not one exact version: {raw!r}")
        (specifier,) = specifiers
        if specifier.operator != "==" or "*" in specifier.version:
            raise ValueError(f"line {number}: not one exact version: {raw!r}")
        pins.append(Pin(canonicalize_name(requirement.name), specifier.version, requirement.marker))
    return pins


def pinned_here(
    pins: Iterable[Pin], environment: Mapping[str, str] | None = None
) -> dict[NormalizedName, str]:
    """The version the lock picks for each package in this environment."""
    chosen: dict[NormalizedName, str] = {}
    for pin in pins:
        if pin.applies(environment):
            if pin.name in chosen and chosen[pin.name] != pin.version:
                raise ValueError(f"{pin.name}: two pins apply ({chosen[pin.name]}, {pin.version})")
            chosen[pin.name] = pin.version
    return chosen


def own_project_names() -> frozenset[NormalizedName]:
    """The names of this repository's own packages (the service and the example games)."""
    names = set()
    for folder in OWN_PROJECTS:
        project = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["project"]
        names.add(canonicalize_name(project["name"]))
    return frozenset(names)


def unlocked(
    installed: Mapping[str, str], pins: Iterable[Pin], skip: Iterable[str] = ()
) -> list[str]:
    """Each installed package (name to version) that the lock does not pin to that very
    version, in words; empty when the installation is the lock's."""
    chosen = pinned_here(pins)
    skipped = {canonicalize_name(n) for n in skip} | INSTALLERS
    found = []
    for name, version in sorted(installed.items()):
        key = canonicalize_name(name)
        if key in skipped:
            continue
        if key not in chosen:
            found.append(f"{name} {version} is installed but not in the lock")
        elif chosen[key] != version:
            found.append(f"{name} {version} is installed, the lock says {chosen[key]}")
    return found


def ranges_missed(requirements: Iterable[str], pins: Iterable[Pin]) -> list[str]:
    """Each dependency (a PEP 508 string of pyproject.toml) whose range leaves out a version
    the lock pins for it, or which the lock does not pin although it applies here."""
    pins = list(pins)
    chosen = pinned_here(pins)
    found = []
    for text in requirements:
        requirement = Requirement(text)
        key = canonicalize_name(requirement.name)
        versions = {p.version for p in pins if p.name == key}
        applies = requirement.marker is None or requirement.marker.evaluate({"extra": ""})
        if applies and key not in chosen:
            found.append(f"{text}: the lock does not pin {requirement.name}")
        for version in sorted(versions):
            if not requirement.specifier.contains(version, prereleases=True):
                found.append(f"{text}: the lock pins {requirement.name} {version}")
    return found


def upper_bound(requirement: str) -> str | None:
    """The version a requirement's range stays below, if any."""
    bounds = [s.version for s in Requirement(requirement).specifier if s.operator in ("<", "<=")]
    return min(bounds, key=Version, default=None)
