r"""Our CFR family beside every peer solver on the same game tree, in one run per game.

Solvers (`--solvers`): our `cfr.TreeCFRPlusSolver`, `TreeDCFRSolver` and `TreePCFRPlusSolver`
(numba kernels on the `GameTree`); OpenSpiel's C++ `pyspiel.CFRPlusSolver`; OpenSpiel's JAX
CFR+ (`open_spiel.python.jax.cfr.jax_cfr.JaxCFR`, regret matching+, alternating updates,
linear averaging; float64 unless `--nojax_x64`); LiteEFG's CFR+, DCFR and PCFR+ (`liteefg` on
PyPI, MIT; `pip install -e ".[bench]"`) on its own game-file format, the file exported from our
tree (`export_liteefg`), and LiteEFG's CFR+ through its `OpenSpielEnv` (which walks the pyspiel
game in Python and writes its own file of the same format). A peer that is not installed is
skipped with a line in the record; a game a peer cannot run (LiteEFG's baselines update
players 1 and 2 only) is skipped likewise.

Every solver runs in its own subprocess (`--worker`), so that its set-up and peak memory are
its own: the peak is `resource.getrusage(RUSAGE_SELF).ru_maxrss` of that process (C++ and
XLA allocations included), given with its resident size after the imports. The parent drives
all workers of a game in turn, alternating their order every round:

1. Set-up: CPU and wall seconds to build what the solver needs from the pyspiel game (our
   `GameTree` and solver; OpenSpiel's solver; JAX's tables; LiteEFG's file load and graph;
   the export of our tree to LiteEFG's file is timed in the parent and reported beside it).
2. Convergence: each solver advances to its next checkpoint (after every iteration to 20, then
   every `--check_growth` of the iterations done), in rotating order, until its average policy's
   NashConv falls below every `--targets` value, `--max_iterations` or `--max_seconds` of its
   CPU time in iterations after the first. The average policy is sent to the parent, mapped onto
   our tree by information-state key and scored by `tree.evaluation.nash_conv` (not charged to
   the solver). CPU seconds to a target are the solver's own (`time.process_time` of its
   process, every thread) over its iterations, the first one (numba cache load, JAX compile)
   included, and without the first one (`cpu_s_after_first`, the figure's axis); set-up is
   reported apart and added in `cpu_s_with_setup`.
3. Speed: `--repeats` rounds, each timing a block of about `--block_seconds` CPU seconds of
   every solver in turn (the order rotates); CPU and wall milliseconds per iteration are the
   medians over rounds.
4. Check: the final average policy of every solver is scored by OpenSpiel's own
   `exploitability.nash_conv` (`--openspiel_check`), which must equal ours to 1e-9 relative,
   and its NashConv must have fallen from the first checkpoint.

Equal trees: the record counts each solver's tree in its own terms: our histories and
infosets; the infosets in OpenSpiel C++'s average policy; the histories (rows of its
per-depth tables) and infosets of JAX's tables; the nodes and infosets of LiteEFG's file and
the infosets LiteEFG returns strategies for. One CFR+ iteration is one update of each player
in turn everywhere.

Bounds: a worker's set-up may take `--max_setup_seconds` of wall time, a block of its
iterations twice `--max_seconds` plus two minutes, and the live workers together
`--max_memory_gb` of resident memory (polled while the parent waits); a worker past a bound
is killed and its solver recorded as failed, with `limit` "time" or "memory" (the rest of
the game goes on).

The record (`--json_out`, written atomically after every game) holds the command, commit,
machine, the load average before and after each game, `alone` (whether the machine was
otherwise idle: the operator says so with `--alone`) and per solver everything above; a
Markdown table goes to stdout, and `--figure` draws NashConv against CPU seconds. A rerun
with the same settings keeps the games the record holds and runs the others (`--rerun`: all
again). The alone run of the page (leduc_poker and liars_dice, about 14 minutes on 2 cores;
benchmarks/README.md gives the whole sequence):

  python benchmarks/cfr_peers.py --alone

Usage:
  python benchmarks/cfr_peers.py --games kuhn_poker --games leduc_poker --max_seconds 5
"""

from __future__ import annotations

import json
import os
import platform
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from absl import app
from absl import flags

FLAGS = flags.FLAGS
_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (label, family of the peer, algorithm).
SOLVERS = {
    "cfr_plus": ("ours CFR+", "ours", "CFR+"),
    "dcfr": ("ours DCFR", "ours", "DCFR"),
    "pcfr_plus": ("ours PCFR+", "ours", "PCFR+"),
    "openspiel_cpp_cfr_plus": ("OpenSpiel C++ CFR+", "openspiel_cpp", "CFR+"),
    "openspiel_jax_cfr_plus": ("OpenSpiel JAX CFR+", "openspiel_jax", "CFR+"),
    "liteefg_cfr_plus": ("LiteEFG CFR+", "liteefg", "CFR+"),
    "liteefg_dcfr": ("LiteEFG DCFR", "liteefg", "DCFR"),
    "liteefg_pcfr_plus": ("LiteEFG PCFR+", "liteefg", "PCFR+"),
    "liteefg_cfr_plus_openspiel_env": ("LiteEFG CFR+ (OpenSpielEnv)", "liteefg", "CFR+"),
}
# The module each peer family needs (skipped with a line when it does not import).
_NEEDS = {"openspiel_jax": "open_spiel.python.jax.cfr.jax_cfr", "liteefg": "LiteEFG"}


# -- LiteEFG's game-file format, written from our tree ------------------------------------------

