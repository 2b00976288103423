"""A replica's log and checkpoints, read from its files while the broker runs (or not).

Kafka appends record batches (magic v2, ``DefaultRecordBatch``) to
``<log.dir>/<topic>-<partition>/<base offset, 20 digits>.log``; a write is visible in the page
cache at once and a truncation shrinks the file, so reading the files gives each replica's log
as kmc keeps it: one ``(offset, leader epoch, value)`` per record (the batch's
``PartitionLeaderEpoch`` is the epoch kmc writes as ``r1e0``) and the log end offset. Only
complete batches are read (a batch being written is skipped). The checkpoints are small text
files: ``leader-epoch-checkpoint`` (the epoch cache: ``epoch start_offset`` lines),
``replication-offset-checkpoint`` (kmc's ``checkpointed_hw``) and
``recovery-point-offset-checkpoint`` (kmc's ``flushed_offset``, the power-loss emulation's
cut), each ``version``, ``count``, then entries.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

BATCH_HEADER = struct.Struct(">qiibIhiqqqhii")  # 61 bytes, DefaultRecordBatch v2
CONTROL_FLAG = 0x20
COMPRESSION_MASK = 0x07


@dataclass(frozen=True)
class LogRecord:
    offset: int
    leader_epoch: int
    value: bytes | None

    def as_dict(self) -> dict:
        return {"offset": self.offset, "epoch": self.leader_epoch,
                "value": None if self.value is None else self.value.decode("utf-8", "replace")}


@dataclass(frozen=True)
class Batch:
    base_offset: int
    last_offset: int
    leader_epoch: int
    position: int          # byte position in its segment file
    size: int              # bytes, header included
    segment: Path


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1), pos   # zig-zag
        shift += 7


def partition_dir(data_dir: Path, topic: str, partition: int = 0) -> Path:
    return Path(data_dir) / f"{topic}-{partition}"


def segments(pdir: Path) -> list[Path]:
    return sorted(Path(pdir).glob("*.log"))


def read_batches(pdir: Path) -> list[Batch]:
    out = []
    for seg in segments(pdir):
        try:
            buf = seg.read_bytes()
        except FileNotFoundError:
            continue
        pos = 0
        while pos + BATCH_HEADER.size <= len(buf):
            (base, length, epoch, magic, _crc, attrs, last_delta, *_rest) = BATCH_HEADER.unpack_from(buf, pos)
            total = 12 + length
            if length <= 0 or pos + total > len(buf) or magic != 2:
                break
            out.append(Batch(base, base + last_delta, epoch, pos, total, seg))
            pos += total
    return out


def read_log(pdir: Path) -> list[LogRecord]:
    """Every data record of the partition's segments, in offset order (control batches and
    compressed batches are left out: the harness writes neither)."""
    records = []
    for seg in segments(pdir):
        try:
            buf = seg.read_bytes()
        except FileNotFoundError:
            continue
        pos = 0
        while pos + BATCH_HEADER.size <= len(buf):
            (base, length, epoch, magic, _crc, attrs, _ld, _bt, _mt, _pid, _pe, _bs, count) = \
                BATCH_HEADER.unpack_from(buf, pos)
            total = 12 + length
            if length <= 0 or pos + total > len(buf) or magic != 2:
                break
            if not attrs & CONTROL_FLAG and not attrs & COMPRESSION_MASK:
                rpos = pos + BATCH_HEADER.size
                for _ in range(count):
                    _rlen, rpos = _varint(buf, rpos)
                    rpos += 1                                   # attributes
                    _ts, rpos = _varint(buf, rpos)
                    odelta, rpos = _varint(buf, rpos)
                    klen, rpos = _varint(buf, rpos)
                    rpos += max(klen, 0)
                    vlen, rpos = _varint(buf, rpos)
                    value = None if vlen < 0 else bytes(buf[rpos:rpos + vlen])
                    rpos += max(vlen, 0)
                    hcount, rpos = _varint(buf, rpos)
                    for _h in range(hcount):
                        hk, rpos = _varint(buf, rpos)
                        rpos += hk
                        hv, rpos = _varint(buf, rpos)
                        rpos += max(hv, 0)
                    records.append(LogRecord(base + odelta, epoch, value))
            pos += total
    return records


def log_end_offset(pdir: Path) -> int:
    batches = read_batches(pdir)
    return batches[-1].last_offset + 1 if batches else _base_of_first_segment(pdir)


def _base_of_first_segment(pdir: Path) -> int:
    segs = segments(pdir)
    return int(segs[-1].stem) if segs else 0


def read_checkpoint(path: Path) -> list[list[str]]:
    """The entries of a Kafka checkpoint file (after its version and count lines)."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return []
    return [line.split() for line in lines[2:] if line.strip()]


def epoch_cache(pdir: Path) -> list[tuple[int, int]]:
    return [(int(e), int(o)) for e, o in read_checkpoint(Path(pdir) / "leader-epoch-checkpoint")]


def offset_checkpoint(data_dir: Path, name: str, topic: str, partition: int = 0) -> int | None:
    """``replication-offset-checkpoint`` (HW) or ``recovery-point-offset-checkpoint`` for one
    partition, or None when the file has no entry for it yet."""
    for entry in read_checkpoint(Path(data_dir) / name):
        if len(entry) == 3 and entry[0] == topic and int(entry[1]) == partition:
            return int(entry[2])
    return None


def replica_snapshot(data_dir: Path, topic: str) -> dict:
    """What kmc's replica record holds, from the files: log, LEO, epoch cache, checkpoints."""
    pdir = partition_dir(data_dir, topic)
    log = read_log(pdir)
    return {
        "log": [r.as_dict() for r in log],
        "log_end_offset": log_end_offset(pdir),
        "epoch_cache": epoch_cache(pdir),
        "checkpointed_hw": offset_checkpoint(data_dir, "replication-offset-checkpoint", topic),
        "recovery_point": offset_checkpoint(data_dir, "recovery-point-offset-checkpoint", topic),
    }


def truncate_to(pdir: Path, offset: int) -> int:
    """Cut the partition's segments so that no record at or after ``offset`` remains (whole
    batches: a batch that straddles the cut goes), and delete the index files so that Kafka
    rebuilds them on recovery. Only on a stopped broker. Returns the bytes removed."""
    removed = 0
    for seg in segments(pdir):
        keep = 0
        for b in read_batches(pdir):
            if b.segment == seg and b.last_offset < offset:
                keep = max(keep, b.position + b.size)
        size = seg.stat().st_size
        if keep < size:
            with open(seg, "r+b") as f:
                f.truncate(keep)
            removed += size - keep
    for idx in list(Path(pdir).glob("*.index")) + list(Path(pdir).glob("*.timeindex")):
        idx.unlink()
    return removed
