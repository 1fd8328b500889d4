"""No import circles among sitewise's, the server's and the worker's modules: each module's imports (those
inside functions too, which are circles waiting for the first call) form an acyclic graph."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The design's top-level code folders.
CODE_FOLDERS = ("sitewise", "server", "worker", "bookmarklet")


def package_roots() -> dict[str, Path]:
    """Package name → folder, as pyproject.toml installs them (a ``package-dir`` mapping may install a
    folder under another name, e.g. ``server/`` as ``sitewise.server``)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {name: ROOT / folder for name, folder in setuptools.get("package-dir", {}).items() if name}
    roots = {name: ROOT / name for name in CODE_FOLDERS if (ROOT / name / "__init__.py").is_file()}
    roots = {name: folder for name, folder in roots.items() if folder not in mapped.values()}
    return {**roots, **mapped}


def modules() -> dict[str, Path]:
    """Every module's dotted name → its file (a package's is its ``__init__.py``)."""
    found: dict[str, Path] = {}
    roots = package_roots()
    for package, folder in roots.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if any(other != folder and other in path.parents for other in roots.values() if folder in other.parents):
                continue  # a sub-folder installed under a name of its own
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported_names(module: str, path: Path) -> list[tuple[str, str]]:
    """What a module imports, run-time imports only, relative names resolved: (name, what it is when
    ``name`` is no module) pairs. ``from package import name`` gives (``package.name``, ``package``):
    a sub-module, or something of the package's ``__init__``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[tuple[str, str]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue  # annotations only: never executed
            if isinstance(child, ast.Import):
                names.extend((alias.name, alias.name) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join(anchor + ([child.module] if child.module else []))
                names.extend((f"{base}.{alias.name}", base) for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return names


def import_graph() -> dict[str, set[str]]:
    """Module → the project's modules it imports. A module's parent packages, which Python imports
    first, are not counted: every module would otherwise "import" its package's ``__init__``."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        targets = {name if name in known else fallback for name, fallback in imported_names(module, path)}
        graph[module] = (targets & known.keys()) - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (its modules, first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_graph_sees_the_code():
    graph = import_graph()
    app = next(name for name in graph if name.endswith("sitewise.server.app"))
    assert {name.rpartition(".")[2] for name in graph[app]} >= {"api", "services", "health", "pages", "rules"}
    assert "sitewise.pipeline" in graph["sitewise.api"]  # an import inside a function counts
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_there_are_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle)