def export_liteefg(tree, path: str) -> dict:
  """Writes `tree` in LiteEFG's game-file format (its `FileEnv`), the OpenSpiel dialect.

  Nodes are named `n<index>` (our node index); a chance node lists its children with their
  probabilities, a decision node its children in the order of their actions (ascending, the
  order of our policy arrays' legal columns), a leaf every player's return; each infoset
  `pl<player>_<k>__s<our infoset>` lists its histories. The header is the one LiteEFG's own
  `OpenSpielEnv` writes (`openspiel,`: children named by node, not by action).

  Args:
    tree: a `GameTree`.
    path: the file to write.

  Returns:
    {"nodes", "chance", "decision", "leaves", "infosets", "bytes", "cpu_s"}: what was written.
  """
  from ospiel_team.tree.game_tree import CHANCE
  from ospiel_team.tree.game_tree import TERMINAL
  c0 = time.process_time()
  parent, action = tree.node_parent, tree.node_action
  kids = np.arange(1, tree.num_nodes)
  order = kids[np.lexsort((action[kids], parent[kids]))]
  starts = np.searchsorted(parent[order], np.arange(tree.num_nodes))
  ends = np.searchsorted(parent[order], np.arange(tree.num_nodes), side="right")
  player, prob, ret = tree.node_player, tree.node_chance_prob, tree.node_returns
  num_p = tree.num_players
  lines = ["# LiteEFG game file exported from ospiel_team's GameTree", "#", "# Opt {",
           "#     openspiel,", f"#     players: {num_p},", "# }", "#"]
  counts = dict(chance=0, decision=0, leaves=0)
  for n in range(tree.num_nodes):
    ch = order[starts[n]:ends[n]]
    if player[n] == TERMINAL:
      pay = " ".join(f"{p + 1}={ret[n, p]:.17g}" for p in range(num_p))
      lines.append(f"node n{n} leaf payoffs {pay}")
      counts["leaves"] += 1
    elif player[n] == CHANCE:
      lines.append(f"node n{n} chance actions " +
                   " ".join(f"n{c}={prob[c]:.17g}" for c in ch))
      counts["chance"] += 1
    else:
      lines.append(f"node n{n} player {player[n] + 1} actions " + " ".join(f"n{c}" for c in ch))
      counts["decision"] += 1
  dec = tree.decisions
  by_infoset = np.argsort(tree.node_infoset[dec], kind="stable")
  inf_sorted = tree.node_infoset[dec][by_infoset]
  bounds = np.searchsorted(inf_sorted, np.arange(tree.num_infosets + 1))
  inf_player = tree.node_player[tree.first_node()]
  k = [0] * num_p
  for i in range(tree.num_infosets):
    nodes = dec[by_infoset[bounds[i]:bounds[i + 1]]]
    p = int(inf_player[i])
    lines.append(f"infoset pl{p + 1}_{k[p]}__s{i} nodes " + " ".join(f"n{m}" for m in nodes))
    k[p] += 1
  text = "\n".join(lines) + "\n"
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)
  return dict(nodes=int(tree.num_nodes), infosets=int(tree.num_infosets), bytes=len(text),
              cpu_s=time.process_time() - c0, **counts)


def count_liteefg_file(path: str) -> dict:
  """Nodes (by kind) and infosets of a LiteEFG game file, counted from its lines."""
  out = dict(nodes=0, chance=0, decision=0, leaves=0, infosets=0)
  with open(path, encoding="utf-8") as f:
    for line in f:
      if line.startswith("node "):
        out["nodes"] += 1
        kind = line.split(" ", 3)[2]
        out[{"chance": "chance", "player": "decision", "leaf": "leaves"}[kind]] += 1
      elif line.startswith("infoset "):
        out["infosets"] += 1
  return out


# -- the worker (one solver in its own process) -------------------------------------------------

def _rss_bytes() -> int:
  with open("/proc/self/status", encoding="utf-8") as f:
    for line in f:
      if line.startswith("VmRSS:"):
        return int(line.split()[1]) * 1024
  return 0


def _maxrss_bytes() -> int:
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Solver:
  """What the worker drives: set-up in the constructor, `step`, `sync`, `dump`, `counts`."""

  def sync(self) -> None:
    """Waits for queued work (JAX dispatches asynchronously)."""

  def counts(self) -> dict:
    return {}


class _Ours(_Solver):
  def __init__(self, name: str, game_name: str, spec: dict):
    del spec
    import pyspiel

    from ospiel_team.algorithms.nash import cfr
    from ospiel_team.tree.game_tree import GameTree
    cls = {"cfr_plus": cfr.TreeCFRPlusSolver, "dcfr": cfr.TreeDCFRSolver,
           "pcfr_plus": cfr.TreePCFRPlusSolver}[name]
    self.tree = GameTree(pyspiel.load_game(game_name))
    self.solver = cls(self.tree)
    self.step = self.solver.evaluate_and_update_policy

  def dump(self, path: str) -> None:
    np.savez(path, kind="array", probs=self.solver.average_policy_array())

  def counts(self) -> dict:
    t = self.tree
    return dict(histories=int(t.num_nodes), nonterminal=int(t.num_nodes - len(t.terminals)),
                infosets=int(t.num_infosets))


class _OpenSpielCpp(_Solver):
  def __init__(self, name: str, game_name: str, spec: dict):
    del name, spec
    import pyspiel
    self.game = pyspiel.load_game(game_name)
    self.solver = pyspiel.CFRPlusSolver(self.game)
    self.step = self.solver.evaluate_and_update_policy

  def dump(self, path: str) -> None:
    table = self.solver.tabular_average_policy().policy_table()
    keys = list(table)
    probs = np.zeros((len(keys), self.game.num_distinct_actions()))
    for r, k in enumerate(keys):
      for a, p in table[k]:
        probs[r, a] = p
    np.savez(path, kind="keys", keys=np.array(keys), probs=probs)

  def counts(self) -> dict:
    return dict(infosets=len(self.solver.tabular_average_policy().policy_table()))


