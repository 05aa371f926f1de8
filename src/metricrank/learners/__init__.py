"""Rankers: LambdaMART (LightGBM engine), structural SVMs and the LP-AUC ranker."""
