"""Model files: versioned envelope, SHA-256 checksum, booster text validation."""

import json

import lightgbm as lgb
import numpy as np
import pytest

from metricrank.learners._persistence import (
    FORMAT_VERSION,
    read_model_file,
    state_digest,
    validate_booster_text,
    write_model_file,
)


@pytest.fixture(scope="module")
def booster_text():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    b = lgb.train({"verbose": -1, "num_leaves": 4, "num_threads": 1}, lgb.Dataset(X, y), num_boost_round=3)
    return b.model_to_string()


def test_roundtrip_with_checksum(tmp_path, booster_text):
    state = {"booster": booster_text, "x": [0.1, 1e-300, float("nan")], "n": 3}
    path = tmp_path / "m.json"
    write_model_file(path, "Thing", state)
    doc = json.loads(path.read_text())
    assert doc["format_version"] == FORMAT_VERSION == 2
    assert doc["state_sha256"] == state_digest(state)
    name, back = read_model_file(path, "Thing")
    assert name == "Thing" and back["booster"] == booster_text and back["n"] == 3


def test_corrupted_state_is_detected(tmp_path, booster_text):
    path = tmp_path / "m.json.gz"
    write_model_file(path, "Thing", {"booster": booster_text})
    plain = tmp_path / "m.json"
    write_model_file(plain, "Thing", {"booster": booster_text})
    text = plain.read_text()
    plain.write_text(text.replace("leaf_value=", "leaf_value=9", 1))
    with pytest.raises(ValueError, match=r"model file .*m.json is corrupted \(checksum mismatch\)"):
        read_model_file(plain)
    doc = json.loads(text)
    doc["state_sha256"] = "0" * 64
    plain.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="checksum mismatch"):
        read_model_file(plain)
    del doc["state_sha256"]
    plain.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="checksum mismatch"):  # v2 without a checksum
        read_model_file(plain)
    assert read_model_file(path)[1]["booster"] == booster_text  # compressed file fine


def test_version_1_files_without_checksum_still_load(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "metricrank-model", "format_version": 1, "model": "Thing",
                                "metricrank_version": "0.1.0", "state": {"a": 1}}))
    assert read_model_file(path, "Thing") == ("Thing", {"a": 1})
    path.write_text(json.dumps({"format": "metricrank-model", "format_version": 3, "model": "Thing",
                                "state": {"a": 1}}))
    with pytest.raises(ValueError, match="version 3 is not supported"):
        read_model_file(path)


def test_valid_booster_text_passes(booster_text):
    validate_booster_text(booster_text)
    # LightGBM reads it back: the check agrees with the parser on good text
    assert lgb.Booster(model_str=booster_text).num_trees() == 3


@pytest.mark.parametrize("mutate,message", [
    (lambda t: t[:1000], "Tree= sections but tree_sizes= lists 3"),
    (lambda t: t[: t.index("end of trees")], "no 'end of trees'"),
    (lambda t: t[:-60], "parameters section is truncated"),
    (lambda t: t.replace("leaf_value=", "leaf_valu=", 1), "Tree=0 is .* bytes, tree_sizes= says"),
    (lambda t: t.replace("threshold=", "threshold=12345", 1), "Tree=0 is .* bytes"),
    (lambda t: t.replace("Tree=1", "Tree=7", 1), "section 1 is headed Tree=7"),
    (lambda t: "x" + t, "does not start with a 'tree' line"),
    (lambda t: t.replace("tree_sizes=", "tree_size=", 1), "no tree_sizes= header"),
    (lambda t: t.replace("\nmax_feature_idx=", "\nmax_feature=", 1), "no max_feature_idx= header"),
    (lambda t: "", "does not start"),
])
def test_altered_booster_text_is_rejected(booster_text, mutate, message):
    with pytest.raises(ValueError, match="booster text is corrupted: .*" + message):
        validate_booster_text(mutate(booster_text))


def test_non_string_booster_rejected():
    with pytest.raises(ValueError, match="must be a string"):
        validate_booster_text(b"tree\n")
