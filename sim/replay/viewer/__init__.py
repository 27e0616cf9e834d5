"""The battle viewer: one self-contained HTML page per battle, or two side by side.

``battlesim report`` and ``battlesim diff --html`` write these pages; everything
they show comes through the ruleset contract (unit rows, measures, space), so
a plugin ruleset gets a viewer without writing HTML.
"""

from sim.replay.viewer.report import diff_html, fork_banner, report_html

__all__ = ["diff_html", "fork_banner", "report_html"]
