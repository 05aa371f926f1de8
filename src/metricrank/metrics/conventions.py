"""Named presets that switch every convention at once.

The anchors disagree on gain, tie order, the value of a query with no relevant
document and the MAP@k denominator (see ``DESIGN.md``). Each of these is an
explicit metric parameter; a preset is only a set of defaults for them. A
parameter written in the spec string always wins over the preset.

==============  ===========  ===========  ====================  ================
preset          gain (type)  ties         no relevant document  MAP@k denominator
==============  ===========  ===========  ====================  ================
``catboost``    Base (l)     pessimistic  NDCG 1, MAP/MRR 0     min(#rel, k)
``lightgbm``    Exp (2^l-1)  stable       NDCG 1, MAP 1         min(#rel, k)
``xgboost``     Exp (2^l-1)  stable       NDCG 1, MAP 1         min(#rel, k)
``trec_eval``   Base (l)     docid        0                     #rel
==============  ===========  ===========  ====================  ================

LightGBM, XGBoost and trec_eval count a document as relevant when its label is
> 0 (``border=0``); CatBoost's default border is 0.5.
"""

from __future__ import annotations

# metric name -> parameter defaults; "*" applies to every metric that has the parameter.
PRESETS: dict[str, dict[str, dict]] = {
    "catboost": {"*": {"ties": "pessimistic"}},
    "lightgbm": {
        "*": {"ties": "stable", "border": 0.0},
        "NDCG": {"type": "Exp", "empty": 1.0},
        "DCG": {"type": "Exp"},
        "MAP": {"empty": 1.0, "norm": "min"},
    },
    "xgboost": {
        "*": {"ties": "stable", "border": 0.0},
        "NDCG": {"type": "Exp", "empty": 1.0},
        "DCG": {"type": "Exp"},
        "MAP": {"empty": 1.0, "norm": "min"},
    },
    "trec_eval": {
        "*": {"ties": "docid", "border": 0.0, "empty": 0.0},
        "NDCG": {"type": "Base", "denominator": "LogPosition"},
        "DCG": {"type": "Base", "denominator": "LogPosition"},
        "MAP": {"norm": "all"},
        "PrecisionAt": {"norm": "top"},
    },
}


def check_preset(preset) -> None:
    """A ValueError unless ``preset`` is None or the name of a preset, for estimators to check at ``fit``."""
    if preset is not None and not (isinstance(preset, str) and preset in PRESETS):
        raise ValueError(f"preset must be None or one of {', '.join(PRESETS)}; got {preset!r}")


def preset_defaults(preset: str | None, metric_name: str, param_names) -> dict:
    """Defaults a preset gives to one metric's parameters."""
    if preset is None:
        return {}
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    table = PRESETS[preset]
    out = {k: v for k, v in table.get("*", {}).items() if k in param_names}
    out.update({k: v for k, v in table.get(metric_name, {}).items() if k in param_names})
    return out
