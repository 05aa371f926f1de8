"""DataFrames in, LightGBM arrays out: column names, their order, and categorical columns.

A model fitted on a pandas (or polars) DataFrame remembers its column names
(``feature_names_in_``) and checks them at predict, so a reordered or renamed
column is an error rather than a silent wrong score. Columns of pandas
``category`` dtype, and columns named in ``categorical_feature``, become
LightGBM categorical features; a category column is encoded by the categories
seen in training (a category unseen in training becomes NaN, i.e. missing,
which is what LightGBM does with its own pandas input).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["FeatureSchema", "apply_schema", "fit_schema", "take_columns"]

# LightGBM refuses these characters in feature names (they would break its JSON dump).
_LGB_FORBIDDEN = str.maketrans({c: "_" for c in '[]{}:,"'})


@dataclass
class FeatureSchema:
    """What fit learnt about the columns.

    Attributes
    ----------
    names : list of str or None
        Column names of a DataFrame (``feature_names_in_``); None for arrays.
    categorical : list of int
        Indices of the categorical columns.
    categories : dict
        ``{column index: list of training categories}`` for pandas category columns.
    """

    names: list | None = None
    categorical: list = field(default_factory=list)
    categories: dict = field(default_factory=dict)

    def lightgbm_names(self) -> list | str:
        """Names LightGBM accepts (its forbidden characters replaced), or ``"auto"``."""
        if self.names is None:
            return "auto"
        return [name.translate(_LGB_FORBIDDEN).replace(" ", "_") for name in self.names]

    def to_dict(self) -> dict:
        return {"names": self.names, "categorical": self.categorical,
                "categories": {str(k): v for k, v in self.categories.items()}}

    @classmethod
    def from_dict(cls, d: dict | None) -> "FeatureSchema":
        if not d:
            return cls()
        return cls(d["names"], list(d["categorical"]), {int(k): v for k, v in d["categories"].items()})


def _as_pandas(X):
    """A pandas DataFrame for pandas or polars input, None otherwise."""
    module = type(X).__module__
    if module.startswith("polars") and hasattr(X, "to_pandas"):
        return X.to_pandas()
    if module.startswith("pandas") and hasattr(X, "columns") and hasattr(X, "dtypes"):
        return X
    return None


def _plain(value):
    """A category as JSON can store it (numpy scalars become Python numbers)."""
    return value.item() if hasattr(value, "item") else value


def _check_integer_codes(values: np.ndarray, column: str) -> None:
    finite = values[~np.isnan(values)]
    if finite.size and (np.any(finite < 0) or np.any(finite != np.round(finite))):
        raise ValueError(f"categorical feature {column} must hold non-negative integers (or NaN); "
                         f"got {finite[(finite < 0) | (finite != np.round(finite))][0].item()!r}")


def _column_index(spec, names: list | None, n_columns: int) -> int:
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not 0 <= spec < n_columns:
            raise ValueError(f"categorical_feature index {spec} is outside 0..{n_columns - 1}")
        return int(spec)
    if isinstance(spec, str) and names is not None:
        if spec not in names:
            raise ValueError(f"categorical_feature {spec!r} is not a column; columns are {', '.join(names)}")
        return names.index(spec)
    raise ValueError(f"categorical_feature entries must be column indices{' or names' if names else ''}; "
                     f"got {spec!r}")


def fit_schema(X, categorical_feature=None):
    """``(X as numbers, FeatureSchema)`` for training input.

    ``X`` may be a pandas/polars DataFrame, an array, a sparse matrix or a
    RankingDataset (returned unchanged, with a schema of its categorical columns).
    """
    frame = _as_pandas(X)
    if frame is None:
        if not categorical_feature:
            return X, FeatureSchema()
        n_columns = X.X.shape[1] if hasattr(X, "X") and hasattr(X, "group_ptr") else np.shape(X)[-1]
        cats = sorted({_column_index(c, None, n_columns) for c in categorical_feature})
        if cats and not hasattr(X, "group_ptr") and not hasattr(X, "tocsr"):
            values = np.asarray(X, dtype=np.float64)
            for c in cats:
                _check_integer_codes(values[:, c], f"column {c}")
        return X, FeatureSchema(None, cats, {})
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"column {dup!r} appears twice; column names must be unique")
    cats = {_column_index(c, names, len(names)) for c in (categorical_feature or [])}
    categories = {}
    for j, (name, dtype) in enumerate(zip(names, frame.dtypes)):
        if str(dtype) == "category":
            cats.add(j)
            categories[j] = [_plain(v) for v in frame.iloc[:, j].cat.categories]
    schema = FeatureSchema(names, sorted(cats), categories)
    return _encode(frame, schema, "X"), schema


def _encode(frame, schema: FeatureSchema, what: str) -> np.ndarray:
    import pandas as pd

    out = np.empty(frame.shape, dtype=np.float64)
    for j, name in enumerate(schema.names):
        column = frame.iloc[:, j]
        if j in schema.categories:
            # position in the training categories; unseen values and NaN give -1
            codes = pd.Index(schema.categories[j]).get_indexer(column.astype(object).to_numpy())
            out[:, j] = np.where(codes < 0, np.nan, codes)
            continue
        if str(column.dtype) == "category":
            raise ValueError(f"{what}: column {name!r} is categorical here but was numeric in training")
        try:
            out[:, j] = pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
        except (ValueError, TypeError):
            raise ValueError(f"{what}: column {name!r} has dtype {column.dtype}, not numbers; convert it or "
                             f"make it a pandas 'category' column") from None
        if j in schema.categorical:
            _check_integer_codes(out[:, j], f"column {name!r}")
    return out


def apply_schema(X, schema: FeatureSchema, what: str = "X"):
    """Encode predict/eval input the way training input was; check DataFrame columns by name."""
    frame = _as_pandas(X)
    if frame is None:
        return X
    names = [str(c) for c in frame.columns]
    if schema.names is None:
        if len(names) and all(not n.isdigit() for n in names):
            raise ValueError(f"{what} has column names, but the model was fitted without names (on an array); "
                             "pass an array, or refit on a DataFrame")
        return _encode(frame, FeatureSchema([str(n) for n in names], schema.categorical, schema.categories), what)
    if names != schema.names:
        missing = [n for n in schema.names if n not in names]
        extra = [n for n in names if n not in schema.names]
        if not missing and not extra:
            raise ValueError(f"{what} has the training columns in another order; reorder them as in training: "
                             f"{', '.join(schema.names)}")
        raise ValueError(f"{what} columns differ from training: missing {missing or 'none'}, "
                         f"unexpected {extra or 'none'}")
    return _encode(frame, schema, what)


def take_columns(X, y, qid):
    """``(X, y, qid)`` with ``y`` and ``qid`` that name columns of a DataFrame ``X`` taken out of it.

    Labels and query ids given as column names (``fit(df, "label",
    qid="qid")``, as the Dask rankers take them) become arrays, and their
    columns are no features. Anything else is returned unchanged.

    Raises
    ------
    ValueError
        If a name is not a column of ``X``, or ``X`` is no DataFrame.
    """
    named = {arg: value for arg, value in (("y", y), ("qid", qid)) if isinstance(value, str)}
    if not named:
        return X, y, qid
    frame = _as_pandas(X)
    if frame is None:
        arg, value = next(iter(named.items()))
        raise ValueError(f"{arg}={value!r} names a column, but X is a {type(X).__name__}, not a DataFrame; "
                         f"pass the {'labels' if arg == 'y' else 'query ids'} themselves")
    labels = {str(c): c for c in frame.columns}
    for arg, value in named.items():
        if value not in labels:
            raise ValueError(f"{arg}={value!r} is not a column of X; its columns are {', '.join(labels)}")
    taken = {arg: frame[labels[value]].to_numpy() for arg, value in named.items()}
    X = frame.drop(columns=[labels[value] for value in set(named.values())])
    return X, taken.get("y", y), taken.get("qid", qid)
