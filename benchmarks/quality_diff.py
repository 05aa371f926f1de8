"""What a change did to the quality suite: every refitted system's test values in two caches, paired per query.

For each data set, system and judged metric whose entries differ between the caches (fitted again), prints the
mean test value in the old cache, the difference new − old (mean over splits) and the two-sided
Wilcoxon p-value over the test queries of all splits (NaN-valued queries left out), and, when the new
entries recorded it, what ``num_leaves="auto"``'s capacity check chose on each split and, for a tuned
system, which trial its search kept (0: the defaults). Entries whose values are identical on every query are
reported as such.

    git show HEAD~1:benchmarks/results/quality/results.json > /tmp/old.json
    .venv/bin/python benchmarks/quality_diff.py /tmp/old.json benchmarks/results/quality/results.json \\
        --datasets synthetic-50k [--against "LambdaMART({m})"]
"""

from __future__ import annotations

import argparse
import json
import re

import numpy as np
from scipy.stats import wilcoxon

from metricrank.experiments.quality import DETAILS


def _chose(text: str) -> str:
    """``"31 leaves"`` from a capacity check's text (what follows its arrow); of each kind of tree's check,
    joined by " + ", where a mixed fit ran two (``quality._fit_record`` joins their texts by " | ")."""
    choices = [re.search(r"-> (.*)$", part) for part in text.split(" | ")]
    return " + ".join(found.group(1) if found else "?" for found in choices)


def _kept(entry: dict) -> str:
    """``"trial 7 (p 0.0031 < 0.0028)"``, or ``"defaults"``, from a tuned entry's search summary."""
    record = entry["tune"]
    pvalue, level = record["selection_pvalue"], record["selection_level"]
    if record["selected_trial"] == 0:
        return "defaults" + ("" if pvalue is None else f" (best p {pvalue:.2g})")
    return f"trial {record['selected_trial']}" + ("" if pvalue is None else
                                                  f" (p {pvalue:.2g}{'' if level is None else f' < {level:.2g}'})")


def _paired(a: list[dict], b: list[dict], metric: str) -> str:
    """Mean over splits of a − b, each split's, and the two-sided Wilcoxon p over the test queries of all splits."""
    d = np.concatenate([np.subtract(x[metric]["per_query"], y[metric]["per_query"]) for x, y in zip(a, b)])
    d = d[~np.isnan(d)]
    per_split = " / ".join(f"{x[metric]['test'] - y[metric]['test']:+.4f}" for x, y in zip(a, b))
    diff = np.mean([x[metric]["test"] - y[metric]["test"] for x, y in zip(a, b)])
    return f"{diff:+.4f} ({'identical' if not np.any(d) else f'p {wilcoxon(d).pvalue:.2g}'}; per split {per_split})"


def compare(old: dict, new: dict, dataset: str, against: str | None = None) -> list[str]:
    systems: dict[str, list[str]] = {}
    for key in new:
        name, ds = key.split("|")[:2]
        # fitted again, or (with --against) fitted for the first time
        if ds == dataset and "error" not in new[key] and (new[key] != old[key] if key in old else bool(against)):
            systems.setdefault(name, []).append(key)
    lines = []
    for name, keys in systems.items():
        keys = sorted(keys, key=lambda k: int(k.split("|")[2]))
        refitted = all(k in old for k in keys)
        metrics = [m for m in new[keys[0]] if m not in DETAILS and (not refitted or m in old[keys[0]])]
        checks = [_chose(new[k]["capacity_check"]) if "capacity_check" in new[k] else "no check" for k in keys]
        kept = [_kept(new[k]) for k in keys if "tune" in new[k]]
        lines.append(f"{name} ({len(keys)} splits{'' if refitted else ', new'}; check kept: {'; '.join(checks)}"
                     + (f"; search kept: {'; '.join(kept)}" if kept else "") + ")")
        for metric in metrics:
            if refitted:
                base = np.mean([old[k][metric]["test"] for k in keys])
                lines.append(f"  {metric:28s} old {base:.4f}  new − old "
                             + _paired([new[k] for k in keys], [old[k] for k in keys], metric))
            if against:
                ref = [new.get("|".join([against.format(m=metric), *k.split("|")[1:]])) for k in keys]
                if all(r is not None and metric in r for r in ref):
                    lines.append(f"  {'' if refitted else metric:28s} new − {against.format(m=metric)} "
                                 + _paired([new[k] for k in keys], ref, metric))
                else:
                    lines.append(f"  {'' if refitted else metric:28s} new − {against.format(m=metric)}: "
                                 "not in the new cache on every split")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--against", metavar="SYSTEM",
                        help="also pair each refitted system, and each one new to the new cache, with this one in "
                             "the new cache on the same splits ('{m}' stands for the judged metric), e.g. "
                             "'LambdaMART({m})' for tuned against defaults")
    args = parser.parse_args()
    old, new = (json.loads(open(path).read()) for path in (args.old, args.new))
    for dataset in args.datasets:
        print(f"\n{dataset}")
        print("\n".join(compare(old, new, dataset, args.against)))


if __name__ == "__main__":
    main()
