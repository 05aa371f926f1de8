"""The help formatter of every ``metricrank`` command."""

from __future__ import annotations

import argparse


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help with every option's default; descriptions keep their line breaks.

    An option whose help already says ``default``, a required option, a
    positional, a flag, or one whose default is None (its help says what
    happens without it) is left as written; otherwise ``(default: X)`` is
    appended.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        if ("default" in text or action.required or not action.option_strings
                or any(action.default is v for v in (None, False, argparse.SUPPRESS))  # not 0 == False
                or action.nargs == 0):
            return text
        return f"{text} (default: %(default)s)"
