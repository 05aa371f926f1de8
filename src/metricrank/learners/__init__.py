"""Rankers: GBRanker and LambdaMART (LightGBM engine), structural SVMs, the LP-AUC ranker and (with the
``nets`` extra) RankNet and LambdaRank on PyTorch."""

from ._dataset_cache import clear_dataset_cache
from ._struct_svm import StructSVMFitReport, StructSVMSolverError
from .binning import ThresholdBinner
from .gbranker import GBRanker, load_ranker
from .lambdamart import LambdaMART
from .lp_ranker import LPFitReport, LPRanker, LPSolveError
from .mart import MARTClassifier
from .svm_acc import SVMAcc
from .svm_map import SVMMAP
from .svm_roc import SVMROCArea, SVMROCAreaMultiClass

__all__ = [
    "GBRanker", "LPFitReport", "LPRanker", "LPSolveError", "LambdaMART", "LambdaRank", "MARTClassifier", "RankNet",
    "SVMMAP", "SVMAcc", "SVMROCArea", "SVMROCAreaMultiClass", "StructSVMFitReport", "StructSVMSolverError",
    "ThresholdBinner", "clear_dataset_cache", "load_model", "load_ranker", "model_classes",
]

_NETS = ("RankNet", "LambdaRank")


def model_classes() -> dict:
    """The boosting estimators a model file may name, by class name.

    Examples
    --------
    >>> sorted(model_classes())
    ['GBRanker', 'LambdaMART']
    """
    return {"GBRanker": GBRanker, "LambdaMART": LambdaMART}


#: every class whose ``save`` writes a model file, by the name the file gives
_SAVED = ("GBRanker", "LambdaMART", "LPRanker", "SVMAcc", "SVMMAP", "SVMROCArea", "SVMROCAreaMultiClass", *_NETS)


def load_model(path):
    """Load any model file that metricrank's ``save`` writes, as the class the file names.

    The boosted rankers, the structural SVMs, the LP ranker and (with the ``nets`` extra) the nets all
    load; :func:`load_ranker` loads the boosted rankers only, as the command line does.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by a model's ``save`` (``.gz`` and ``.bz2`` are read compressed).

    Returns
    -------
    estimator
        The fitted model, of the class the file names.

    Raises
    ------
    ValueError
        The file is not a model file, fails its checksum, was written by a newer format version, or
        names a class this version of metricrank does not save.

    Examples
    --------
    >>> import os, tempfile
    >>> from metricrank import SVMROCArea, load_model, make_ltr
    >>> ds = make_ltr(20, n_features=5, random_state=0)
    >>> model = SVMROCArea(border=1).fit(ds.X, ds.y, qid=ds.qid)
    >>> path = os.path.join(tempfile.mkdtemp(), "svm.json")
    >>> model.save(path)
    >>> loaded = load_model(path)
    >>> type(loaded).__name__, bool((loaded.predict(ds.X) == model.predict(ds.X)).all())
    ('SVMROCArea', True)
    """
    from ._persistence import read_model_file

    name, _ = read_model_file(path)  # the class's own load reads the file again, with its checks
    if name not in _SAVED:
        raise ValueError(f"{path}: holds a {name} model, which this metricrank does not load; "
                         f"it loads {', '.join(sorted(_SAVED))}")
    cls = globals()[name] if name in globals() else __getattr__(name)
    return cls.load(path)


def __getattr__(name):
    # the neural rankers load on first use, so ``import metricrank`` never imports torch
    if name in _NETS:
        from . import nets

        return getattr(nets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
