"""MART classification (Burges section 6): logistic and balanced loss."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.metrics import balanced_accuracy_score

from metricrank.learners import MARTClassifier
from metricrank.objectives import LogisticObjective


@pytest.mark.parametrize("balanced", [False, True])
def test_gradient_and_hessian_are_derivatives_of_the_loss(balanced):
    rng = np.random.default_rng(0)
    y = (rng.random(12) < 0.3).astype(float)
    F = rng.normal(size=12)
    obj = LogisticObjective(sigma=1.7, balanced=balanced)
    grad, hess = obj.gradient_hessian(y, F)
    scale = 1.0 if balanced else 12.0  # loss() is the mean for the plain loss

    for r in range(12):
        e = np.zeros(12)
        e[r] = 1e-5
        fd = (obj.loss(y, F + e) - obj.loss(y, F - e)) / 2e-5 * scale
        assert grad[r] == pytest.approx(fd, rel=1e-6)
        e[r] = 1e-4
        fd2 = (obj.loss(y, F + e) - 2 * obj.loss(y, F) + obj.loss(y, F - e)) / 1e-8 * scale
        assert hess[r] == pytest.approx(fd2, rel=1e-4)


def test_balanced_factor_is_inverse_class_size():
    y = np.array([1.0, 0, 0, 0])
    g_plain, _ = LogisticObjective().gradient_hessian(y, np.zeros(4))
    g_bal, _ = LogisticObjective(balanced=True).gradient_hessian(y, np.zeros(4))
    np.testing.assert_allclose(g_bal, g_plain * np.array([1 / 1, 1 / 3, 1 / 3, 1 / 3]))


def test_balanced_loss_helps_the_rare_class():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 4))
    y = (X[:, 0] + 0.8 * rng.normal(size=2000) > 2.0).astype(int)  # about 5% positives
    kw = dict(n_estimators=40, num_leaves=7, random_state=0, n_jobs=1)
    plain = MARTClassifier("logistic", **kw).fit(X, y)
    balanced = MARTClassifier("balanced", **kw).fit(X, y)
    assert balanced_accuracy_score(y, balanced.predict(X)) > balanced_accuracy_score(y, plain.predict(X)) + 0.05
    proba = plain.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(plain.predict(X)) <= {0, 1}


def test_classifier_errors():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="exactly two classes"):
        MARTClassifier().fit(X, [0, 1, 2, 1])
    with pytest.raises(ValueError, match="loss must be 'logistic' or 'balanced'"):
        MARTClassifier(loss="hinge").fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"labels in \{0, 1\} or \{-1, \+1\}"):
        LogisticObjective().gradient_hessian([0, 2], np.zeros(2))


def test_staged_methods_are_the_model_after_each_tree():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=400) > 0, "yes", "no")
    kw = dict(loss="balanced", sigma=1.3, num_leaves=5, n_jobs=1, random_state=0)
    clf = MARTClassifier(n_estimators=25, **kw).fit(X, y)
    held = X[:50] + 0.01
    scores = list(clf.staged_decision_function(held))
    probas, labels = list(clf.staged_predict_proba(held)), list(clf.staged_predict(held))
    assert len(scores) == len(probas) == len(labels) == 25
    for k in (1, 2, 11, 25):
        raw = clf.booster_.predict(held, num_iteration=k, raw_score=True)
        np.testing.assert_array_equal(scores[k - 1], raw)
        p = 1.0 / (1.0 + np.exp(-2.0 * 1.3 * raw))
        np.testing.assert_allclose(probas[k - 1], np.column_stack([1.0 - p, p]), rtol=1e-12)
        np.testing.assert_array_equal(labels[k - 1], np.where(raw > 0, "yes", "no"))
    shorter = MARTClassifier(n_estimators=11, **kw).fit(X, y)  # the model trained with 11 trees
    np.testing.assert_array_equal(scores[10], shorter.decision_function(held))
    np.testing.assert_array_equal(probas[-1], clf.predict_proba(held))
    with pytest.raises(ValueError, match="features"):
        clf.staged_decision_function(held[:, :3])  # checked when called
    for method in ("staged_decision_function", "staged_predict_proba", "staged_predict"):
        with pytest.raises(NotFittedError):
            getattr(MARTClassifier(), method)(held)
