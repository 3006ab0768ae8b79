"""Runner adapters for OpenSpiel's solvers: CFR, CFR+, JAX CFR, XFP, NFSP and MMD.

Each adapter drives OpenSpiel's own class and reads its policies into policy arrays on
`ctx.tree`; nothing is re-implemented here except MMD's moving magnet (see `mmd_solver`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from ospiel_team import checks
from ospiel_team.runner import api
from ospiel_team.runner.api import Snapshot
from ospiel_team.runner.api import SolverContext

# OpenSpiel's private names that the NFSP and MMD adapters use where OpenSpiel has no public
# API (each use carries a SLF001 exemption with its reason): class -> names (attributes set by
# its __init__, or methods). Tested against OPENSPIEL_VERSION_TESTED; `check_internals` (run
# before those solvers start, and by tests/runner/test_adapters.py) names any that an installed
# OpenSpiel lacks, instead of an AttributeError in the middle of a run.
OPENSPIEL_VERSION_TESTED = "2.0.2"
OPENSPIEL_INTERNALS: dict[str, tuple[str, ...]] = {
    "open_spiel.python.jax.nfsp.NFSP": ("_rl_agent", "_reservoir_buffer", "_learn",
                                        "_avg_network", "_avg_network_inference"),
    "open_spiel.python.algorithms.mmd_dilated.MMDDilatedEnt": ("_update_state_sequences",),
}


def missing_internals() -> list[str]:
  """The names of `OPENSPIEL_INTERNALS` that the installed OpenSpiel lacks ("Class._name").

  A method is found on the class; an attribute by its assignment in the class's source
  (`self._name =`), which is where OpenSpiel sets them.

  Returns:
    The missing names, empty when every internal is there.
  """
  import importlib
  import inspect
  missing = []
  for path, names in OPENSPIEL_INTERNALS.items():
    module_name, cls_name = path.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), cls_name)
    source = inspect.getsource(cls)
    missing += [f"{cls_name}.{n}" for n in names
                if not hasattr(cls, n) and f"self.{n} =" not in source]
  return missing


def check_internals() -> None:
  """Raises RuntimeError naming the OpenSpiel internals missing from the installed OpenSpiel.

  Raises:
    RuntimeError: some of `OPENSPIEL_INTERNALS` are missing (an OpenSpiel other than the
      version tested, `OPENSPIEL_VERSION_TESTED`).
  """
  missing = missing_internals()
  if missing:
    import importlib.metadata
    raise RuntimeError(
        f"the installed OpenSpiel {importlib.metadata.version('open_spiel')} lacks "
        f"{', '.join(missing)}, which the runner's NFSP/MMD adapters use (tested with OpenSpiel "
        f"{OPENSPIEL_VERSION_TESTED}); install open_spiel=={OPENSPIEL_VERSION_TESTED}")


def cfr_policies(ctx: SolverContext, solver) -> dict:
  """An OpenSpiel CFR-family solver's average and current policies as arrays (not charged).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).
    solver: an OpenSpiel CFR-family solver.

  Returns:
    {"average": ..., "current": ...} policy arrays.
  """
  with ctx.excluded("snapshot"):
    return {"average": ctx.tree.policy_array(solver.average_policy()),
            "current": ctx.tree.policy_array(solver.current_policy())}


def _cfr_family(ctx: SolverContext, solver_cls) -> Iterator[Snapshot]:
  with ctx.excluded("setup"):
    solver = solver_cls(ctx.game)
  for it in ctx.iterate():
    solver.evaluate_and_update_policy()
    if ctx.is_checkpoint(it):
      yield Snapshot(it, cfr_policies(ctx, solver))


@api.solver("cfr", unit="one CFR iteration (OpenSpiel's cfr.CFRSolver, alternating updates)")
def cfr_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's `cfr.CFRSolver`.

  OpenSpiel's `cfr.CFRSolver` (Zinkevich et al. 2007, "Regret Minimization in Games with
  Incomplete Information", NeurIPS 2007).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Returns:
    An iterator of `Snapshot`s (the policy arrays by variant), one at each of the context's
      checkpoints.
  """
  from open_spiel.python.algorithms import cfr
  return _cfr_family(ctx, cfr.CFRSolver)