class _OpenSpielJax(_Solver):
  def __init__(self, name: str, game_name: str, spec: dict):
    del name
    import jax
    if spec.get("x64", True):
      jax.config.update("jax_enable_x64", True)
    import pyspiel
    from open_spiel.python.jax.cfr import jax_cfr
    self.jax = jax
    self.game = pyspiel.load_game(game_name)
    self.solver = jax_cfr.JaxCFR(self.game, regret_matching_plus=True,
                                 alternating_updates=True, linear_averaging=True)
    self.step = self.solver.evaluate_and_update_policy

  def sync(self) -> None:
    self.jax.block_until_ready(self.solver.averages)

  def dump(self, path: str) -> None:
    keys, rows = [], []
    a = self.game.num_distinct_actions()
    for pl in range(self.game.num_players()):
      avg = np.asarray(self.solver.averages[pl])
      for k, r in self.solver.iset_map[pl].items():
        if k:
          keys.append(k)
          rows.append(avg[r, :a])
    np.savez(path, kind="keys", keys=np.array(keys), probs=np.array(rows))

  def counts(self) -> dict:
    c = self.solver.constants
    return dict(histories=int(sum(len(h) for h in c.depth_history_player)),
                infosets=int(sum(c.isets) - c.players))


class _LiteEFG(_Solver):
  """LiteEFG's baselines as its `train` drives them: update_graph then update_strategy."""

  def __init__(self, name: str, game_name: str, spec: dict):
    import LiteEFG as leg
    from LiteEFG.baselines import DCFR
    from LiteEFG.baselines import PCFR
    from LiteEFG.baselines import CFRplus
    self.leg = leg
    self.openspiel_env = name == "liteefg_cfr_plus_openspiel_env"
    if self.openspiel_env:
      import pyspiel
      self.env = leg.OpenSpielEnv(pyspiel.load_game(game_name), traverse_type="Enumerate",
                                  regenerate=True)
    else:
      self.env = leg.FileEnv(spec["file"], traverse_type="Enumerate")
    if name == "liteefg_dcfr":  # DCFR_{3/2,0,2}, its own discounted average (its train())
      self.graph = DCFR.graph(1.5, 0, 2)
      self.node, self.kind = self.graph.current_strategy("average-iterate"), "last-iterate"
    else:
      self.graph = PCFR.graph() if name == "liteefg_pcfr_plus" else CFRplus.graph()
      self.node, self.kind = self.graph.current_strategy(), "linear-avg-iterate"
    self.env.set_graph(self.graph)

  def step(self) -> None:
    self.graph.update_graph(self.env)
    self.env.update_strategy(self.node, update_best=False)

  def _strategies(self):
    from urllib.parse import unquote
    for player in (1, 2):
      for name, probs in self.leg.FileEnv.get_strategy(self.env, player, self.node, self.kind):
        tail = name[name.find("__") + 2:]
        yield (unquote(tail) if self.openspiel_env else int(tail[1:])), probs

  def dump(self, path: str) -> None:
    keys, flat, lengths = [], [], []
    for key, probs in self._strategies():
      keys.append(key)
      flat.extend(probs)
      lengths.append(len(probs))
    kind = "legal_keys" if self.openspiel_env else "legal"
    np.savez(path, kind=kind, keys=np.array(keys), probs=np.array(flat),
             lengths=np.array(lengths))

  def counts(self) -> dict:
    return dict(infosets=sum(1 for _ in self._strategies()))


def _solver_class(name: str):
  family = SOLVERS[name][1]
  return {"ours": _Ours, "openspiel_cpp": _OpenSpielCpp, "openspiel_jax": _OpenSpielJax,
          "liteefg": _LiteEFG}[family]


def _worker_main(spec: dict) -> None:
  """Serves the parent's commands, one JSON line each way, on the original stdout."""
  proto = os.fdopen(os.dup(1), "w", buffering=1)
  os.dup2(2, 1)  # everything else the solver prints (C++ included) goes to stderr
  sys.stdout = sys.stderr

  def reply(**kw):
    proto.write(json.dumps(kw) + "\n")

  import pyspiel  # noqa: F401  (the imports every solver shares)

  import ospiel_team  # noqa: F401  (registers the package's games)
  base = dict(rss_after_imports=_rss_bytes(), maxrss_after_imports=_maxrss_bytes())
  c, w = time.process_time(), time.perf_counter()
  try:
    solver = _solver_class(spec["solver"])(spec["solver"], spec["game"], spec)
  except Exception as e:  # noqa: BLE001  (reported to the parent as the solver's failure)
    reply(error=f"{type(e).__name__}: {e}", **base)
    return
  reply(setup_cpu_s=time.process_time() - c, setup_wall_s=time.perf_counter() - w,
        rss_after_setup=_rss_bytes(), **base)
  for line in sys.stdin:
    cmd = json.loads(line)
    op = cmd["op"]
    if op == "run":
      c, w = time.process_time(), time.perf_counter()
      for _ in range(cmd["n"]):
        solver.step()
      solver.sync()
      reply(cpu_s=time.process_time() - c, wall_s=time.perf_counter() - w)
    elif op == "dump":
      solver.dump(cmd["path"])
      reply(ok=True)
    elif op == "counts":
      reply(**solver.counts())
    elif op == "quit":
      reply(maxrss=_maxrss_bytes(), rss=_rss_bytes())
      return


class WorkerLimit(RuntimeError):
  """A worker killed by the parent: over its time or memory bound (`why`: "time"/"memory")."""

  def __init__(self, why: str, message: str):
    super().__init__(message)
    self.why = why


