"""benchmarks/cfr_peers.py: the export to LiteEFG's format, the policy mapping, one small run.

The peers benchmark must compare solvers on equal trees and score every solver's policy
correctly: the exported file holds our tree's histories and infosets (and LiteEFG, when
installed, reads back as many infosets); a policy dumped by a worker maps back onto our tree
unchanged; and on kuhn_poker OpenSpiel's C++ CFR+, which runs the same algorithm as our CFR+,
reaches the same NashConv after the same iterations, every final NashConv equal to OpenSpiel's.
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pyspiel
import pytest

from ospiel_team.algorithms.nash import cfr
from ospiel_team.tree.game_tree import GameTree
from tests import repo as tests_repo

sys.path.insert(0, os.path.join(tests_repo.REPO, "benchmarks"))
import cfr_peers  # noqa: E402

HAS_LITEEFG = importlib.util.find_spec("LiteEFG") is not None


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_export_holds_our_tree(game, tmp_path):
  tree = GameTree(pyspiel.load_game(game))
  path = str(tmp_path / "tree.game")
  written = cfr_peers.export_liteefg(tree, path)
  counted = cfr_peers.count_liteefg_file(path)
  assert counted["nodes"] == written["nodes"] == tree.num_nodes
  assert counted["infosets"] == tree.num_infosets
  assert counted["leaves"] == len(tree.terminals)
  assert counted["decision"] == len(tree.decisions)


@pytest.mark.skipif(not HAS_LITEEFG, reason="LiteEFG is an optional peer (the bench extra)")
def test_liteefg_reads_the_export(tmp_path):
  """LiteEFG's own reader of the exported file finds every infoset of leduc_poker."""
  code = (
      "import sys, json, pyspiel\n"
      "sys.path.insert(0, sys.argv[1])\n"
      "import cfr_peers\n"
      "from ospiel_team.tree.game_tree import GameTree\n"
      "tree = GameTree(pyspiel.load_game('leduc_poker'))\n"
      "cfr_peers.export_liteefg(tree, sys.argv[2] + '/t.game')\n"
      "spec = {'file': sys.argv[2] + '/t.game'}\n"
      "s = cfr_peers._LiteEFG('liteefg_cfr_plus', 'leduc_poker', spec)\n"
      "s.step()\n"
      "print(json.dumps(s.counts()))\n")
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  res = subprocess.run([sys.executable, "-c", code, os.path.join(tests_repo.REPO, "benchmarks"),
                        str(tmp_path)], capture_output=True, text=True, env=env, timeout=600)
  assert res.returncode == 0, res.stderr[-2000:]
  assert res.stdout.strip().splitlines()[-1] == '{"infosets": 936}'


def test_policy_mapping_round_trip(tmp_path):
  game = pyspiel.load_game("leduc_poker")
  tree = GameTree(game)
  solver = cfr.TreeCFRPlusSolver(tree)
  for _ in range(3):
    solver.evaluate_and_update_policy()
  avg = solver.average_policy_array()
  path = str(tmp_path / "p.npz")
  np.savez(path, kind="array", probs=avg)
  np.testing.assert_allclose(cfr_peers.policy_array(tree, path), avg, atol=1e-15)
  # By infoset key (OpenSpiel's workers), from a TabularPolicy's rows.
  tab = tree.tabular_policy(avg)
  keys = list(tab.state_lookup)
  np.savez(path, kind="keys", keys=np.array(keys),
           probs=tab.action_probability_array[[tab.state_lookup[k] for k in keys]])
  np.testing.assert_allclose(cfr_peers.policy_array(tree, path), avg, atol=1e-15)
  # Over legal actions by our infoset index (LiteEFG on the exported file).
  legal = tree.infoset_legal
  idx = np.arange(tree.num_infosets)[::-1]
  flat = np.concatenate([avg[i][legal[i]] for i in idx])
  np.savez(path, kind="legal", keys=idx, probs=flat, lengths=legal[idx].sum(axis=1))
  np.testing.assert_allclose(cfr_peers.policy_array(tree, path), avg, atol=1e-15)


def test_small_run_on_kuhn(tmp_path):
  solvers = ["cfr_plus", "openspiel_cpp_cfr_plus"] + (["liteefg_cfr_plus"] if HAS_LITEEFG
                                                       else [])
  row = cfr_peers.run_game("kuhn_poker", solvers, targets=[1e-2, 1e-3], max_iterations=400,
                           max_seconds=30, repeats=1, block_seconds=0.02, openspiel_check=True,
                           workdir=str(tmp_path), log=lambda m: None)
  assert row["tree"]["histories"] == 58 and row["tree"]["infosets"] == 12
  for name in solvers:
    s = row["solvers"][name]
    assert "error" not in s, s
    assert s["counts"]["infosets"] == 12
    assert s["openspiel_agrees"] and s["nash_conv_fell"]
    assert s["to_target"]["0.01"] is not None
    assert s["memory"]["peak_rss_bytes"] > s["memory"]["rss_after_imports"] > 0
    assert s["speed"]["cpu_ms_per_iteration"] > 0
  if HAS_LITEEFG:
    assert row["export"]["file_counts"]["nodes"] == 58
  # The same algorithm: OpenSpiel's C++ CFR+ and ours agree checkpoint for checkpoint.
  ours = {p[0]: p[3] for p in row["solvers"]["cfr_plus"]["checkpoints"]}
  cpp = {p[0]: p[3] for p in row["solvers"]["openspiel_cpp_cfr_plus"]["checkpoints"]}
  common = sorted(set(ours) & set(cpp))
  assert len(common) >= 20
  assert max(abs(ours[i] - cpp[i]) for i in common) < 1e-9
  assert not os.listdir(tmp_path), "the run left files behind"


