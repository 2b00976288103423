"""Which Kafka releases the harness runs, and their jars.

The versions are pinned here (one patch release per minor line); ``conformance/kafka/pom.xml``
is the one Maven build file, run with ``-Dkafka.version=V`` to copy that release's runtime
classpath (``kafka_2.13``, ``kafka-tools``, the log4j2 binding) into
``~/.cache/kmc/kafka/V/lib``. The copy goes to a temporary folder first and is renamed when
Maven succeeds, so a half-finished download never looks like a cache; a second run finds the
folder and starts without Maven.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

VERSIONS: dict[str, str] = {
    "4.0": "4.0.2",
    "4.1": "4.1.2",
    "4.4": "4.4.0",
}
"""kmc's ``--kafka-version`` (minor line) -> the Kafka release the harness runs for it."""

DEFAULT_VERSION = "4.1"
POM = Path(__file__).resolve().parent / "kafka" / "pom.xml"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
MAVEN_TIMEOUT_S = 600


class JarsUnavailable(Exception):
    """Java, Maven or Maven Central is missing: the reason is the message (one line)."""


@dataclass(frozen=True)
class KafkaRelease:
    line: str          # "4.1": what kmc's --kafka-version names
    version: str       # "4.1.2": the release whose jars run
    lib: Path          # the folder of jars: java -cp 'lib/*'


def cache_root() -> Path:
    """``$KMC_KAFKA_CACHE`` or ``~/.cache/kmc/kafka``."""
    env = os.environ.get("KMC_KAFKA_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kmc" / "kafka"


def resolve(spec: str) -> tuple[str, str]:
    """``"4.1"`` or ``"4.1.2"`` -> ``("4.1", "4.1.2")``; ValueError naming the known ones."""
    if spec in VERSIONS:
        return spec, VERSIONS[spec]
    for line, version in VERSIONS.items():
        if spec == version:
            return line, version
    known = ", ".join(f"{k} ({v})" for k, v in VERSIONS.items())
    raise ValueError(f"unknown Kafka version {spec!r}: the harness runs {known}")


def java_missing() -> str | None:
    """Why no broker can start here (no ``java`` on PATH), or None."""
    if shutil.which("java") is None:
        return "no java on PATH (Kafka 4.x brokers need Java 17 or later)"
    return None


def cached(spec: str) -> KafkaRelease | None:
    """The release's jars if they are in the cache already (no network), else None."""
    line, version = resolve(spec)
    lib = cache_root() / version / "lib"
    if (lib / f"kafka_2.13-{version}.jar").is_file():
        return KafkaRelease(line, version, lib)
    return None


def ensure(spec: str, *, log=None) -> KafkaRelease:
    """The release's jars, downloading them with Maven on the first call.

    Raises JarsUnavailable with a one-line reason when Java or Maven is missing or Maven fails
    (no network to Maven Central, most often)."""
    release = cached(spec)
    if release is not None:
        return release
    reason = java_missing()
    if reason:
        raise JarsUnavailable(reason)
    if shutil.which("mvn") is None:
        raise JarsUnavailable("no mvn on PATH (the jars come from Maven Central through Maven)")
    line, version = resolve(spec)
    target = cache_root() / version / "lib"
    tmp = target.with_name("lib.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    if log:
        log(f"downloading Kafka {version}'s jars from Maven Central into {target} (once)")
    cmd = ["mvn", "-q", "-B", "-f", str(POM), f"-Dkafka.version={version}", DEPENDENCY_PLUGIN,
           "-DincludeScope=runtime", f"-DoutputDirectory={tmp}"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=MAVEN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise JarsUnavailable(f"Maven did not fetch Kafka {version} within {MAVEN_TIMEOUT_S} s") from None
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise JarsUnavailable(f"Maven could not fetch Kafka {version} (Maven Central unreachable?): "
                              + " | ".join(tail))
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return KafkaRelease(line, version, target)


def main(argv: list[str]) -> int:
    """``python3 -m conformance.jars [4.0 4.1 ...]``: fetch the jars (standard library only, so
    CI can run it before kmc is installed). Exit 0 when every release is cached, 1 if not."""
    code = 0
    for spec in argv or [DEFAULT_VERSION]:
        try:
            release = ensure(spec, log=print)
            print(f"Kafka {release.version}: {release.lib}")
        except (JarsUnavailable, ValueError) as e:
            print(f"Kafka {spec}: {e}")
            code = 1
    return code


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