class Worker:
  """A solver's subprocess, driven by JSON commands (`_worker_main`).

  Every wait for a reply is bounded: `read(timeout)` kills the worker when the reply takes
  longer than `timeout` wall seconds, or when its resident memory exceeds `max_rss_bytes`
  (polled every `_POLL_S`), and raises `WorkerLimit` naming the bound.
  """

  _POLL_S = 0.25

  def __init__(self, solver: str, game: str, spec: dict, log_path: str,
               max_rss_bytes: int | None = None):
    self.solver = solver
    self.log_path = log_path
    self.max_rss_bytes = max_rss_bytes  # of every live worker together
    self.peak_polled_rss = 0
    args = [sys.executable, os.path.abspath(__file__),
            "--worker=" + json.dumps(dict(spec, solver=solver, game=game))]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [_REPO, os.environ.get("PYTHONPATH", "")] if p))
    if solver == "liteefg_cfr_plus_openspiel_env":  # its converter writes under ~/game_instances
      env["HOME"] = os.path.dirname(log_path)
    self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115  (closed by close())
    self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=self._log, bufsize=0, env=env)
    self._buf = b""
    _LIVE.append(self)

  def _rss(self) -> int:
    try:
      with open(f"/proc/{self.proc.pid}/status", encoding="utf-8") as f:
        for line in f:
          if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    except OSError:
      pass
    return 0

  def _kill(self, why: str, message: str):
    self.proc.kill()
    self.proc.wait()
    if self in _LIVE:
      _LIVE.remove(self)
    raise WorkerLimit(why, f"worker {self.solver}: {message}")

  def read(self, timeout: float | None = None) -> dict:
    """The worker's next reply (one JSON line), within `timeout` wall seconds."""
    fd = self.proc.stdout.fileno()
    start = time.perf_counter()
    while b"\n" not in self._buf:
      ready, _, _ = select.select([fd], [], [], self._POLL_S)
      if ready:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
          self.proc.wait()
          raise RuntimeError(f"worker {self.solver} exited with {self.proc.returncode}: "
                             f"{self.log_tail()}")
        self._buf += chunk
        continue
      rss = self._rss()
      self.peak_polled_rss = max(self.peak_polled_rss, rss)
      total = sum(w._rss() for w in _LIVE)  # noqa: SLF001  (the same class)
      if self.max_rss_bytes and total > self.max_rss_bytes:
        self._kill("memory", f"the workers' resident memory {total / 2**30:.1f} GiB (this one "
                             f"{rss / 2**30:.1f} GiB) over the bound of "
                             f"{self.max_rss_bytes / 2**30:.1f} GiB")
      if timeout is not None and time.perf_counter() - start > timeout:
        self._kill("time", f"no reply in {timeout:.0f} s (the bound)")
    line, _, self._buf = self._buf.partition(b"\n")
    return json.loads(line)

  def ask(self, timeout: float | None = None, **cmd) -> dict:
    try:
      self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
      self.proc.stdin.flush()
    except OSError as e:  # the worker is gone (killed by the system, crashed)
      self.proc.wait()
      raise RuntimeError(f"worker {self.solver} exited with {self.proc.returncode}: "
                         f"{self.log_tail()}") from e
    return self.read(timeout)

  def log_tail(self, n: int = 1500) -> str:
    self._log.flush()
    with open(self.log_path, encoding="utf-8", errors="replace") as f:
      return f.read()[-n:]

  def close(self) -> dict:
    out = {}
    if self.proc.poll() is None:
      try:
        out = self.ask(op="quit", timeout=60)
      except (RuntimeError, BrokenPipeError, OSError):
        pass
      if self.proc.poll() is None:
        self.proc.kill()
      self.proc.wait(timeout=60)
    if self in _LIVE:
      _LIVE.remove(self)
    self._log.close()
    return out


# The workers alive now (their resident memory counts against every worker's bound).
_LIVE: list[Worker] = []


def default_memory_bound() -> int | None:
  """80% of the memory available now (the workers' bound unless `--max_memory_gb` says)."""
  from ospiel_team.tree import memory
  avail = memory.available_memory()
  return None if avail is None else int(0.8 * avail)


# -- the parent ---------------------------------------------------------------------------------

def policy_array(tree, path: str) -> np.ndarray:
  """A worker's dumped average policy as a policy array of `tree` (normalized on legal actions;
  uniform where nothing accumulated)."""
  d = np.load(path)
  kind = str(d["kind"])
  legal = tree.infoset_legal
  pi = np.zeros((tree.num_infosets, tree.num_actions))
  if kind == "array":
    pi[:] = d["probs"]
  elif kind == "keys":
    index = tree.infoset_index
    rows = np.array([index[k] for k in d["keys"]], dtype=np.int64)
    pi[rows] = d["probs"][:, :tree.num_actions]
  else:  # legal / legal_keys: probabilities over each infoset's legal actions, in order
    index = tree.infoset_index
    rows = [int(k) if kind == "legal" else index[k] for k in d["keys"]]
    flat, off = d["probs"], 0
    for r, n in zip(rows, d["lengths"], strict=True):
      cols = np.nonzero(legal[r])[0]
      if len(cols) != n:
        raise ValueError(f"infoset {r}: {n} probabilities for {len(cols)} legal actions")
      pi[r, cols] = flat[off:off + n]
      off += n
  pi = np.where(legal, np.maximum(pi, 0.0), 0.0)
  total = pi.sum(axis=1, keepdims=True)
  uniform = legal / legal.sum(axis=1, keepdims=True)
  return np.where(total > 0, pi / np.where(total > 0, total, 1.0), uniform)


