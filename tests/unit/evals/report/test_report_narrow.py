"""The HTML report at 800 and 1280 px (issue 26, 3.5): the items table stays inside the page, and
no cell breaks a word that fits its column ("fals/e", "answer_cor/rectness"); a word wider than
its whole column (a long id or URL) may still wrap, there is nothing else it could do."""

from __future__ import annotations

import pytest
from test_report_chromium import CHROMIUM, in_frame, probability_rows, rows_a, write_report

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (CI installs Debian's chromium)")

CELL_BREAKS = (
    "(function () { var out = [], table = doc.querySelector('table.items');"
    " doc.querySelectorAll('table.items tr.item td').forEach(function (td) {"
    "  var style = win.getComputedStyle(td);"
    "  var room = td.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);"
    "  var walker = doc.createTreeWalker(td, NodeFilter.SHOW_TEXT), node;"
    "  while ((node = walker.nextNode())) { var re = /\\S+/g, m;"
    "   while ((m = re.exec(node.data))) { var range = doc.createRange();"
    "    range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);"
    "    var rects = range.getClientRects(), tops = {}, wide = 0;"
    "    Array.prototype.forEach.call(rects, function (r) { tops[Math.round(r.top)] = 1; wide += r.width; });"
    "    if (Object.keys(tops).length > 1 && wide <= room) out.push(m[0]); } } });"
    " return {broken: out, rows: doc.querySelectorAll('tr.item').length,"
    " table: table.getBoundingClientRect().right, page: doc.documentElement.clientWidth,"
    " scroll: doc.documentElement.scrollWidth}; })()"
)
"""Words that fit their cell but sit on two lines anyway, and how far the items table reaches."""


@pytest.mark.parametrize("width", [800, 1280])
@pytest.mark.parametrize("kind", ["single", "comparison", "probability"])
def test_items_fit_the_page_and_keep_their_words_whole(tmp_path, kind: str, width: int) -> None:  # type: ignore[no-untyped-def]
    if kind == "single":
        page = write_report(tmp_path, rows_a())
    elif kind == "comparison":
        page = write_report(tmp_path, rows_a(), [dict(r, label=not r["label"]) if r["label"] is not None else r
                                                 for r in rows_a()])
    else:
        page = write_report(tmp_path, probability_rows())
    measured = in_frame(tmp_path, page, CELL_BREAKS, width=width)
    assert measured["rows"] > 0
    assert measured["table"] <= measured["page"] and measured["scroll"] <= measured["page"], measured
    assert measured["broken"] == [], measured
