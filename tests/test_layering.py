"""The package's layers: imports point down only, and no module imports itself in a circle.

Every `import` counts, including those inside functions. The layers (docs/contributing.md):

  cli  ->  runner  ->  algorithms.coop  ->  algorithms.nash, algorithms.team
  ->  lp  ->  tree  ->  games  ->  bridge (rules and data)  ->  utilities
  bridge.agents  ->  games, bridge (rules and data), utilities

`lp` holds the team pieces that cooperative and team solvers share (the HiGHS wrapper, the team
decomposition, plans, exact team best responses); `tree.teams` says who plays with whom. A
cooperative module uses those, never a team solver; a team module never imports a cooperative
one, and the Nash and team solvers do not import each other. The runner and the command lines
import a team solver only through its public modules (`TEAM_PUBLIC`).
"""
import ast
import os

from tests import repo as tests_repo

PACKAGE = os.path.join(tests_repo.REPO, "ospiel_team")

UTIL, BRIDGE, GAMES, TREE, LP, NASH, TEAM, COOP, AGENTS, RUNNER, CLI = (
    "util", "bridge", "games", "tree", "lp", "nash", "team", "coop", "agents", "runner", "cli")
ALLOWED = {
    UTIL: {UTIL},
    BRIDGE: {UTIL, BRIDGE},
    GAMES: {UTIL, BRIDGE, GAMES},
    TREE: {UTIL, GAMES, TREE},
    LP: {UTIL, GAMES, TREE, LP},
    NASH: {UTIL, GAMES, TREE, NASH},
    TEAM: {UTIL, GAMES, TREE, LP, TEAM},
    COOP: {UTIL, GAMES, TREE, LP, NASH, COOP},
    AGENTS: {UTIL, BRIDGE, GAMES, AGENTS},
    RUNNER: {UTIL, GAMES, TREE, LP, NASH, TEAM, COOP, RUNNER},
    CLI: {UTIL, BRIDGE, GAMES, TREE, LP, NASH, TEAM, COOP, AGENTS, RUNNER, CLI},
}
# The team solvers' public API (the package and its public modules): all that a module outside
# `algorithms.team` imports.
TEAM_PUBLIC = {"ospiel_team.algorithms.team", "ospiel_team.algorithms.team.solver",
               "ospiel_team.algorithms.team.team_lp", "ospiel_team.algorithms.team.lp"}


def layer(module: str) -> str:
  if module == "ospiel_team":  # `import ospiel_team` registers the games
    return GAMES
  prefixes = [("ospiel_team.bridge.agents", AGENTS), ("ospiel_team.bridge", BRIDGE),
              ("ospiel_team.games", GAMES), ("ospiel_team.tree", TREE), ("ospiel_team.lp", LP),
              ("ospiel_team.algorithms.nash", NASH), ("ospiel_team.algorithms.team", TEAM),
              ("ospiel_team.algorithms.coop", COOP), ("ospiel_team.runner", RUNNER),
              ("ospiel_team.cli", CLI)]
  for prefix, name in prefixes:
    if module == prefix or module.startswith(prefix + "."):
      return name
  if module.count(".") == 1:
    return UTIL  # top-level helpers: atomic_io, processes, paths, ...
  raise AssertionError(f"{module} belongs to no layer: add it to tests/test_layering.py")