@api.solver("cfr_plus", unit="one CFR+ iteration (OpenSpiel's cfr.CFRPlusSolver)")
def cfr_plus_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's `cfr.CFRPlusSolver`.

  OpenSpiel's `cfr.CFRPlusSolver` (Tammelin 2014, "Solving Large Imperfect Information
  Games Using CFR+", arXiv 1407.5042).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Returns:
    An iterator of `Snapshot`s (the policy arrays by variant), one at each of the context's
      checkpoints.
  """
  from open_spiel.python.algorithms import cfr
  return _cfr_family(ctx, cfr.CFRPlusSolver)


@api.solver("jax_cfr", unit="one jitted CFR+ iteration (OpenSpiel's jax.cfr.JaxCFR: regret "
            "matching+, alternating updates, linear averaging); JIT excluded",
            options={"jax_cfr.plus": True, "jax_cfr.linear_averaging": True})
def jax_cfr_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's JAX CFR (`open_spiel.python.jax.cfr.jax_cfr.JaxCFR`), CFR+ by default.

  The fair equal-time CFR beside ED's jitted steps. Its one-time tree setup ("setup") and the
  compiling calls of its jitted step ("jit") are excluded from the budget. The average policy is
  read from its arrays for every player (its own `average_policy` covers two players only).
  Options: jax_cfr.plus (regret matching+, default true), jax_cfr.linear_averaging (true).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from open_spiel.python.jax.cfr import jax_cfr
  with ctx.excluded("setup"):
    import jax
    jax.block_until_ready(jax.numpy.zeros(1) + 1)  # the process's one-time JAX start-up
    solver = jax_cfr.JaxCFR(ctx.game,
                            regret_matching_plus=ctx.option("jax_cfr.plus", True),
                            linear_averaging=ctx.option("jax_cfr.linear_averaging", True))
  # Its jitted step compiles on the first call and again on the second (numpy arrays at first,
  # JAX arrays after): every compiling call is charged to "jit".
  _exclude_compiling_calls(ctx, solver, ["jit_step"])
  tree = ctx.tree
  rows = {}
  for p in range(solver.constants.players):
    for key, idx in solver.iset_map[p].items():
      if key and key in tree.infoset_index:
        rows[tree.infoset_index[key]] = (p, idx)
  if len(rows) != tree.num_infosets:
    raise ValueError(f"JaxCFR's infosets of {ctx.game} do not match the game tree's")
  for it in ctx.iterate():
    solver.step()
    if ctx.is_checkpoint(it):
      with ctx.excluded("snapshot"):
        averages = [np.asarray(a, dtype=np.float64) for a in solver.averages]
        pi = np.zeros((tree.num_infosets, tree.num_actions))
        for row, (p, idx) in rows.items():
          a = averages[p][idx][:tree.num_actions]
          total = a.sum()
          pi[row] = a / total if total > 0 else tree.uniform_policy_array()[row]
        pi = np.where(tree.infoset_legal, pi, 0.0)
      yield Snapshot(it, {"average": pi})


@api.solver("xfp", unit="one XFP iteration (OpenSpiel's fictitious_play.XFPSolver: exact best "
            "responses, full-width averaging)")
def xfp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's extensive-form fictitious play, `fictitious_play.XFPSolver`.

  OpenSpiel's `fictitious_play.XFPSolver` (Heinrich, Lanctot and Silver 2015, "Fictitious
  Self-Play in Extensive-Form Games", ICML 2015); its average policy (it has no current one).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  with ctx.excluded("setup"):  # the import too: a generator's body runs on the clock
    from open_spiel.python.algorithms import fictitious_play
    solver = fictitious_play.XFPSolver(ctx.game)
  tree = ctx.tree
  for it in ctx.iterate():
    solver.iteration()
    if ctx.is_checkpoint(it):
      with ctx.excluded("snapshot"):
        pi = tree.uniform_policy_array()
        for table in solver.average_policy_tables():
          for key, dist in table.items():
            row = tree.infoset_index.get(key)
            if row is None:
              continue  # an infoset the tree does not hold cannot be reached
            pi[row] = 0.0
            for a, p in dist.items():
              pi[row, a] = p
      yield Snapshot(it, {"average": pi})


NFSP_OPTIONS = {
    "nfsp.episodes": 20, "nfsp.hidden": 64, "nfsp.anticipatory": 0.1, "nfsp.rl_lr": 0.05,
    "nfsp.sl_lr": 0.05, "nfsp.buffer": 200_000, "nfsp.reservoir": 2_000_000,
    "nfsp.batch": 32, "nfsp.min_buffer": 32, "nfsp.learn_every": 4,
    "nfsp.epsilon_start": 0.06, "nfsp.epsilon_end": 0.001, "nfsp.target_every": 1000,
}


# The range of every NFSP option, checked before any run starts (`api.options_checker`).
NFSP_RULES = {
    "nfsp.episodes": checks.Int(minimum=1), "nfsp.hidden": checks.Int(minimum=1),
    "nfsp.anticipatory": checks.Real(minimum=0, maximum=1),
    "nfsp.rl_lr": checks.Real(above=0), "nfsp.sl_lr": checks.Real(above=0),
    "nfsp.buffer": checks.Int(minimum=1), "nfsp.reservoir": checks.Int(minimum=1),
    "nfsp.batch": checks.Int(minimum=1), "nfsp.min_buffer": checks.Int(minimum=0),
    "nfsp.learn_every": checks.Int(minimum=1),
    "nfsp.epsilon_start": checks.Real(minimum=0, maximum=1),
    "nfsp.epsilon_end": checks.Real(minimum=0, maximum=1),
    "nfsp.target_every": checks.Int(minimum=1),
}


@api.solver("nfsp", unit="a batch of nfsp.episodes self-play episodes (default 20) of "
            "OpenSpiel's JAX NFSP", options=NFSP_OPTIONS, seeded=True,
            check_options=api.options_checker(NFSP_RULES))
def nfsp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's JAX NFSP.

  OpenSpiel's JAX NFSP (Heinrich and Silver 2016, "Deep Reinforcement Learning from
  Self-Play in Imperfect-Information Games", arXiv 1603.01121).

  Why OpenSpiel's example settings (`examples/kuhn_nfsp.py`: batch 128, learning starts at
  `min_buffer_size_to_learn` = 1000, learning every 64 steps, learning rates 0.01) are flat in a
  short run: the average-policy network only learns once the reservoir buffer holds
  `min_buffer_size_to_learn` transitions, and that buffer only grows in best-response mode
  (`anticipatory` = 10% of the episodes): after 2,000 Kuhn episodes it holds ~270, so the network is
  never trained and the runner evaluated its random initialization (NashConv 1.04 on Kuhn, worse
  than uniform play's 0.917). Scaled to budgets of seconds to minutes, the defaults here start
  learning after one batch (batch = min_buffer = 32), learn every 4 agent steps with learning rates
  0.05; anticipatory 0.1, epsilon 0.06 -> 0.001, the buffers and the two 64-unit layers are the
  example's. Measured on Kuhn after 1,000 episodes (seed 0): batch 128, min_buffer 128, learn_every
  16, rates 0.01 gave NashConv 1.039 (untrained), these 0.456 (the table in the documentation's
  runner page, docs/runner.md). OpenSpiel's agents crash (len of None) when a learning step comes
  before their buffer's first transition; such steps are skipped. Setup, and JAX compilation (a
  throwaway warm-up and each jitted function's first call), are excluded from the budget and
  reported apart; so is evaluating the average-policy network on every infoset's tensor (one batch
  per player). Snapshots carry `episodes` and the CPU seconds spent in the environment and in the
  agents (`env_cpu_seconds`, `agent_cpu_seconds`).
  Options: nfsp.episodes, nfsp.hidden (units of each of two layers), nfsp.anticipatory,
  nfsp.rl_lr, nfsp.sl_lr, nfsp.buffer (replay), nfsp.reservoir, nfsp.batch, nfsp.min_buffer,
  nfsp.learn_every, nfsp.epsilon_start, nfsp.epsilon_end, nfsp.target_every.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  with ctx.excluded("setup"):
    import flax.nnx as nn
    from open_spiel.python import rl_environment
    from open_spiel.python.jax import nfsp
    check_internals()
  tree, game = ctx.tree, ctx.game
  o = {k: ctx.option(k, v) for k, v in NFSP_OPTIONS.items()}
  episodes = o["nfsp.episodes"]
  if episodes < 1:
    raise ValueError(f"nfsp.episodes must be >= 1, got {episodes}")
  # Building the environment and the networks is "setup", reported apart from the budget.
  with ctx.excluded("setup"):
    player = _EpisodePlayer(rl_environment.Environment(game, seed=ctx.seed))
    state_size = player.env.observation_spec()["info_state"][0]
  # Epsilon decays over the run's episodes (10k iterations' worth under a seconds budget).
  decay = int((ctx.iterations or 10_000) * episodes)

  def make_agents(**overrides):
    return _nfsp_agents(nfsp, game, state_size, o, decay, ctx.seed, **overrides)

  # JAX compiles the buffers' and the eager operations' kernels once per process: throwaway
  # agents of the same shapes play until both networks have learned, charged to "jit". Their
  # own environment keeps the run's environment's random stream untouched.
  with ctx.excluded("jit"):
    _warm_up(_EpisodePlayer(rl_environment.Environment(game, seed=10**6 + ctx.seed)),
             make_agents, o["nfsp.batch"], tree.num_players, nfsp.MODE.AVERAGE_POLICY)
  jit_base = ctx.clock.excluded_seconds.get("jit", 0.0)
  with ctx.excluded("setup"):
    agents = make_agents()
    tensors = tree.infoset_tensors()
    rows_of = [np.nonzero(tree.infoset_player == p)[0] for p in range(game.num_players())]
  for agent in agents:
    # OpenSpiel's NFSP compiles per agent instance: compiling calls are charged to "jit".
    for obj in (agent, agent._rl_agent):  # noqa: SLF001 (NFSP's DQN: no public accessor)
      _exclude_compiling_calls(ctx, obj, _jitted_names(obj))
  for it in ctx.iterate():
    player.play(agents, episodes)
    if ctx.is_checkpoint(it):
      with ctx.excluded("snapshot"):
        pi = average_policy_array(tree, agents, tensors, rows_of, nn)
      buf = agents[0]._reservoir_buffer  # noqa: SLF001 (NFSP: no public accessor)
      yield Snapshot(it, {"average": pi}, extra={
          "episodes": float(it * episodes),
          "reservoir_size_p0": float(len(buf)) if buf is not None else 0.0,
          "env_cpu_seconds": player.cost["env"],
          # compilations inside agent steps were charged to "jit": not the agents' cost
          "agent_cpu_seconds": player.cost["agent"] - (
              ctx.clock.excluded_seconds.get("jit", 0.0) - jit_base)})


def _nfsp_agents(nfsp, game, state_size: int, o: dict, decay: int, seed: int,
                 **overrides) -> list:
  """One OpenSpiel JAX NFSP agent per player, with the options `o` (`NFSP_OPTIONS` keys)."""
  kw = dict(reservoir_buffer_capacity=o["nfsp.reservoir"],
            anticipatory_param=float(o["nfsp.anticipatory"]),
            batch_size=o["nfsp.batch"], rl_learning_rate=o["nfsp.rl_lr"],
            sl_learning_rate=o["nfsp.sl_lr"], min_buffer_size_to_learn=o["nfsp.min_buffer"],
            learn_every=o["nfsp.learn_every"], replay_buffer_capacity=o["nfsp.buffer"],
            epsilon_start=o["nfsp.epsilon_start"], epsilon_end=o["nfsp.epsilon_end"],
            epsilon_decay_duration=decay, update_target_network_every=o["nfsp.target_every"],
            allow_checkpointing=False)
  kw.update(overrides)
  made = [nfsp.NFSP(p, state_size, game.num_distinct_actions(),
                    [o["nfsp.hidden"], o["nfsp.hidden"]], seed=seed * 1000 + p, **kw)
          for p in range(game.num_players())]
  for agent in made:
    _guard_empty_buffers(agent)
  return made


def _warm_up(player: _EpisodePlayer, make_agents, batch: int, num_players: int,
             average_mode) -> None:
  """Throwaway agents play until both of their networks have learned (JAX compiles)."""
  warm = make_agents(anticipatory_param=1.0, min_buffer_size_to_learn=batch, learn_every=4)
  player.play(warm, 1 + 2 * batch // max(1, num_players))
  with warm[0].temp_mode_as(average_mode):
    player.play(warm, 2)


class _EpisodePlayer:
  """Plays self-play episodes of RL agents in an `rl_environment.Environment`.

  `cost` holds the CPU seconds (`time.process_time`) spent inside the environment (``"env"``)
  and inside the agents' steps (``"agent"``).
  """

  def __init__(self, env):
    self.env = env
    self.cost = {"env": 0.0, "agent": 0.0}

  def play(self, agents: list, n: int) -> None:
    """Plays `n` episodes; every agent also sees each episode's last time step."""
    clock, cost = time.process_time, self.cost
    for _ in range(n):
      t0 = clock()
      time_step = self.env.reset()
      t1 = clock()
      cost["env"] += t1 - t0
      while not time_step.last():
        player = time_step.observations["current_player"]
        out = agents[player].step(time_step)
        t2 = clock()
        cost["agent"] += t2 - t1
        time_step = self.env.step([out.action])
        t1 = clock()
        cost["env"] += t1 - t2
      for agent in agents:
        agent.step(time_step)
      cost["agent"] += clock() - t1


