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

__all__ = ["FeatureNamesMixin", "FeatureSchema", "apply_schema", "check_feature_name", "column_schema",
           "encode_eval_entry", "encode_eval_set", "fit_schema", "refuse_named_weights", "take_columns"]

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
    given : list of str or None
        Names that fit's ``feature_name`` gave the columns of input without
        names (an array): the booster's names, and the columns a DataFrame
        must have at predict. Not ``feature_names_in_``, which scikit-learn
        (and LightGBM) keep for DataFrames only.
    """

    names: list | None = None
    categorical: list = field(default_factory=list)
    categories: dict = field(default_factory=dict)
    given: list | None = None

    @property
    def column_names(self) -> list | None:
        """The columns' names, from the DataFrame or from ``feature_name``; None if neither."""
        return self.names if self.names is not None else self.given

    def lightgbm_names(self) -> list | str:
        """Names LightGBM accepts (its forbidden characters replaced), or ``"auto"``."""
        if self.column_names is None:
            return "auto"
        return [name.translate(_LGB_FORBIDDEN).replace(" ", "_") for name in self.column_names]

    def to_dict(self) -> dict:
        return {"names": self.names, "categorical": self.categorical,
                "categories": {str(k): v for k, v in self.categories.items()}, "given": self.given}

    @classmethod
    def from_dict(cls, d: dict | None) -> "FeatureSchema":
        if not d:
            return cls()
        # "given" is absent from models saved before fit took feature_name
        return cls(d["names"], list(d["categorical"]), {int(k): v for k, v in d["categories"].items()},
                   d.get("given"))


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


def _is_auto(feature_name) -> bool:
    return feature_name is None or (isinstance(feature_name, str) and feature_name == "auto")


def check_feature_name(feature_name, n_columns: int) -> list | None:
    """LightGBM's ``feature_name`` fit argument as a list of ``n_columns`` distinct strings, or None for "auto".

    Raises
    ------
    ValueError
        If it is neither "auto" nor a list of that many distinct non-empty strings.
    """
    if _is_auto(feature_name):
        return None
    if isinstance(feature_name, str) or not hasattr(feature_name, "__iter__"):
        raise ValueError(f"feature_name must be 'auto' or a list of {n_columns} column names; got {feature_name!r}")
    names = list(feature_name)
    if len(names) != n_columns:
        raise ValueError(f"feature_name has {len(names)} names; X has {n_columns} columns")
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"feature_name entries must be non-empty strings; got {name!r}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"feature_name {dup!r} appears twice; column names must be unique")
    return names


def column_schema(names: list | None, feature_name, n_columns: int) -> FeatureSchema:
    """The schema of fit input's column names: a DataFrame's ``names``, which a ``feature_name`` list must
    equal, or for input without names (``names`` None) those of ``feature_name`` (LightGBM's), if any."""
    given = check_feature_name(feature_name, n_columns)
    if names is None:
        return FeatureSchema(given=given)
    if given is not None and given != names:
        raise ValueError(f"feature_name differs from X's columns ({', '.join(names)}); a DataFrame's feature "
                         f"names are its columns: rename them, or leave feature_name='auto'")
    return FeatureSchema(names)


def fit_schema(X, categorical_feature=None, feature_name="auto"):
    """``(X as numbers, FeatureSchema)`` for training input.

    ``X`` may be a pandas/polars DataFrame, an array, a sparse matrix or a
    RankingDataset (returned unchanged, with a schema of its categorical columns).
    ``feature_name`` (LightGBM's) names the columns of input without names; a
    DataFrame's names are its columns, so there it must equal them.
    """
    frame = _as_pandas(X)
    if frame is None:
        if not categorical_feature and _is_auto(feature_name):
            return X, FeatureSchema()  # X's shape unread: scikit-learn's checks pass objects that refuse numpy
        n_columns = X.X.shape[1] if hasattr(X, "X") and hasattr(X, "group_ptr") else np.shape(X)[-1]
        given = check_feature_name(feature_name, n_columns)
        if not categorical_feature:
            return X, FeatureSchema(given=given)
        cats = sorted({_column_index(c, given, n_columns) for c in categorical_feature})
        if cats and not hasattr(X, "group_ptr") and not hasattr(X, "tocsr"):
            values = np.asarray(X, dtype=np.float64)
            for c in cats:
                _check_integer_codes(values[:, c], f"column {c}")
        return X, FeatureSchema(None, cats, {}, given)
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"column {dup!r} appears twice; column names must be unique")
    column_schema(names, feature_name, len(names))
    cats = {_column_index(c, names, len(names)) for c in (categorical_feature or [])}
    categories = {}
    for j, (name, dtype) in enumerate(zip(names, frame.dtypes)):
        if str(dtype) == "category":
            cats.add(j)
            categories[j] = [_plain(v) for v in frame.iloc[:, j].cat.categories]
    schema = FeatureSchema(names, sorted(cats), categories)
    return _encode(frame, schema, "X"), schema


