"""Getting a SparkContext for the Spark engine: quietly, with one-line errors, code shipped.

Everything that can go wrong before the first job is turned into a ``SparkEngineError`` (a
``ConfigError``, so the CLI prints one line and exits 2): pyspark not installed, no Java runtime,
a ``spark://`` master that does not answer, a cluster that never gives us an executor.

Noise: the JVM prints start-up chatter on stderr (log4j profile, native-hadoop warning, the
incubator-module warning, stage progress bars). While we launch the JVM ourselves, file
descriptor 2 points at a log file, so the JVM (and the Python workers it forks) write there for
their whole life; the log level is ERROR and the console progress bar is off. The log file's path
is named in error messages.

Temporary files: the log file (``$TMPDIR/kmc-spark-<pid>.log``) and the directory of the zip
shipped to the executors (``$TMPDIR/kmc-spark-code-*``) belong to this process. Both are removed
when the context kmc created stops, and at the latest when the process exits; the log is kept
only when a run failed (``keep_log``), and the error names it.

Memory: in local mode the executors are threads of the driver's JVM, so its heap holds every
task's batches; Spark's default (1 GiB) ran out on a 3-replica known-results row while the
machine was loaded (CI, 2026-11-27). kmc asks for a quarter of the machine's memory, between 1 and
4 GiB (``local_driver_memory``), unless the user set ``spark.driver.memory`` (``--conf``,
``SPARK_DRIVER_MEMORY``, ``PYSPARK_SUBMIT_ARGS`` or ``spark-defaults.conf``). If the JVM dies
anyway (an executor thread's OutOfMemoryError exits it), the dead context and its gateway are
forgotten, so the next run in the same process starts a new JVM instead of failing on the old one.

Code shipping: the project's packages (``model``, ``checker``, ``properties``, ``spark_explore``)
are zipped at run time and shipped with ``addFile``; ``boot.py`` puts them on each executor's path
(from a directory that does not change, so numba's compiled kernel is reused), so workers need
Python (the same minor version as the driver), pyspark, numpy and numba, nothing of kmc installed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

from model.errors import ConfigError
from spark_explore import boot

DEFAULT_MASTER = "local[*]"
EXECUTOR_WAIT_SECONDS = float(os.environ.get("KMC_SPARK_EXECUTOR_WAIT", "60"))
MASTER_CONNECT_TIMEOUT = 5.0

_shipped: dict = {}  # application id -> the code reference its executors install
_code_dirs: dict = {}  # application id -> the temporary directory of the zip shipped to it
_log_kept: list = []  # non-empty once a run failed: its log stays for the user to read


class SparkEngineError(ConfigError):
    """The Spark engine cannot run (set-up or cluster problem); the message says what to do."""


def java_available() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", "java").exists():
        return True
    return shutil.which("java") is not None


def spark_log_path() -> str:
    return os.path.join(tempfile.gettempdir(), f"kmc-spark-{os.getpid()}.log")


def keep_log() -> str:
    """Keep this process's Spark log (a run failed); returns its path, for the error message."""
    _log_kept.append(True)
    return spark_log_path()


def _remove_temporary_files(app: str | None = None) -> None:
    """Remove the code directories shipped (to ``app``, or to every application) and, unless a
    run failed, the log file."""
    for key in [app] if app is not None else list(_code_dirs):
        path = _code_dirs.pop(key, None)
        if path:
            shutil.rmtree(path, ignore_errors=True)
        _shipped.pop(key, None)
    if not _log_kept:
        with contextlib.suppress(OSError):
            os.unlink(spark_log_path())


atexit.register(_remove_temporary_files)  # a context kmc did not create ends with the process


def local_driver_memory() -> str:
    """The driver heap kmc asks for in local mode: a quarter of physical memory, 1 to 4 GiB."""
    try:
        total_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return "1g"
    return f"{max(1024, min(4096, total_mib // 4))}m"