def available(name: str) -> str | None:
  """None if the solver's peer imports, else why not (the skip line)."""
  module = _NEEDS.get(SOLVERS[name][1])
  if module is None:
    return None
  import importlib.util
  try:
    found = importlib.util.find_spec(module.split(".")[0]) is not None
    if found and "." in module:
      found = importlib.util.find_spec(module) is not None
  except (ImportError, ValueError):
    found = False
  if not found:
    hint = (' (pip install -e ".[bench]", or `pip install --no-deps liteefg pandas` to keep '
            "your JAX: liteefg 1.0.0 declares jax<0.8)") if SOLVERS[name][1] == "liteefg" else ""
    return f"skipped: {module} is not installed{hint}"
  return None


def _schedule(it: int, growth: float) -> int:
  return it + (1 if it < 20 else max(1, int(it * growth)))


def run_game(game_name: str, solvers: list[str], *, targets: list[float], max_iterations: int,
             max_seconds: float, repeats: int, block_seconds: float, openspiel_check: bool,
             check_growth: float = 0.05, jax_x64: bool = True, workdir: str | None = None,
             tree=None, max_setup_seconds: float | None = None,
             max_worker_bytes: int | None = None,
             openspiel_check_max_histories: int | None = None, log=print) -> dict:
  """Everything the module docstring lists, for one game. Returns the game's record row.

  Args:
    game_name: the pyspiel game string.
    solvers: names of `SOLVERS`, run side by side (alternating).
    targets: NashConv targets of the convergence runs.
    max_iterations: iteration cap of a convergence run.
    max_seconds: CPU seconds of a convergence run (its iterations after the first).
    repeats: timing rounds of the speed phase.
    block_seconds: CPU seconds of one timed block.
    openspiel_check: score the final policies by OpenSpiel's `exploitability.nash_conv` too.
    check_growth: after 20 iterations, check NashConv every this fraction of the iterations.
    jax_x64: OpenSpiel's JAX CFR in float64.
    workdir: where the workers' scratch folder goes (default: the system's).
    tree: our `GameTree` of the game, if already built (else built here).
    max_setup_seconds: wall seconds a worker's set-up may take (None: unbounded); a worker
      over it is killed and its solver recorded as failed with `limit: "time"`.
    max_worker_bytes: resident memory the live workers together may reach (None:
      unbounded); the worker being waited on when they exceed it is killed likewise, with
      `limit: "memory"`.
    openspiel_check_max_histories: above this many histories OpenSpiel's check is skipped
      (recorded in the row: its Python best response takes minutes on large trees).
    log: where progress lines go.
  """
  import pyspiel

  import ospiel_team  # noqa: F401
  from ospiel_team.tree import evaluation
  from ospiel_team.tree.game_tree import GameTree
  row = {"game": game_name, "load_before": [round(x, 2) for x in os.getloadavg()],
         "solvers": {}, "skipped": {}}
  game = pyspiel.load_game(game_name)
  c = time.process_time()
  tree = GameTree(game) if tree is None else tree
  row["tree"] = dict(histories=int(tree.num_nodes),
                     nonterminal=int(tree.num_nodes - len(tree.terminals)),
                     infosets=int(tree.num_infosets), build_cpu_s=time.process_time() - c,
                     players=int(tree.num_players))
  # A block of iterations (the first one: numba's or JAX's compilation included) may take at
  # most this long on the wall clock before its worker is killed.
  op_timeout = 2.0 * max_seconds + 120.0
  row["bounds"] = dict(max_setup_seconds=max_setup_seconds, max_worker_bytes=max_worker_bytes,
                       max_block_seconds=op_timeout)
  tmp = tempfile.mkdtemp(prefix="cfr_peers_", dir=workdir)
  spec = {"x64": jax_x64}
  if any(SOLVERS[s][1] == "liteefg" for s in solvers):
    spec["file"] = os.path.join(tmp, "tree.game")
  workers: dict[str, Worker] = {}
  for name in solvers:
    why = available(name)
    if why is None and SOLVERS[name][1] == "liteefg" and tree.num_players != 2:
      why = f"skipped: LiteEFG's baselines update players 1 and 2; {game_name} has " \
            f"{tree.num_players} players"
    if why:
      row["skipped"][name] = why
      log(f"{game_name}: {name} {why}")
      continue
    if SOLVERS[name][1] == "liteefg" and "export" not in row \
        and name != "liteefg_cfr_plus_openspiel_env":
      row["export"] = export_liteefg(tree, spec["file"])
      row["export"]["file_counts"] = count_liteefg_file(spec["file"])
    os.makedirs(os.path.join(tmp, name), exist_ok=True)
    # Set-up, one worker at a time (its CPU and wall seconds are its own).
    w = Worker(name, game_name, spec, os.path.join(tmp, name, "log.txt"),
               max_rss_bytes=max_worker_bytes)
    try:
      r = w.read(timeout=max_setup_seconds)
    except WorkerLimit as e:
      r = {"error": f"set-up: {e}", "limit": e.why}
    except RuntimeError as e:
      r = {"error": str(e)}
    if "error" in r:
      row["solvers"][name] = {"error": r["error"], "log": w.log_tail()}
      if "limit" in r:
        row["solvers"][name]["limit"] = r["limit"]
      log(f"{game_name}: {name} failed in set-up: {r['error']}")
      w.close()
      continue
    workers[name] = w
    row["solvers"][name] = {"setup": r, "checkpoints": []}

  def close(name: str) -> None:
    """Ends a worker; its peak memory (`ru_maxrss`, or the polled peak if it was killed)."""
    w = workers.pop(name)
    end = w.close()
    base = row["solvers"][name]["setup"]["rss_after_imports"]
    peak = end.get("maxrss") or w.peak_polled_rss
    if peak:
      row["solvers"][name]["memory"] = dict(
          peak_rss_bytes=peak, rss_after_imports=base, peak_over_imports_bytes=peak - base,
          **({} if end else {"polled": True}))

  lowest = min(targets)
  state = {n: {"it": 0, "cpu": 0.0, "wall": 0.0, "next": 1, "done": False} for n in workers}
  rnd = 0
  try:
    while not all(s["done"] for s in state.values()):
      names = list(workers)
      for name in names[rnd % len(names):] + names[:rnd % len(names)]:
        s = state[name]
        if s["done"]:
          continue
        path = os.path.join(tmp, name, "avg.npz")
        try:
          r = workers[name].ask(op="run", n=s["next"] - s["it"], timeout=op_timeout)
          workers[name].ask(op="dump", path=path, timeout=op_timeout)
        except RuntimeError as e:  # the worker died or was killed (memory, time, its failure)
          row["solvers"][name]["error"] = str(e)
          if isinstance(e, WorkerLimit):
            row["solvers"][name]["limit"] = e.why
          log(f"{game_name}: {name} failed: {e}")
          s["done"], s["failed"] = True, True
          continue
        s["cpu"] += r["cpu_s"]
        s["wall"] += r["wall_s"]
        if s["it"] == 0:
          row["solvers"][name]["first_iteration"] = r
        s["it"] = s["next"]
        pi = policy_array(tree, path)
        nc = float(evaluation.nash_conv(tree, pi, validate=False))
        row["solvers"][name]["checkpoints"].append([s["it"], s["cpu"], s["wall"], nc])
        s["next"] = _schedule(s["it"], check_growth)
        first = row["solvers"][name]["first_iteration"]["cpu_s"]  # (compile: not capped)
        if nc < lowest or s["it"] >= max_iterations or s["cpu"] - first >= max_seconds:
          s["done"] = True
          s["pi"] = pi
      rnd += 1
    for name in [n for n in state if state[n].get("failed")]:
      close(name)
      del state[name]
    for name, s in state.items():
      out = row["solvers"][name]
      pts = out["checkpoints"]
      out["iterations"], out["iterations_cpu_s"] = s["it"], s["cpu"]
      out["final_nash_conv"] = pts[-1][3]
      out["to_target"] = {}
      for tgt in targets:
        hit = next((p for p in pts if p[3] < tgt), None)
        first = out["first_iteration"]["cpu_s"]
        out["to_target"][f"{tgt:g}"] = None if hit is None else dict(
            iterations=hit[0], cpu_s=hit[1], wall_s=hit[2], cpu_s_after_first=hit[1] - first,
            cpu_s_with_setup=hit[1] + out["setup"]["setup_cpu_s"])
      out["nash_conv_fell"] = bool(len(pts) > 1 and pts[-1][3] < pts[0][3])
      out["counts"] = workers[name].ask(op="counts", timeout=op_timeout)
    # OpenSpiel's CFR+ (C++, JAX) is our CFR+'s algorithm: NashConv at the same iterations.
    if "cfr_plus" in state:
      ours = {p[0]: p[3] for p in row["solvers"]["cfr_plus"]["checkpoints"]}
      for name in ("openspiel_cpp_cfr_plus", "openspiel_jax_cfr_plus"):
        if name in state:
          theirs = {p[0]: p[3] for p in row["solvers"][name]["checkpoints"]}
          common = sorted(set(ours) & set(theirs))
          row["solvers"][name]["vs_ours_cfr_plus"] = dict(
              checkpoints=len(common),
              max_abs_diff=max((abs(ours[i] - theirs[i]) for i in common), default=None))
    # Speed: blocks of each solver in rotating order (a worker killed here keeps its
    # convergence results; its speed is recorded as failed).
    sizes = {}
    cpu = {n: [] for n in workers}
    wall = {n: [] for n in workers}
    for name, w in list(workers.items()):
      st = state[name]
      first = row["solvers"][name]["first_iteration"]["cpu_s"]
      try:  # the block's size from the convergence run's iterations after the first, or 3 more
        per = ((st["cpu"] - first) / (st["it"] - 1) if st["it"] >= 2 and st["cpu"] > first
               else w.ask(op="run", n=3, timeout=op_timeout)["cpu_s"] / 3 if repeats else 1.0)
      except RuntimeError as e:
        row["solvers"][name]["speed_error"] = str(e)
        close(name)
        continue
      sizes[name] = max(1, int(block_seconds / max(per, 1e-7)))
    names = list(workers)
    for r_ in range(repeats if names else 0):
      for name in names[r_ % len(names):] + names[:r_ % len(names)]:
        if name not in workers:
          continue
        try:
          r = workers[name].ask(op="run", n=sizes[name], timeout=op_timeout)
        except RuntimeError as e:
          row["solvers"][name]["speed_error"] = str(e)
          close(name)
          continue
        cpu[name].append(r["cpu_s"] / sizes[name])
        wall[name].append(r["wall_s"] / sizes[name])
    for name in workers:
      if repeats:
        row["solvers"][name]["speed"] = dict(
            cpu_ms_per_iteration=1e3 * statistics.median(cpu[name]),
            wall_ms_per_iteration=1e3 * statistics.median(wall[name]),
            iterations_per_block=sizes[name], rounds_cpu_ms=[1e3 * x for x in cpu[name]])
  finally:
    for name in list(workers):
      close(name)
  if openspiel_check and openspiel_check_max_histories is not None \
      and tree.num_nodes > openspiel_check_max_histories:
    row["openspiel_check_skipped"] = (
        f"{tree.num_nodes} histories > {openspiel_check_max_histories}: OpenSpiel's Python "
        "best response not run (our NashConv, equal to OpenSpiel's on the smaller games)")
    openspiel_check = False
  if openspiel_check:
    from open_spiel.python.algorithms import exploitability
    for name, s in state.items():
      c = time.process_time()
      theirs = float(exploitability.nash_conv(game, tree.tabular_policy(s["pi"])))
      ours = row["solvers"][name]["final_nash_conv"]
      row["solvers"][name]["openspiel_nash_conv"] = theirs
      row["solvers"][name]["openspiel_agrees"] = bool(
          abs(theirs - ours) <= 1e-9 * max(1.0, abs(theirs)))
      row["solvers"][name]["openspiel_check_cpu_s"] = time.process_time() - c
  row["load_after"] = [round(x, 2) for x in os.getloadavg()]
  shutil.rmtree(tmp, ignore_errors=True)
  return row