def _guard_empty_buffers(agent) -> None:
  """Makes an agent skip learning steps that come before its first transition.

  OpenSpiel's JAX NFSP and DQN call len() on a buffer that is still None when a learning
  step comes before the first transition (e.g. no best-response episode among an agent's first
  `learn_every` steps): such a step has nothing to learn from and is skipped here.
  """
  sl_learn = agent._learn  # noqa: SLF001 (NFSP's supervised step: no public one to wrap)
  rl = agent._rl_agent  # noqa: SLF001 (NFSP's DQN: no public accessor)
  rl_learn = rl.learn

  def guarded_sl():
    empty = agent._reservoir_buffer is None  # noqa: SLF001 (NFSP: no public accessor)
    return None if empty else sl_learn()

  def guarded_rl():
    return None if rl.replay_buffer is None else rl_learn()
  agent._learn = guarded_sl  # noqa: SLF001 (replaces NFSP's supervised step, see above)
  rl.learn = guarded_rl


def _jitted_names(obj):
  """Names of the jitted functions of obj (instance attributes and methods)."""
  names = []
  for name in set(vars(obj)) | set(dir(type(obj))):
    if name.startswith("__"):
      continue
    attr = vars(obj).get(name, getattr(type(obj), name, None))
    if hasattr(attr, "_cache_size"):
      names.append(name)
  return sorted(names)


