"""argparse types shared by the ``metricrank`` commands: each turns an option's text into its value or
raises ``argparse.ArgumentTypeError`` naming what it expected, so argparse reports the option."""

from __future__ import annotations

import argparse


def expected(convert, accept, what: str):
    """An argparse type: ``convert(text)`` where ``accept`` takes it, else "expected <what>, got ..."."""

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return value

    return parse


positive = expected(float, lambda v: 0 < v < float("inf"), "a positive number")


def integer_from(minimum: int):
    """An argparse type: an integer of at least ``minimum``."""
    return expected(int, lambda v: v >= minimum, f"an integer >= {minimum}")


def probability(name: str):
    """An argparse type: a number strictly between 0 and 1 (the message names the option ``name``)."""

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not 0.0 < value < 1.0:
            raise argparse.ArgumentTypeError(f"{name} must be strictly between 0 and 1, got {text}")
        return value

    return parse


def auto_or(convert, allowed: str):
    """An argparse type: ``auto`` or ``convert(text)`` (the range is checked with the other options)."""

    def parse(text: str):
        if text == "auto":
            return text
        try:
            return convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be 'auto' or {allowed}; got {text!r}") from None

    return parse
