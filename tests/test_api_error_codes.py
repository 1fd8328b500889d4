"""docs/api.md lists every error code the server answers with: clients branch on them."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ``ApiError(507, "storage_full", …)`` and ``code="invalid_page"``: the codes the server's code names.
_CODE = re.compile(r'ApiError\(\s*\d{3},\s*"([a-z_]+)"|\bcode(?::\s*str)?\s*=\s*"([a-z_]+)"')


def test_the_api_docs_list_every_error_code_the_server_answers_with():
    source = "\n".join(path.read_text() for path in (ROOT / "server").glob("*.py"))
    codes = {first or second for first, second in _CODE.findall(source)}
    docs = (ROOT / "docs" / "api.md").read_text()
    listed = docs[docs.index("`error` is a stable code"):]
    listed = set(re.findall(r"`([a-z_]+)`", listed[: listed.index(";")]))
    assert {"storage_full", "store_full", "invalid_page", "bad_json"} <= codes  # the pattern finds them
    assert codes <= listed, sorted(codes - listed)