def command_line() -> str:
  """The command that runs this process, the script's path relative to the repository."""
  return "python " + " ".join([os.path.relpath(os.path.abspath(sys.argv[0]), _REPO)] +
                              sys.argv[1:])


def commit_label() -> str:
  """HEAD, and "+local changes" if the package or the script differ from it."""
  head = subprocess.run(["git", "-C", _REPO, "rev-parse", "HEAD"], capture_output=True,
                        text=True, check=False).stdout.strip()
  dirty = subprocess.run(["git", "-C", _REPO, "status", "--porcelain", "--", "ospiel_team",
                          "benchmarks/cfr_peers.py"], capture_output=True, text=True,
                         check=False).stdout.strip()
  return head + ("+local changes" if dirty else "")


def machine() -> dict:
  """CPU model, cores, memory and the versions of the solvers' packages."""
  import importlib.metadata as md
  model = ""
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
  except OSError:
    pass
  versions = {}
  for pkg in ("numpy", "numba", "open_spiel", "jax", "liteefg"):
    try:
      versions[pkg] = md.version(pkg)
    except md.PackageNotFoundError:
      versions[pkg] = None
  return {"cpu": model or platform.processor(), "cores": os.cpu_count(),
          "memory_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
          "python": platform.python_version(), **versions}


