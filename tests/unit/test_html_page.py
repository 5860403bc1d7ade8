"""The inline data of the HTML pages (referee/html/page.py): any text a record holds, a hostile or damaged one
included, stays a string of the page's JSON and cannot end its script element."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.html.page import json_for_script, write_page


@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "x\ud800y", "\udfff", "a\u2028b&<>", "ok"])
def test_any_text_stays_a_string_of_the_pages_json(text: str) -> None:
    inline = json_for_script({"stderr": text})
    inline.encode("utf-8")  # a lone surrogate is escaped, so the page can be written
    assert "<" not in inline and ">" not in inline and "\u2028" not in inline
    assert json.loads(inline) == {"stderr": text}


def test_a_page_that_cannot_be_encoded_is_one_line_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot write"):
        write_page("<p>\ud800</p>", tmp_path / "out.html")
    assert list(tmp_path.iterdir()) == []