def modules():
  found = {}
  for dirpath, _, files in os.walk(PACKAGE):
    for f in files:
      if f.endswith(".py"):
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
        found[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
  return found


def imports(path: str, known) -> set:
  deps = set()
  for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ospiel_team"):
      for a in node.names:
        full = f"{node.module}.{a.name}"
        deps.add(full if full in known else node.module)
    elif isinstance(node, ast.Import):
      deps |= {a.name for a in node.names if a.name.startswith("ospiel_team")}
  return deps


def graph():
  known = modules()
  return {m: imports(p, known) - {m} for m, p in known.items()}


def test_every_import_points_down():
  g = graph()
  assert "ospiel_team.tree.game_tree" in g["ospiel_team.tree.evaluation"]  # parsed at all
  bad = []
  for m, deps in g.items():
    if m == "ospiel_team" or m.endswith("__init__"):
      continue
    for d in deps:
      if layer(d) not in ALLOWED[layer(m)]:
        bad.append(f"{m} ({layer(m)}) imports {d} ({layer(d)})")
  assert not bad, "\n".join(sorted(bad))


def test_team_internals_stay_inside():
  """Outside `algorithms.team`, only the team solvers' public modules are imported."""
  g = graph()
  bad = [f"{m} imports {d}" for m, deps in g.items() for d in deps
         if layer(d) == TEAM and layer(m) != TEAM and d not in TEAM_PUBLIC]
  assert not bad, "\n".join(sorted(bad))


def test_no_import_cycles():
  g = graph()
  state, cycles = {}, []

  def visit(m, path):
    state[m] = "active"
    for d in sorted(g.get(m, ())):
      if d == "ospiel_team":
        continue
      if state.get(d) == "active":
        cycles.append(" -> ".join(path[path.index(d):] + [d]))
      elif d not in state:
        visit(d, path + [d])
    state[m] = "done"

  for m in sorted(g):
    if m not in state:
      visit(m, [m])
  assert not cycles, "\n".join(cycles)


def test_layering_catches_an_upward_import():
  assert CLI not in ALLOWED[layer("ospiel_team.tree.game_tree")]
  assert layer("ospiel_team.algorithms.coop.jps") not in ALLOWED[TEAM]
  assert TEAM not in ALLOWED[COOP] and TEAM not in ALLOWED[LP]


JPS = "ospiel_team.algorithms.coop.jps"
# Joint Policy Search's parts, bottom to top: each imports only parts listed before it, and
# the facade (the package's `__init__`) sits above them all.
JPS_PARTS = ["config", "structure", "sweep", "search", "schedule"]


def test_jps_parts_point_down():
  g = graph()
  bad = []
  for i, part in enumerate(JPS_PARTS):
    for d in g[f"{JPS}.{part}"]:
      if d == JPS or (d.startswith(JPS + ".") and d[len(JPS) + 1:] not in JPS_PARTS[:i]):
        bad.append(f"{JPS}.{part} imports {d}")
  # The rest of the package uses JPS through its facade only.
  bad += [f"{m} imports {d}" for m, deps in g.items() if not m.startswith(JPS)
          for d in deps if d.startswith(JPS + ".")]
  assert not bad, "\n".join(sorted(bad))


# The tree core's own order, bottom up: the array schema and the memory budget, the builders
# that make arrays, then `GameTree`, the one class that makes a tree from them.
TREE_CORE = ("ospiel_team.tree.arrays", "ospiel_team.tree.memory", "ospiel_team.tree.builders",
             "ospiel_team.tree.game_tree")


def test_tree_arrays_are_built_below_the_tree():
  """A builder never needs a tree; nothing but `GameTree.from_arrays` makes one without
  `GameTree(...)`, and no module writes onto a tree (algorithms keep their caches)."""
  g = graph()
  bad = [f"{m} imports {above}" for i, m in enumerate(TREE_CORE) for above in TREE_CORE[i + 1:]
         if above in g[m]]
  for m, path in modules().items():
    source = open(path, encoding="utf-8").read()
    bad += [f"{m} uses {s}" for s in ("GameTree.__new__", "tree.__dict__", "tree.__setattr__")
            if s in source and m != TREE_CORE[-1]]
  assert not bad, "\n".join(sorted(bad))


# The scripts beside the library use its public API only: no private module (`_x`) imported,
# no private name imported from or read off an `ospiel_team` module.
SCRIPT_FOLDERS = ("benchmarks", "experiments")


def private_uses(source: str) -> list[str]:
  """The private names of `ospiel_team` that `source` imports or reads off an imported module."""
  tree = ast.parse(source)
  aliases, bad = {}, []
  for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ospiel_team"):
      bad += [node.module for p in node.module.split(".") if p.startswith("_")][:1]
      for a in node.names:
        if a.name.startswith("_"):
          bad.append(f"{node.module}.{a.name}")
        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    elif isinstance(node, ast.Import):
      for a in node.names:
        if a.name.startswith("ospiel_team"):
          bad += [a.name for p in a.name.split(".") if p.startswith("_")][:1]
          aliases[a.asname or a.name.split(".")[0]] = a.name
  for node in ast.walk(tree):
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        and node.value.id in aliases and node.attr.startswith("_")
        and not node.attr.startswith("__")):
      bad.append(f"{aliases[node.value.id]}.{node.attr} (line {node.lineno})")
  return bad


def test_the_lint_sees_private_uses():
  source = ("from ospiel_team.cli import _flags\nfrom ospiel_team.bridge import _x as y\n"
            "from ospiel_team.algorithms.nash import exploitability_descent as ed\n"
            "import ospiel_team.tree._private\nf(ed._EDSolverBase, ed.TabularEDSolver)\n")
  assert private_uses(source) == [
      "ospiel_team.cli._flags", "ospiel_team.bridge._x", "ospiel_team.tree._private",
      "ospiel_team.algorithms.nash.exploitability_descent._EDSolverBase (line 5)"]
  assert private_uses("from ospiel_team.bridge.agents.evaluation import match\n"
                      "match.run_match()\n") == []


def test_benchmarks_and_experiments_use_the_public_api_only():
  bad, seen = [], 0
  for folder in SCRIPT_FOLDERS:
    for root, _, names in os.walk(os.path.join(tests_repo.REPO, folder)):
      for name in sorted(n for n in names if n.endswith(".py")):
        path = os.path.join(root, name)
        seen += 1
        bad += [f"{os.path.relpath(path, tests_repo.REPO)}: {u}"
                for u in private_uses(open(path, encoding="utf-8").read())]
  assert seen > 40  # both folders walked
  assert not bad, "\n".join(sorted(bad))
