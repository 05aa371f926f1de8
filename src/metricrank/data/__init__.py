"""Data layer: the :class:`RankingDataset` container, LETOR/SVMlight I/O,
side files (query sizes, pairs, group and row weights) and synthetic data."""

from .dataset import RankingDataset
from .letor import OneQueryWarning, UnreadWeightFileWarning, load_letor, save_letor
from .sidecars import (
    load_group_weights,
    load_pairs,
    load_query_file,
    load_weights,
    save_group_weights,
    save_pairs,
    save_query_file,
    save_weights,
)
from .synthetic import make_ltr

__all__ = [
    "OneQueryWarning",
    "RankingDataset",
    "UnreadWeightFileWarning",
    "load_group_weights",
    "load_letor",
    "load_pairs",
    "load_query_file",
    "load_weights",
    "make_ltr",
    "save_group_weights",
    "save_letor",
    "save_pairs",
    "save_query_file",
    "save_weights",
]