_COMPILES = [0]  # JAX compilations and traces seen in this process (jax.monitoring events)


def _count_compiles() -> None:
  if _COMPILES[0] == 0:
    from jax import monitoring

    def listener(event, duration, **kwargs):
      del duration, kwargs
      if event.startswith("/jax/core/compile/"):
        _COMPILES[0] += 1
    monitoring.register_event_duration_secs_listener(listener)
    _COMPILES[0] = 1


def _exclude_compiling_calls(ctx: SolverContext, obj, names) -> None:
  """Wraps the jitted obj.<name> so that a call that compiles is charged to "jit".

  OpenSpiel's NFSP and DQN jit per agent instance, and some functions are traced again on a
  later call (new argument types), so compilation cannot all be done up front: a call whose
  jit cache grew, or during which JAX reported a trace or compilation (jax.monitoring), is moved
  from the solver's CPU time to ctx's "jit" time.
  """
  _count_compiles()
  for name in names:
    fn = getattr(obj, name)
    jitted = obj.__dict__.get(name) or getattr(type(obj), name)
    cache_size = getattr(jitted, "_cache_size", None)
    if cache_size is None:
      raise TypeError(f"{type(obj).__name__}.{name} is not a jitted function")

    def wrapped(*args, _fn=fn, _cache_size=cache_size, **kwargs):
      before = (_cache_size(), _COMPILES[0])
      start = time.process_time()
      out = _fn(*args, **kwargs)
      if (_cache_size(), _COMPILES[0]) != before:
        import jax
        jax.block_until_ready(out)
        ctx.clock.reclassify(time.process_time() - start, "jit")
      return out
    setattr(obj, name, wrapped)


