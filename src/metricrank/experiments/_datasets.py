"""Locating and loading the shared benchmark data used by the experiments."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..data import RankingDataset, load_letor

#: Environment variable that overrides where the shared data lives.
DATA_ENV = "METRICRANK_DATA"

MQ2008_N_FEATURES = 46


def shared_data_dir(root: str | os.PathLike | None = None) -> Path:
    """Directory of the shared benchmark data.

    ``root`` wins, then ``$METRICRANK_DATA``, then ``../shared/data`` relative to the
    current directory (the layout CI uses: the repository with ``shared/`` beside it).

    Raises
    ------
    FileNotFoundError
        If the directory does not exist; the message names every place looked at.
    """
    candidates = [Path(root)] if root is not None else []
    if not candidates and os.environ.get(DATA_ENV):
        candidates.append(Path(os.environ[DATA_ENV]))
    if not candidates:
        candidates.append(Path.cwd().parent / "shared" / "data")
    for path in candidates:
        if path.is_dir():
            return path
    raise FileNotFoundError(
        f"shared data directory not found (looked at {', '.join(map(str, candidates))}); "
        f"pass --data-dir or set {DATA_ENV}"
    )


@dataclass(frozen=True)
class Fold:
    """One official LETOR fold: train, validation and test sets."""

    index: int
    train: RankingDataset
    vali: RankingDataset
    test: RankingDataset


def load_mq2008_fold(index: int, root: str | os.PathLike | None = None) -> Fold:
    """Load MQ2008 fold ``index`` (1..5) as three ``RankingDataset`` objects.

    All three are dense with the 46 LETOR features, so a model trained on one
    applies to the others.
    """
    if index not in range(1, 6):
        raise ValueError(f"MQ2008 fold must be one of 1, 2, 3, 4, 5; got {index!r}")
    folder = shared_data_dir(root) / "MQ2008" / f"Fold{index}"

    def part(name: str) -> RankingDataset:
        return load_letor(folder / f"{name}.txt.gz", n_features=MQ2008_N_FEATURES, dense=True)

    return Fold(index, part("train"), part("vali"), part("test"))
