"""docs/api.md lists every error code the server answers with, and each route's statuses as
server/openapi.json describes them: clients branch on them."""
from __future__ import annotations

import json
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


def test_the_api_docs_list_the_statuses_openapi_json_describes_for_each_route():
    document = json.loads((ROOT / "server" / "openapi.json").read_text())
    described = {f"{method.upper()} {path.replace('{', '<').replace('}', '>')}": set(operation["responses"]) - {"500"}
                 for path, item in document["paths"].items() for method, operation in item.items()}
    docs = (ROOT / "docs" / "api.md").read_text()
    table = docs[docs.index("### Statuses by route"):]
    table = table[: table.index("\n### ", 1)]
    listed = {route: set(statuses.split(", ")) for route, statuses in re.findall(r"^\| `([A-Z]+ [^`]+)` \| ([\d, ]+) \|$", table, re.M)}
    assert listed == described