def _fmt(x, digits=3):
  return "-" if x is None else f"{x:.{digits}g}"


def table(rows: list[dict]) -> str:
  """A Markdown table of the record's rows."""
  lines = ["| game | solver | ms/iteration CPU (wall) | set-up s | peak MB | CPU s to 1e-3 | "
           "CPU s to 1e-4 | final NashConv | OpenSpiel agrees |", "|---|---|---|---|---|---|---|"
           "---|---|"]
  for row in rows:
    for name, s in row["solvers"].items():
      if "error" in s:
        lines.append(f"| {row['game']} | {name} | failed: {s['error'][:60]} |||||||")
        continue
      sp = s.get("speed", {})
      tt = s["to_target"]
      lines.append(
          f"| {row['game']} | {name} | {_fmt(sp.get('cpu_ms_per_iteration'))} "
          f"({_fmt(sp.get('wall_ms_per_iteration'))}) | {_fmt(s['setup']['setup_cpu_s'])} | "
          f"{_fmt(s.get('memory', {}).get('peak_rss_bytes', 0) / 1e6)} | "
          f"{_fmt((tt.get('0.001') or {}).get('cpu_s'))} | "
          f"{_fmt((tt.get('0.0001') or {}).get('cpu_s'))} | {_fmt(s['final_nash_conv'])} | "
          f"{s.get('openspiel_agrees', '-')} |")
    for name, why in row["skipped"].items():
      lines.append(f"| {row['game']} | {name} | {why} |||||||")
  return "\n".join(lines)


def figure(record: dict, path: str) -> None:
  """NashConv of the average policy against the solver's CPU seconds, a panel per game."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt

  from ospiel_team import atomic_io
  rows = record["rows"]
  fig, axes = plt.subplots(1, len(rows), figsize=(5.5 * len(rows), 4.2), squeeze=False)
  styles = {"ours": "-", "openspiel_cpp": "--", "openspiel_jax": "-.", "liteefg": ":"}
  for ax, row in zip(axes[0], rows, strict=True):
    for i, (name, s) in enumerate(row["solvers"].items()):
      if "error" in s or not s.get("checkpoints"):
        continue
      pts = np.array(s["checkpoints"])[1:]  # after the first iteration (compile, cache load)
      pts[:, 1] -= s["first_iteration"]["cpu_s"]
      ax.plot(pts[:, 1], pts[:, 3], ls=styles[SOLVERS[name][1]], color=f"C{i}",
              label=SOLVERS[name][0])
    for t in record["targets"]:
      ax.axhline(t, color="gray", lw=0.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solver CPU seconds (iterations after the first)")
    ax.set_ylabel("NashConv of the average policy")
    ax.set_title(row["game"])
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
  state = "alone" if record["alone"] else "under load, not alone"
  fig.suptitle(f"CFR solvers against their peers, one run per game: {state}", fontsize=10)
  fig.tight_layout()
  atomic_io.write_with(path, lambda f: fig.savefig(f, format="png", dpi=110), suffix=".png")
  plt.close(fig)



def define_flags() -> None:
  """The script's flags (defined when it runs, so that cfr_growth.py can import it)."""
  flags.DEFINE_multi_string("games", ["leduc_poker", "liars_dice"], "Games to measure (the "
                            "flag once per game: game strings hold commas).")
  flags.DEFINE_list("solvers", None, "Solvers to run (default: all of SOLVERS).")
  flags.DEFINE_multi_float("targets", [1e-3, 1e-4], "NashConv targets of the convergence runs "
                           "(the flag once per target).")
  flags.DEFINE_float("check_growth", 0.05, "After 20 iterations, check NashConv every this "
                     "fraction of the iterations done.")
  flags.DEFINE_integer("max_iterations", 100000, "Iteration cap of a convergence run.")
  flags.DEFINE_float("max_seconds", 60.0, "CPU-second cap of a convergence run (its iterations "
                     "after the first).")
  flags.DEFINE_integer("repeats", 5, "Timing rounds of the speed phase (0: none).")
  flags.DEFINE_float("block_seconds", 0.5, "CPU seconds of one timed block of iterations.")
  flags.DEFINE_bool("openspiel_check", True, "Score every final average policy by OpenSpiel's "
                    "exploitability.nash_conv too.")
  flags.DEFINE_bool("jax_x64", True, "Run OpenSpiel's JAX CFR in float64.")
  flags.DEFINE_bool("alone", False, "Declare that nothing else ran on the machine (recorded).")
  flags.DEFINE_string("json_out", "results/speed/cfr_peers.json", "Where the record goes.")
  flags.DEFINE_string("figure", "docs/img/cfr_peers.png", "NashConv against CPU seconds per "
                      "game and solver ('' for none).")
  flags.DEFINE_float("max_setup_seconds", 300.0, "Wall seconds a solver's set-up may take; "
                     "its worker is killed after that and the solver recorded as failed.")
  flags.DEFINE_float("max_memory_gb", 0.0, "Resident memory of the solvers' workers together "
                     "(GB); the worker that exceeds it is killed and its solver recorded as "
                     "failed (0: 80% of the memory available at the start).")
  flags.DEFINE_bool("rerun", False, "Run every game again (default: a record at --json_out "
                    "with the same settings is resumed: its games are not run again).")
  flags.DEFINE_string("worker", None, "Internal: run as a solver worker (JSON spec).")