def _user_set_driver_memory(conf) -> bool:
    if conf.contains("spark.driver.memory") or os.environ.get("SPARK_DRIVER_MEMORY"):
        return True
    if "driver-memory" in os.environ.get("PYSPARK_SUBMIT_ARGS", "") or \
            "spark.driver.memory" in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        return True
    for conf_dir in (os.environ.get("SPARK_CONF_DIR"),
                     os.path.join(os.environ.get("SPARK_HOME", ""), "conf") if os.environ.get("SPARK_HOME") else None):
        if conf_dir:
            with contextlib.suppress(OSError):
                for line in Path(conf_dir, "spark-defaults.conf").read_text().splitlines():
                    if line.strip().startswith("spark.driver.memory"):
                        return True
    return False


def jvm_exited() -> bool:
    """True when pyspark's gateway JVM (the one this process launched) is no longer running."""
    from pyspark import SparkContext

    proc = getattr(SparkContext._gateway, "proc", None)
    return proc is not None and proc.poll() is not None


def _forget_dead_jvm() -> None:
    """Drop pyspark's references to a JVM that has exited, so the next context launches one."""
    from pyspark import SparkContext

    with SparkContext._lock:
        SparkContext._active_spark_context = None
        SparkContext._gateway = None
        SparkContext._jvm = None


def check_master_answers(master: str) -> None:
    """For ``spark://host:port[,host:port]`` masters, fail fast unless one of them accepts a TCP
    connection (Spark itself would retry for about a minute before giving up)."""
    if not master.startswith("spark://"):
        return
    errors = []
    for hostport in master[len("spark://"):].split(","):
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit():
            raise SparkEngineError(f"malformed Spark master URL {master!r}; expected spark://HOST:PORT")
        try:
            with socket.create_connection((host, int(port)), timeout=MASTER_CONNECT_TIMEOUT):
                return
        except OSError as e:
            errors.append(f"{hostport}: {e.strerror or e}")
    raise SparkEngineError(
        f"Spark master {master} does not answer ({'; '.join(errors)}); start it or fix --spark-master"
    )


