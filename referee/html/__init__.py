"""HTML pages: the replay viewer of one game record (:mod:`.replay`), and the Jinja2 environment that the
viewer and the tournament report (``tournaments/report_html.py``) render their templates with.

Every page is one self-contained file: its CSS, its script and its data are inline, nothing is fetched when it
is viewed (docs/HTML.md).
"""

from .page import environment, json_for_script, write_page
from .replay import replay_data, replay_html

__all__ = ["environment", "json_for_script", "replay_data", "replay_html", "write_page"]
