"""``lowwater replay`` and ``lowwater explain`` from Python: the same engine,
checks and messages as the CLI; the report (the replay report's JSON
contract) as Python objects."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import _lowwater
from ._lowwater import LowwaterError
from ._time import DurationLike, seconds_to_ms

PathLike = Union[str, "os.PathLike[str]"]


class Obj(Mapping):
    """A JSON object of the report: fields as attributes and as keys."""

    __slots__ = ("_d",)

    def __init__(self, d: Dict[str, Any]) -> None:
        object.__setattr__(self, "_d", d)

    def __getattr__(self, name: str) -> Any:
        try:
            return _wrap(self._d[name])
        except KeyError:
            raise AttributeError(f"no field {name!r}; the fields are {', '.join(self._d)}") from None

    def __getitem__(self, name: str) -> Any:
        return _wrap(self._d[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def to_dict(self) -> Dict[str, Any]:
        return self._d

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._d!r})"


def _wrap(v: Any) -> Any:
    if isinstance(v, dict):
        return Obj(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


def _payload(text: Optional[str]) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


class Report(Obj):
    """The replay report (``totals``, ``partitions``, ``sinks``, ``stalls``,
    ``replay``: the fields of ``lowwater replay --report``), with the rows
    each sink received (``rows``: JSON rows decoded, other formats as text)
    and the notes the CLI prints (``notes``)."""

    __slots__ = ("rows", "records", "notes")

    def __init__(self, report: Dict[str, Any], records: Dict[str, List[Tuple[int, int, Optional[str], Optional[str]]]], notes: List[str]) -> None:
        super().__init__(report)
        #: Per sink table: every record as (partition, timestamp ms, key, value) text.
        object.__setattr__(self, "records", records)
        #: Per sink table: the rows, JSON decoded where the format is JSON.
        object.__setattr__(self, "rows", {t: [_payload(v) for (_, _, _, v) in rs] for t, rs in records.items()})
        object.__setattr__(self, "notes", notes)

    def late(self, table: Optional[str] = None) -> Dict[int, int]:
        """Late records dropped per partition (of ``table``, or of the only source)."""
        parts = self._d["partitions"]
        tables = {p["table"] for p in parts}
        if table is None and len(tables) > 1:
            raise ValueError(f"the job reads {', '.join(sorted(tables))}: name the table")
        return {p["partition"]: p["late_records_dropped"] for p in parts if table is None or p["table"].lower() == table.lower()}


def _read_job(job: Union[PathLike, str]) -> Tuple[str, str]:
    """(SQL text, name for messages): a path to a job file, or the SQL itself."""
    is_path = isinstance(job, os.PathLike) or (
        isinstance(job, str) and "\n" not in job and ";" not in job and (job.endswith(".sql") or os.path.exists(job))
    )
    if not is_path:
        if not isinstance(job, str):
            raise TypeError(f"job is a path to a .sql file or the SQL text, got {job!r}")
        return job, "<job>"
    path = os.fspath(job)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise LowwaterError(f"reading {path}: {e.strerror or e}") from None


def _partitions(partitions: Union[None, int, Mapping], tables: Sequence[str]) -> Dict[str, int]:
    if partitions is None:
        return {}
    if isinstance(partitions, int) and not isinstance(partitions, bool):
        return {t: partitions for t in tables}
    if isinstance(partitions, Mapping):
        return dict(partitions)
    raise TypeError(f"partitions is a number (for every input table) or {{table: N}}, got {partitions!r}")


def replay(
    job: Union[PathLike, str],
    inputs: Mapping[str, Union[PathLike, Sequence[PathLike]]],
    partitions: Union[None, int, Mapping[str, int]] = None,
    drain: bool = True,
    stall_threshold: Optional[Union[int, float, DurationLike]] = None,
    sort_buffer_bytes: int = 32 * 1024 * 1024,
) -> Report:
    """Replays a job (a .sql path or the SQL text) over topic dumps in virtual
    processing time, exactly as ``lowwater replay`` does.

    ``inputs`` maps a source table to its dump (or a list of dumps);
    ``partitions`` is N (every input table) or ``{table: N}``: partitions
    0..N-1 exist even without records. ``drain=False`` stops at the end of
    input without flushing the MAX watermark (``--no-drain``).
    ``stall_threshold`` is in seconds (or a Duration). Raises
    ``LowwaterError`` with the CLI's message for a job or input it refuses."""
    sql, origin = _read_job(job)
    pairs: List[Tuple[str, str]] = []
    for table, paths in inputs.items():
        for p in [paths] if isinstance(paths, (str, os.PathLike)) else paths:
            pairs.append((table, os.fspath(p)))
    threshold = None if stall_threshold is None else seconds_to_ms(stall_threshold, "stall_threshold")
    report, records, notes = _lowwater.replay(
        sql, origin, pairs, _partitions(partitions, list(inputs)), drain, threshold, sort_buffer_bytes
    )
    return Report(json.loads(report), records, notes)


def explain(job: Union[PathLike, str], partitions: Union[None, Mapping[str, int]] = None) -> str:
    """``lowwater explain``'s text: the plan, the partition -> subtask map and
    the watermark warnings (``partitions``: ``{table: N}``)."""
    sql, origin = _read_job(job)
    return _lowwater.explain(sql, origin, _partitions(partitions, []))