@contextlib.contextmanager
def _stderr_to(path: str):
    """Point fd 2 at ``path`` while the block runs (processes started meanwhile keep it)."""
    sys.stderr.flush()
    saved = os.dup(2)
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(log, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(log)


def get_context(master: str | None, partitions: int | None):
    """``(SparkContext, created)``: the active context if there is one (a test's shared session,
    or the one ``spark-submit`` made), else a new one for ``master`` (default ``local[*]``)."""
    try:
        from pyspark import SparkConf, SparkContext  # lazy on purpose: importing kmc must not load pyspark
    except ImportError:
        raise SparkEngineError("the Spark engine needs pyspark: pip install pyspark") from None
    active = SparkContext._active_spark_context
    if active is not None and jvm_exited():  # an earlier run killed the JVM: start afresh
        stop_context(active)
        active = None
    if active is not None:
        if master and master != active.master:
            raise SparkEngineError(
                f"this process already runs a SparkContext on {active.master}; "
                f"it cannot also use --spark-master {master}"
            )
        return active, False
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started us
    if not under_submit and not java_available():
        raise SparkEngineError(
            "the Spark engine needs a Java runtime (17 or 21) on PATH or in JAVA_HOME; "
            "install one (e.g. apt-get install openjdk-17-jre-headless)"
        )
    if master:
        check_master_answers(master)
    elif not under_submit:
        master = DEFAULT_MASTER
    python = os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # a user's setting wins
    if master and (master.startswith("local") or "127.0.0.1" in master or "localhost" in master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = SparkConf().setAppName("kmc")
    if master:
        conf.setMaster(master)
    conf.set("spark.ui.showConsoleProgress", "false")
    conf.set("spark.ui.enabled", conf.get("spark.ui.enabled", "false"))
    conf.set("spark.pyspark.python", python)
    if master and master.startswith("local") and not _user_set_driver_memory(conf):
        conf.set("spark.driver.memory", local_driver_memory())
    if partitions:
        conf.set("spark.default.parallelism", str(partitions))
        conf.set("spark.sql.shuffle.partitions", str(partitions))
    log = spark_log_path()
    try:
        with _stderr_to(log):
            sc = SparkContext(conf=conf)
            sc.setLogLevel("ERROR")
    except Exception as e:  # py4j / pyspark errors of every kind: one line
        raise SparkEngineError(f"Spark did not start: {first_line(e)} (Spark's log: {log})") from None
    try:
        if not sc.master.startswith("local"):
            _wait_for_executor(sc, log)
    except BaseException:
        stop_context(sc)
        raise
    return sc, True


def _wait_for_executor(sc, log: str) -> None:
    deadline = time.monotonic() + EXECUTOR_WAIT_SECONDS
    while time.monotonic() < deadline:
        if sc._jsc is None or sc._jsc.sc().isStopped():
            raise SparkEngineError(f"the Spark master {sc.master} refused the application (Spark's log: {log})")
        if sc._jsc.sc().getExecutorMemoryStatus().size() > 1:  # the driver counts as one
            return
        time.sleep(0.5)
    raise SparkEngineError(
        f"no executor joined from {sc.master} within {EXECUTOR_WAIT_SECONDS:.0f} s: does the cluster "
        f"have a worker with free cores and memory? (Spark's log: {log})"
    )


def stop_context(sc) -> None:
    """Stop a context kmc created, and remove its temporary files (``_remove_temporary_files``)."""
    app = None
    with contextlib.suppress(Exception):
        app = sc.applicationId
    with contextlib.suppress(Exception), _stderr_to(spark_log_path()):
        sc.stop()
    from pyspark import SparkContext

    if jvm_exited():
        _forget_dead_jvm()
    elif SparkContext._active_spark_context is sc:  # stop() raised half-way
        SparkContext._active_spark_context = None
    _remove_temporary_files(app)


def ship_code(sc) -> tuple:
    """Zip the project's packages and ship them to the executors (once per application);
    returns the code reference ``boot.install`` takes: (the driver's source root, the code's
    hash, the zip's name)."""
    from pyspark import cloudpickle  # lazy on purpose: pyspark loads only when a Spark run starts

    app = sc.applicationId
    if app in _shipped:
        return _shipped[app]
    cloudpickle.register_pickle_by_value(boot)  # runs before kmc is importable on an executor
    root = str(Path(__file__).resolve().parent.parent)
    out_dir = Path(tempfile.mkdtemp(prefix="kmc-spark-code-"))
    _code_dirs[app] = str(out_dir)
    digest = boot.code_hash(root)
    zip_path = out_dir / f"kmc-code-{digest}.zip"
    boot.write_zip(root, str(zip_path))
    sc.addFile(str(zip_path))
    _shipped[app] = (root, digest, zip_path.name)
    return _shipped[app]


def prepare_checkpoints(sc, uri: str | None) -> None:
    """Reliable checkpoints go to ``uri`` (if given); every RDD marked for a checkpoint (reliable
    or local) is written after the job that computes it, not only the job's last RDD."""
    if uri is not None:
        try:
            sc.setCheckpointDir(uri)
        except Exception as e:  # py4j errors of every kind: one line
            raise SparkEngineError(f"cannot use --checkpoint-dir {uri}: {first_line(e)}") from None
    sc.setLocalProperty("spark.checkpoint.checkpointAllMarkedAncestors", "true")


def memory_hint(message: str) -> str:
    """What to do about a JVM that ran out of heap, or nothing."""
    if "OutOfMemoryError" not in message:
        return ""
    return ("; give Spark more memory (local mode: SPARK_DRIVER_MEMORY=8g; a cluster: "
            "--conf spark.executor.memory=8g) or more --partitions")


def first_line(error: BaseException) -> str:
    """The most telling single line of a (possibly Java-wrapped) error."""
    text = str(error).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # a Python exception raised on an executor: its last line
        if ln.startswith(("Exception:", "RuntimeError:", "ValueError:", "KeyError:", "TypeError:",
                          "OverflowError:", "AttributeError:", "ImportError:", "ModuleNotFoundError:",
                          "NondeterministicModelError:", "MemoryError:", "ExecutorError:",
                          "spark_explore.tasks.ExecutorError:")):
            return ln
    for ln in lines:
        if ln.startswith("py4j.protocol.Py4JJavaError") or ln.startswith(": "):
            continue
        if "Exception:" in ln or "Error:" in ln:
            return ln[:300]
    return (lines[0] if lines else type(error).__name__)[:300]
