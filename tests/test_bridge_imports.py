"""Bridge code by responsibility: no import cycles among ospiel_team.bridge modules (counting
imports inside functions too), and bidding with a saved model does not import the trainer."""
import ast
import os
import subprocess
import sys

_BRIDGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "ospiel_team", "bridge")


def _graph():
  mods = {f[:-3] for f in os.listdir(_BRIDGE) if f.endswith(".py") and f != "__init__.py"}
  graph = {}
  for m in mods:
    tree = ast.parse(open(os.path.join(_BRIDGE, m + ".py")).read())
    deps = set()
    for node in ast.walk(tree):
      if isinstance(node, ast.ImportFrom) and node.module == "ospiel_team.bridge":
        deps |= {a.name for a in node.names if a.name in mods}
      elif isinstance(node, ast.ImportFrom) and node.module and \
          node.module.startswith("ospiel_team.bridge."):
        deps.add(node.module.split(".")[2])
      elif isinstance(node, ast.Import):
        deps |= {a.name.split(".")[2] for a in node.names
                 if a.name.startswith("ospiel_team.bridge.")}
    graph[m] = deps - {m}
  return graph


def test_no_import_cycles():
  graph = _graph()
  assert "a2c" in graph["jps_bid"] and "policy_net" in graph["model_bidder"]  # parsed at all
  state = {}

  def visit(m, path):
    state[m] = "active"
    for d in sorted(graph.get(m, ())):
      if state.get(d) == "active":
        raise AssertionError(f"import cycle: {' -> '.join(path + [m, d])}")
      if d not in state:
        visit(d, path + [m])
    state[m] = "done"

  for m in sorted(graph):
    if m not in state:
      visit(m, [])


def test_loading_a_model_does_not_import_the_trainer():
  code = ("import sys; from ospiel_team.bridge import model_bidder, bidders; "
          "b = bidders.make_bidder('a2c'); "
          "print('ospiel_team.bridge.a2c' in sys.modules, "
          "'ospiel_team.bridge.model_bidder' in sys.modules)")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False", "True"]
  out = subprocess.run([sys.executable, "-c", "import sys; from ospiel_team.bridge import "
                        "bidders, match; print('jax' in sys.modules)"],
                       capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False"]  # built-in bidders and matches need no JAX