def average_policy_array(tree, agents, tensors, rows_of, nn) -> np.ndarray:
  """The NFSP agents' average-policy networks as one policy array (one batch per player).

  Args:
    tree: the game's array tree.
    agents: the NFSP agents, one per player.
    tensors: [num_infosets, size] the infosets' information-state tensors.
    rows_of: player -> the tree's infoset rows of that player.
    nn: the `flax.nnx` module (its `state` gives a network's parameters).

  Returns:
    [num_infosets, num_actions] float64 policy array.
  """
  pi = np.zeros((tree.num_infosets, tree.num_actions))
  for p, agent in enumerate(agents):
    rows = rows_of[p]
    if not len(rows):
      continue
    # The agent's own jitted inference of its average-policy network, on all infosets.
    infer = agent._avg_network_inference  # noqa: SLF001 (NFSP: batched inference not public)
    net = agent._avg_network  # noqa: SLF001 (NFSP: no public accessor)
    logits = np.asarray(infer(nn.state(net), tensors[rows]), dtype=np.float64)
    logits = np.where(tree.infoset_legal[rows], logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    pi[rows] = probs / probs.sum(axis=1, keepdims=True)
  return pi


def _two_player_zero_sum(game, teams):
  del teams
  import pyspiel
  if (game.num_players() != 2 or
      game.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM):
    return "needs a two-player zero-sum game"
  return None


@api.solver("mmd", unit="one MMD step (OpenSpiel's mmd_dilated.MMDDilatedEnt update with a "
            "moving magnet)",
            options={"mmd.alpha": 0.1, "mmd.stepsize": 0.0, "mmd.magnet_lr": 0.05,
                     "mmd.magnet": "moving"}, primary="current", check=_two_player_zero_sum,
            check_options=api.options_checker({
                "mmd.alpha": checks.Real(minimum=0), "mmd.stepsize": checks.Real(minimum=0),
                "mmd.magnet_lr": checks.Real(above=0, maximum=1)}))
def mmd_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's magnetic mirror descent, `mmd_dilated.MMDDilatedEnt`.

  Magnetic mirror descent with dilated entropy (Sokota et al. 2023, "A Unified Approach to
  Reinforcement Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games", ICLR
  2023, arXiv 2206.05825), on OpenSpiel's `mmd_dilated.MMDDilatedEnt`.

  OpenSpiel's class regularizes towards the uniform policy, so it converges to an alpha-QRE,
  not to a Nash equilibrium (and its step size is 0 at alpha = 0). With mmd.magnet = "moving"
  (default) the magnet rho is itself moved towards the current policy after every step,
  rho <- rho^(1 - magnet_lr) * pi^magnet_lr per infoset (normalized), as in the paper's
  moving-magnet variant, whose fixed point is a Nash equilibrium: the MMD step
  x' = argmin <eta g, x> + eta alpha B(x; rho) + B(x; x_t) becomes OpenSpiel's closed form with
  the extra term -eta alpha grad psi(rho) (psi: dilated entropy). mmd.magnet = "uniform" runs
  OpenSpiel's class unchanged (the alpha-QRE). Two-player zero-sum games only.
  Options: mmd.alpha (0.1), mmd.stepsize (0 = OpenSpiel's alpha / max|A|^2),
  mmd.magnet_lr (0.05), mmd.magnet ("moving" or "uniform").

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  with ctx.excluded("setup"):  # mmd_dilated imports scipy.stats: seconds of CPU, once
    import pyspiel
    from open_spiel.python.algorithms import mmd_dilated
    from open_spiel.python.algorithms import sequence_form_utils as utils
    if ctx.option("mmd.magnet", "moving") == "moving":  # the moving magnet's own step
      check_internals()
  game = ctx.game
  if (game.num_players() != 2 or
      game.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM):
    raise ValueError(f"mmd needs a two-player zero-sum game, got {game}")
  magnet_kind = ctx.option("mmd.magnet", "moving")
  if magnet_kind not in ("moving", "uniform"):
    raise ValueError(f"mmd.magnet must be 'moving' or 'uniform', got {magnet_kind!r}")
  alpha = ctx.option("mmd.alpha", 0.1)
  stepsize = ctx.option("mmd.stepsize", 0.0) or None
  magnet_lr = ctx.option("mmd.magnet_lr", 0.05)
  if alpha <= 0:
    raise ValueError(f"mmd.alpha must be > 0, got {alpha}")
  if not 0 < magnet_lr <= 1:
    raise ValueError(f"mmd.magnet_lr must be in (0, 1], got {magnet_lr}")
  with ctx.excluded("setup"):  # the sequence-form payoff matrix and index maps
    mmd = mmd_dilated.MMDDilatedEnt(game, alpha, stepsize=stepsize)
    magnet = [np.asarray(s, dtype=np.float64).copy() for s in mmd.sequences]
  tree = ctx.tree
  for it in ctx.iterate():
    if magnet_kind == "uniform":
      mmd.update_sequences()
    else:
      eta, a = mmd.stepsize, mmd.alpha
      psi_x = mmd.dgf_grads()
      current = mmd.sequences
      mmd.sequences = magnet
      psi_rho = mmd.dgf_grads()
      mmd.sequences = current
      grads = [(eta * mmd.payoff_mat @ current[1] - psi_x[0] - eta * a * psi_rho[0])
               / (1 + eta * a),
               (-eta * mmd.payoff_mat.T @ current[0] - psi_x[1] - eta * a * psi_rho[1])
               / (1 + eta * a)]
      new_policy = mmd_dilated.policy.TabularPolicy(game)
      for player in range(2):
        mmd._update_state_sequences(mmd.empty_infoset_keys[player],  # noqa: SLF001 (MMD's step)
                                    grads[player], player, new_policy)
      mmd.sequences = utils.policy_to_sequence(game, new_policy, mmd.infoset_actions_to_seq)
      mmd.iteration_count += 1
      mmd.update_avg_sequences()
      # Moving magnet: geometric step from rho towards the new policy, per infoset.
      magnet_pol = utils.sequence_to_policy(magnet, game, mmd.infoset_actions_to_seq,
                                            mmd.infoset_action_maps)
      arr = magnet_pol.action_probability_array
      arr[:] = (np.maximum(arr, 1e-300) ** (1 - magnet_lr) *
                np.maximum(new_policy.action_probability_array, 1e-300) ** magnet_lr
                * magnet_pol.legal_actions_mask)
      arr /= arr.sum(axis=1, keepdims=True)
      magnet = utils.policy_to_sequence(game, magnet_pol, mmd.infoset_actions_to_seq)
    if ctx.is_checkpoint(it):
      with ctx.excluded("snapshot"):
        policies = {"current": tree.policy_array(mmd.get_policies()),
                    "average": tree.policy_array(mmd.get_avg_policies())}
      yield Snapshot(it, policies)
