"""Checkpoint directories: where a Spark run leaves what it needs to be resumed after its driver dies.

``--checkpoint-dir DIR`` (a local path, or any URI Hadoop understands: ``hdfs://``, ``s3a://``,
...) holds, while a run goes on:

* ``rdds/<application>/rdd-<n>/``: Spark's reliable checkpoints of the run's RDDs (the visited
  fingerprints, the frontier, the parent index), written every few levels; they also cut the
  RDDs' lineage, so a lost executor is recomputed from there, not from level 0;
* ``kmc-level-<L>.json``: the driver's state after level ``L`` (counts, positions, violations so
  far, the configuration, and which RDD files hold the data), written once that level's RDD
  files are complete; the newest one is what ``--resume`` continues from.

Files go through Hadoop's ``FileSystem`` (Spark's JVM), so every scheme Spark can read works for
the driver's own files too. A finished run removes what it wrote; a run stopped by a limit (or
a crash) leaves it for ``--resume``.
"""

from __future__ import annotations

import json
import os
import re

from spark_explore.session import SparkEngineError, first_line

FORMAT = 1
_MANIFEST = re.compile(r"kmc-level-(\d+)\.json$")


def normalize(uri: str) -> str:
    """A local path made absolute (executors must find it); a URI with a scheme as it is."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri):
        return uri.rstrip("/")
    return os.path.abspath(uri)


class CheckpointDir:
    """One ``--checkpoint-dir``, read and written through Hadoop's ``FileSystem``."""

    def __init__(self, sc, uri: str) -> None:
        self.sc = sc
        self.uri = normalize(uri)
        jvm = sc._jvm
        self._path = jvm.org.apache.hadoop.fs.Path
        try:
            self.fs = self._path(self.uri).getFileSystem(sc._jsc.hadoopConfiguration())
            if not self.fs.exists(self._path(self.uri)):
                self.fs.mkdirs(self._path(self.uri))
        except Exception as e:  # py4j errors of every kind: one line
            raise SparkEngineError(f"cannot use --checkpoint-dir {uri}: {first_line(e)}") from None

    @property
    def rdd_dir(self) -> str:
        return f"{self.uri}/rdds"

    def levels(self) -> list:
        """The levels with a complete manifest, oldest first."""
        out = []
        for status in self.fs.listStatus(self._path(self.uri)):
            m = _MANIFEST.search(status.getPath().getName())
            if m:
                out.append(int(m.group(1)))
        return sorted(out)

    def latest(self) -> dict | None:
        """The newest manifest, or None."""
        levels = self.levels()
        if not levels:
            return None
        data = json.loads(self._read(self._manifest(levels[-1])))
        if data.get("format") != FORMAT:
            raise SparkEngineError(f"{self.uri} holds a checkpoint of another kmc version "
                                   f"(format {data.get('format')}); it cannot be resumed")
        return data

    def write(self, level: int, data: dict) -> None:
        """Write the manifest of ``level`` (under a temporary name, then renamed: complete or absent)."""
        final = self._manifest(level)
        temporary = f"{self.uri}/.tmp-{os.path.basename(final)}"
        out = self.fs.create(self._path(temporary), True)
        try:
            out.write(bytearray(json.dumps(dict(data, format=FORMAT), indent=1).encode()))
        finally:
            out.close()
        self.fs.delete(self._path(final), False)
        if not self.fs.rename(self._path(temporary), self._path(final)):
            raise SparkEngineError(f"could not write the checkpoint manifest {final}")

    def forget(self, level: int, files: list) -> None:
        """Delete an older manifest and RDD files no newer manifest needs."""
        self.fs.delete(self._path(self._manifest(level)), False)
        for uri in files:
            self.fs.delete(self._path(uri), True)

    def remove_all(self) -> None:
        """Delete everything a run wrote here (manifests and RDD files)."""
        for level in self.levels():
            self.fs.delete(self._path(self._manifest(level)), False)
        self.fs.delete(self._path(self.rdd_dir), True)

    def _manifest(self, level: int) -> str:
        return f"{self.uri}/kmc-level-{level:06d}.json"

    def _read(self, uri: str) -> str:
        stream = self.fs.open(self._path(uri))
        try:
            return self.sc._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
        finally:
            stream.close()