def test_growth_smoke_rung(tmp_path):
  """cfr_growth.py's smallest goofspiel rung: both solvers measured and checked, a figure."""
  out, fig = tmp_path / "g.json", tmp_path / "g.png"
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO, MPLBACKEND="Agg")
  res = subprocess.run(
      [sys.executable, os.path.join(tests_repo.REPO, "benchmarks", "cfr_growth.py"),
       "--ladder", "smoke", "--families", "goofspiel", "--solvers",
       "cfr_plus,openspiel_cpp_cfr_plus", "--max_seconds", "2", "--repeats", "1",
       "--block_seconds", "0.02", "--json_out", str(out), "--figure", str(fig)],
      capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
  assert res.returncode == 0, res.stderr[-2000:]
  import json
  rec = json.loads(out.read_text())
  (rung,) = rec["families"]["goofspiel"]
  assert rung["histories"] == 67 and not rec["stopped"]["goofspiel"]
  for name in ("cfr_plus", "openspiel_cpp_cfr_plus"):
    s = rung["solvers"][name]
    assert s["cpu_ms_per_iteration"] > 0 and s["openspiel_agrees"]
    assert s["iterations_to_target"] is not None  # NashConv 1e-3 on this small game
  assert fig.exists()


# -- bounds, resumption and the page (the alone run's records) -----------------------------------

def _script(name, args, tmp_path):
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO, MPLBACKEND="Agg")
  res = subprocess.run([sys.executable, os.path.join(tests_repo.REPO, "benchmarks", name)] +
                       [str(a) for a in args], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  return res


@pytest.mark.parametrize(("bound", "why"), [({"max_setup_seconds": 1e-3}, "time"),
                                            ({"max_worker_bytes": 1}, "memory")])
def test_worker_past_its_bound_is_killed_and_recorded(bound, why, tmp_path):
  """A worker over its set-up time or memory is killed and its solver fails with the bound
  named (JAX's set-up takes seconds: past the parent's first poll); nothing is left running."""
  row = cfr_peers.run_game("kuhn_poker", ["openspiel_jax_cfr_plus"], targets=[1e-2],
                           max_iterations=30, max_seconds=5, repeats=0, block_seconds=0.02,
                           openspiel_check=False, workdir=str(tmp_path), log=lambda m: None,
                           **bound)
  jax = row["solvers"]["openspiel_jax_cfr_plus"]
  assert jax["limit"] == why and jax["error"].startswith("set-up: worker"), jax
  assert ("over the bound of" if why == "memory" else "no reply in") in jax["error"]
  assert not cfr_peers._LIVE  # noqa: SLF001  (no worker left behind)


def test_peers_resumes_per_game(tmp_path):
  out, fig = tmp_path / "p.json", tmp_path / "p.png"
  base = ["--solvers", "cfr_plus", "--max_iterations", "30", "--repeats", "1",
          "--block_seconds", "0.02", "--json_out", out, "--figure", fig]
  _script("cfr_peers.py", ["--games", "kuhn_poker"] + base, tmp_path)
  rec = json.loads(out.read_text())
  rec["rows"][0]["sentinel"] = 1  # a finished game: a rerun must not run it again
  out.write_text(json.dumps(rec))
  _script("cfr_peers.py", ["--games", "kuhn_poker", "--games", "leduc_poker"] + base, tmp_path)
  rec = json.loads(out.read_text())
  assert [r["game"] for r in rec["rows"]] == ["kuhn_poker", "leduc_poker"]
  assert rec["rows"][0]["sentinel"] == 1 and len(rec["resumed"]) == 1
  assert rec["rows"][1]["tree"]["histories"] == 9457
  before = out.read_bytes()
  _script("cfr_peers.py", ["--games", "kuhn_poker", "--games", "leduc_poker"] + base, tmp_path)
  assert out.read_bytes() == before  # nothing left to run: the record is unchanged
  assert fig.exists()


def _growth(tmp_path, *args):
  out, fig = tmp_path / "g.json", tmp_path / "g.png"
  _script("cfr_growth.py", ["--families", "goofspiel", "--max_seconds", "1", "--repeats", "1",
                            "--block_seconds", "0.02", "--json_out", out, "--figure", fig] +
          list(args), tmp_path)
  return json.loads(out.read_text()), out


def test_growth_resumes_per_cell_within_its_time_bound(tmp_path):
  smoke = ["--ladder", "smoke", "--solvers", "cfr_plus,openspiel_cpp_cfr_plus"]
  rec, out = _growth(tmp_path, *smoke, "--max_minutes", "1e-9")  # no cell starts
  goofspiel3 = ("turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=3,"
                "points_order=descending))")
  assert rec["not_run"] == {"goofspiel": [goofspiel3]}
  assert not rec["families"].get("goofspiel")
  rec, out = _growth(tmp_path, *smoke, "--max_minutes", "0")
  (rung,) = rec["families"]["goofspiel"]
  assert rung["game"] == goofspiel3 and rung["histories"] == 67 and rec["not_run"] == {}
  assert set(rung["solvers"]) == {"cfr_plus", "openspiel_cpp_cfr_plus"}
  # A run stopped inside a rung: one cell done (marked), one missing; the rerun runs the
  # missing one only.
  rung["solvers"]["cfr_plus"]["sentinel"] = 1
  del rung["solvers"]["openspiel_cpp_cfr_plus"]
  out.write_text(json.dumps(rec))
  rec, out = _growth(tmp_path, *smoke, "--max_minutes", "0")
  (rung,) = rec["families"]["goofspiel"]
  assert rung["solvers"]["cfr_plus"]["sentinel"] == 1
  assert rung["solvers"]["openspiel_cpp_cfr_plus"]["openspiel_agrees"]
  before = out.read_bytes()
  _growth(tmp_path, *smoke, "--max_minutes", "0")
  assert out.read_bytes() == before


def test_growth_stops_a_solver_at_its_bounds(tmp_path):
  """Past the iteration bound a solver climbs no further (one rung of the full ladder); past the
  memory bound it stops where it was killed."""
  rec, _ = _growth(tmp_path, "--ladder", "full", "--solvers", "openspiel_cpp_cfr_plus",
                   "--max_iteration_seconds", "1e-9")
  (rung,) = rec["families"]["goofspiel"]
  stop = rec["stopped"]["goofspiel"]["openspiel_cpp_cfr_plus"]
  assert stop["at"] == rung["game"] and stop["why"].startswith("time: one iteration takes")
  assert rec["not_run"] == {}
  (tmp_path / "m").mkdir()
  rec, _ = _growth(tmp_path / "m", "--ladder", "full", "--solvers", "cfr_plus",
                   "--max_memory_gb", "1e-6")
  (rung,) = rec["families"]["goofspiel"]
  assert rung["solvers"]["cfr_plus"]["limit"] == "memory"
  assert rec["stopped"]["goofspiel"]["cfr_plus"]["why"].startswith("memory:")


def test_the_speed_page_renders_the_alone_run_records(tmp_path):
  """The records and figures the alone run writes (here at tiny sizes) are what the speed page
  renders: the peers table and the growth tables show their games."""
  docs = os.path.join(tests_repo.REPO, "docs")
  if docs not in sys.path:
    sys.path.insert(0, docs)
  import shutil

  import render
  from render import common
  results = tmp_path / "results"
  shutil.copytree(common.RESULTS, results)
  speed = results / "speed"
  _script("cfr_peers.py", ["--games", "kuhn_poker", "--solvers", "cfr_plus,openspiel_cpp_cfr_plus",
                           "--max_iterations", "30", "--repeats", "1", "--block_seconds", "0.02",
                           "--json_out", speed / "cfr_peers.json",
                           "--figure", tmp_path / "cfr_peers.png"], tmp_path)
  _script("cfr_growth.py", ["--ladder", "smoke", "--families", "goofspiel,team_kuhn",
                            "--solvers", "cfr_plus,liteefg_cfr_plus", "--max_seconds", "1",
                            "--repeats", "1", "--block_seconds", "0.02",
                            "--json_out", speed / "cfr_growth.json",
                            "--figure", tmp_path / "cfr_growth.png"], tmp_path)
  assert (tmp_path / "cfr_peers.png").stat().st_size > 0
  assert (tmp_path / "cfr_growth.png").stat().st_size > 0
  original = common.RESULTS
  try:
    common.set_results_dir(str(results))
    page = render.render_page(os.path.join(docs, "results", "speed.md"))
  finally:
    common.set_results_dir(original)
  assert "| kuhn_poker (58) | ours CFR+ |" in page
  assert "| goofspiel | goofspiel (imperfect information), 3 cards | 67 |" in page
  assert "| team_kuhn | ours CFR+ | `team_kuhn(ranks=4)` | 617 |" in page
  assert "team_kuhn, LiteEFG CFR+: stops at `team_kuhn(ranks=4)`" in page
  assert "cfr_peers_liars_dice" not in page
  # The alone run's figures are the ones the page shows (the scripts' default --figure).
  for script in ("cfr_peers", "cfr_growth"):
    with open(os.path.join(tests_repo.REPO, "benchmarks", script + ".py"), encoding="utf-8") as f:
      assert f'"figure", "docs/img/{script}.png"' in f.read()
    assert f"](../img/{script}.png)" in page
