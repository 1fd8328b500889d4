"""The article's structure in the outputs that keep it: data tables as GitHub tables in Markdown."""
from __future__ import annotations

import pytest

import sitewise
from sitewise.markdown import to_markdown

#: Story paragraphs around the blocks under test make the fallback take them as the article's.
STORY = f"<p>{'The harbor workers voted for a strike after the long talks with the port. ' * 3}</p>"


def page(blocks: str) -> str:
    return f"<html><body><nav><a href='/'>Home</a></nav><article><h1>The strike</h1>{STORY}{blocks}{STORY}</article></body></html>"


#: A results table: a header of <th>, a "|" in a cell, two lines in one (a <br>), an empty cell, a row
#: short of a cell, and the same value ("0") in several cells, each in its own row and column.
RESULTS = (
    "<table><caption>Votes</caption><thead><tr><th>Port</th><th>For | against</th><th>Abstained</th></tr></thead>"
    "<tbody><tr><td>Hamburg</td><td>412<br>(late count)</td><td>0</td></tr>"
    "<tr><td>Rotterdam &amp; co</td><td></td><td>0</td></tr>"
    "<tr><td>Antwerp</td><td>0</td></tr></tbody></table>"
)


def test_markdown_makes_a_data_table_a_github_table():
    markdown = sitewise.extract(page(RESULTS), output="markdown")
    assert ("\n\nVotes\n\n"
            "| Port | For \\| against | Abstained |\n"
            "| --- | --- | --- |\n"
            "| Hamburg | 412 (late count) | 0 |\n"
            "| Rotterdam & co |  | 0 |\n"
            "| Antwerp | 0 |  |\n\n") in markdown


def test_markdown_lays_out_spanned_cells_and_a_table_without_th():
    # the first row is the header without <th>; a colspan leaves the columns it covers empty, a rowspan
    # holds its column in the rows below
    table = ("<table><tr><td>Model</td><td>Weight</td><td>Price</td></tr>"
             "<tr><td rowspan='2'>Harbor crane</td><td colspan='2'>on request</td></tr>"
             "<tr><td>3 t</td><td>90 k</td></tr></table>")
    markdown = sitewise.extract(page(table), output="markdown")
    assert ("| Model | Weight | Price |\n| --- | --- | --- |\n| Harbor crane | on request |  |\n|  | 3 t | 90 k |"
            in markdown)


@pytest.mark.parametrize("table", [
    "<table><tr><td>Cargo ships wait in the bay</td></tr><tr><td>The ferries still sail</td></tr></table>",
    "<table><tr><td>Cargo ships wait in the bay</td><td>The ferries still sail</td></tr></table>",
    "<table><tr><td>Cargo ships wait in the bay</td><td><table><tr><td>The ferries still sail</td></tr></table></td></tr>"
    "<tr><td>Port office</td><td>Quay street 1</td></tr></table>",
    "<table><tr><td><h2>Cargo ships wait in the bay</h2></td><td>The ferries still sail</td></tr>"
    "<tr><td>Port office</td><td>Quay street 1</td></tr></table>",
], ids=["one column", "one row", "a table in it", "a heading in a cell"])
def test_markdown_leaves_a_layout_table_as_paragraphs(table):
    markdown = sitewise.extract(page(table), output="markdown")
    assert "|" not in markdown
    assert "\n\nCargo ships wait in the bay\n\n" in markdown or "\n\n## Cargo ships wait in the bay\n\n" in markdown


def test_markdown_keeps_the_part_of_a_table_the_article_holds():
    # rows without the header: the first row held is the header; a row of one cell is no table
    html = page(RESULTS)
    assert to_markdown("Rotterdam & co\n0\nAntwerp\n0", html) == "| Rotterdam & co |  | 0 |\n| --- | --- | --- |\n| Antwerp | 0 |  |"
    assert to_markdown("Hamburg\nThe end", html) == "Hamburg\n\nThe end"