#: What ``pandas.api.types.infer_dtype`` calls a column of numbers (or one of missing values only).
NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty"})


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
        held = pd.api.types.infer_dtype(column, skipna=True)
        if held not in NUMBER_KINDS:  # as LightGBM: text, even "1.5", and dates are not read as numbers
            how = ("to numbers (e.g. days since a date)" if held.startswith(("datetime", "timedelta", "date"))
                   else "(pd.to_numeric for numbers kept as text)")
            raise ValueError(f"{what}: column {name!r} has dtype {column.dtype} ({held} values), not numbers; "
                             f"convert it {how} (the tree rankers also take it as a pandas 'category' column)")
        out[:, j] = pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
        if j in schema.categorical:
            _check_integer_codes(out[:, j], f"column {name!r}")
    return out


def apply_schema(X, schema: FeatureSchema, what: str = "X"):
    """Encode predict/eval input the way training input was; check DataFrame columns by name."""
    frame = _as_pandas(X)
    if frame is None:
        return X
    names = [str(c) for c in frame.columns]
    expected = schema.column_names
    if expected is None or (schema.names is None and all(n.isdigit() for n in names)):
        # fitted on an array: a DataFrame of positional (digit) column names is read by position
        if expected is None and len(names) and all(not n.isdigit() for n in names):
            raise ValueError(f"{what} has column names, but the model was fitted without names (on an array); "
                             "pass an array, or refit on a DataFrame")
        return _encode(frame, FeatureSchema([str(n) for n in names], schema.categorical, schema.categories), what)
    if names != expected:
        missing = [n for n in expected if n not in names]
        extra = [n for n in names if n not in expected]
        if not missing and not extra:
            raise ValueError(f"{what} has the training columns in another order; reorder them as in training: "
                             f"{', '.join(expected)}")
        source = "training" if schema.names is not None else "fit's feature_name"
        hint = "" if missing else "; drop them (X[model.feature_names_in_] keeps the training columns)"
        raise ValueError(f"{what} columns differ from {source}: missing {missing or 'none'}, "
                         f"unexpected {extra or 'none'}{hint}")
    return _encode(frame, FeatureSchema(expected, schema.categorical, schema.categories), what)


def refuse_named_weights(per_eval_set: dict | None = None, **weights) -> None:
    """A ValueError for a per-row or per-query argument given as a column name (only ``y`` and ``qid`` name
    columns, as in LightGBM's Dask rankers); each keyword is the argument's name, its value what was passed.
    ``per_eval_set`` holds the arguments with one entry per eval set (``eval_sample_weight``...): their entries
    are read one by one (anything but a list or tuple is left to the eval sets' own check)."""
    named = list(weights.items())
    for arg, values in (per_eval_set or {}).items():
        if isinstance(values, (list, tuple)):
            named += [(f"{arg}[{i}]", value) for i, value in enumerate(values)]
    for where, value in named:
        if isinstance(value, str):
            raise ValueError(f"{where}={value!r}: only y and qid may name a column of X; pass the values "
                             f"themselves (X[{value!r}]) and drop that column from X if it is no feature")


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


def encode_eval_set(eval_set, schema: FeatureSchema):
    """``eval_set`` (None, one entry: a tuple or a RankingDataset, or a list of them) as a list of entries, each
    encoded by :func:`encode_eval_entry` (None stays None)."""
    if eval_set is None:
        return None
    from ..data import RankingDataset

    entries = [eval_set] if isinstance(eval_set, (tuple, RankingDataset)) else eval_set
    return [encode_eval_entry(entry, schema, f"eval_set[{i}]") for i, entry in enumerate(entries)]


def encode_eval_entry(entry, schema: FeatureSchema, what: str):
    """An ``eval_set`` entry with its DataFrame's label and query columns taken out and its features
    encoded as the training data's (other entries unchanged)."""
    if not isinstance(entry, tuple) or len(entry) not in (2, 3):
        return entry
    X, y, qid = take_columns(entry[0], entry[1], entry[2] if len(entry) == 3 else None)
    X = apply_schema(X, schema, what)
    return (X, y, qid) if len(entry) == 3 else (X, y)


class FeatureNamesMixin:
    """An estimator's fitted :class:`FeatureSchema`: ``feature_names_in_`` for a DataFrame's columns, and the
    schema that :func:`apply_schema` checks predict's input against."""

    def _set_schema(self, schema: FeatureSchema) -> None:
        self._feature_schema = schema
        if schema.names is not None:
            self.feature_names_in_ = np.asarray(schema.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _schema(self) -> FeatureSchema:
        return getattr(self, "_feature_schema", None) or FeatureSchema()