def main(argv):
  del argv
  if FLAGS.worker:
    _worker_main(json.loads(FLAGS.worker))
    return
  from ospiel_team import atomic_io
  from ospiel_team import checks
  from ospiel_team import errors
  try:  # a bad flag is one line and exit status 2
    atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
    solvers = FLAGS.solvers or list(SOLVERS)
    for s in solvers:
      checks.check_choice("--solvers", s, tuple(SOLVERS))
    targets = [checks.check_real("--targets", t, minimum=0) for t in FLAGS.targets]
    checks.check_real("--check_growth", FLAGS.check_growth, minimum=1e-6)
  except errors.UserError as e:
    print(f"cfr_peers.py: {e}", file=sys.stderr)
    sys.exit(2)
  settings = dict(max_iterations=FLAGS.max_iterations, max_seconds=FLAGS.max_seconds,
                  repeats=FLAGS.repeats, block_seconds=FLAGS.block_seconds,
                  check_growth=FLAGS.check_growth, jax_x64=FLAGS.jax_x64,
                  openspiel_check=FLAGS.openspiel_check,
                  max_setup_seconds=FLAGS.max_setup_seconds)
  record = stored_record(FLAGS.json_out, alone=FLAGS.alone, targets=targets, solvers=solvers,
                         settings=settings) if not FLAGS.rerun else None
  resumed = record is not None
  if record is None:
    record = {"command": command_line(), "commit": commit_label(), "machine": machine(),
              "alone": FLAGS.alone, "targets": targets, "solvers": solvers,
              "settings": settings, "rows": []}
  bound = (int(FLAGS.max_memory_gb * 2**30) if FLAGS.max_memory_gb
           else default_memory_bound())
  done = {r["game"]: r for r in record["rows"]}
  for name in FLAGS.games:
    if name in done:
      print(f"{name}: in {FLAGS.json_out} already (resumed; --rerun to run it again)",
            file=sys.stderr)
      continue
    if resumed:  # this invocation adds games to a stored record: say so once
      record.setdefault("resumed", []).append(
          {"command": command_line(), "commit": commit_label(),
           "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())})
      resumed = False
    row = run_game(
        name, solvers, targets=targets, max_iterations=FLAGS.max_iterations,
        max_seconds=FLAGS.max_seconds, repeats=FLAGS.repeats, block_seconds=FLAGS.block_seconds,
        openspiel_check=FLAGS.openspiel_check, check_growth=FLAGS.check_growth,
        jax_x64=FLAGS.jax_x64, max_setup_seconds=FLAGS.max_setup_seconds,
        max_worker_bytes=bound, log=lambda m: print(m, file=sys.stderr))
    done[name] = row
    # The rows in the order of --games (earlier games of the record first), written now.
    record["rows"] = [done[g] for g in FLAGS.games if g in done] + [
        r for g, r in done.items() if g not in FLAGS.games]
    record["date_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
    print(f"{name}: done, load {row['load_before']} -> {row['load_after']}", file=sys.stderr)
  if FLAGS.figure and record["rows"]:
    figure(record, FLAGS.figure)
  print(table(record["rows"]))


def stored_record(path: str, **same) -> dict | None:
  """The record at `path` if it was written with the same `same` fields (resume), else None.

  Raises:
    errors.DamagedFileError: the file exists but is not a JSON object.
  """
  from ospiel_team import errors
  if not os.path.exists(path):
    return None
  try:
    with open(path, encoding="utf-8") as f:
      old = json.load(f)
  except (OSError, ValueError) as e:
    raise errors.DamagedFileError(f"record {path!r} cannot be read: {e} (remove it, or pass "
                                  "--rerun)") from e
  if not isinstance(old, dict):
    raise errors.DamagedFileError(f"record {path!r} is not a JSON object")
  if any(old.get(k) != v for k, v in same.items()):
    return None
  return old


if __name__ == "__main__":
  define_flags()
  app.run(main)
