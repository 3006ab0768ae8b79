"""The comparison runner's pages: its example figures and measurements (`results/runner/`).

Records: `results/runner/<figure>.json` (written by `benchmarks/runner_figures.py`: the
command, provenance, reference, each (solver, variant)'s final metric over seeds and every run's
last checkpoint against its budget) and `results/runner/nfsp_jit.json`
(`benchmarks/runner_nfsp_jit.py`: where NFSP's JAX compilation is charged).
"""
from render import common

FOLDER = "runner"
_METRIC = {"nash_conv": "NashConv", "team_value_vs_br": "team 1 vs BR", "value": "value"}


def _record(name: str) -> dict:
  return common.load(f"{FOLDER}/{name}.json")


def _load_text(prov: dict) -> str:
  machine = prov["machine"]
  before, after = machine.get("load_average_before"), machine.get("load_average_after")
  if before is None:
    return common.num(machine["load_average"][0], 2)
  if after is None:
    return common.num(before, 2)
  return f"{common.num(before, 2)} before, {common.num(after, 2)} after"


def _machine(prov: dict) -> str:
  return f"{prov['machine']['cores']} cores, {prov['machine']['platform'].split('-')[0]}"


def _provenance(command: str, record: str, prov: dict, machine: str) -> str:
  """`common.provenance` of a runner record, noting uncommitted changes of the package."""
  commit = (prov.get("commit") or "")[:7] or None
  text = common.provenance(command, record=record, commit=commit, date=prov["date"],
                           machine=machine, load=_load_text(prov))
  if commit and prov.get("uncommitted_package_changes"):
    text = text.replace(f"commit `{commit}`",
                        f"commit `{commit}` with uncommitted changes under `ospiel_team/`")
  return text


def provenance(name: str) -> str:
  """The command, record, commit, date, machine and load of figure `name`."""
  rec = _record(name)
  prov = rec["provenance"]
  # The figure's script runs that comparison and writes the record; the comparison alone:
  command = (f"python benchmarks/runner_figures.py --only {name}\n"
             f"# runs: {common.runnable(rec['command'])}")
  return _provenance(command, f"{FOLDER}/{name}.json", prov,
                     f"{_machine(prov)}, {common.num(rec['wall_seconds'], 0)} s of wall clock")


def finals_table(name: str, every_variant: bool = False) -> str:
  """Figure `name`'s final metric per solver (judged variant; `every_variant`: all)."""
  rec = _record(name)
  rows = []
  for f in rec["finals"]:
    if not (f["primary"] or every_variant):
      continue
    variant = f"**{f['variant']}**" if f["primary"] else f["variant"]
    rows.append([f"`{f['solver']}`", f["source"], variant, common.num(f["mean"], 4, sig=True),
                 common.num(f["half_width"], 2, sig=True),
                 common.thousands(round(f["iterations"])), common.num(f["seconds"], 2)])
  metric = _METRIC.get(rec["metric"], rec["metric"])
  return common.md_table(["solver", "by", "variant", metric, "± 95%", "iterations", "CPU s"],
                         rows, "lllrrrr")


def final(name: str, solver: str, variant: str | None = None, digits: int = 4) -> str:
  """The mean final metric of `solver` (its judged variant unless `variant`) in figure `name`."""
  for f in _record(name)["finals"]:
    if f["solver"] == solver and (f["variant"] == variant if variant else f["primary"]):
      return common.num(f["mean"], digits, sig=True)
  raise KeyError(f"no {solver} {variant or 'judged variant'} in {name}")


def reference(name: str, digits: int = 4) -> str:
  """Figure `name`'s reference value."""
  return common.num(_record(name)["reference"]["value"], digits, sig=True)


def seeds(name: str) -> str:
  """How many seeds each run of figure `name` had."""
  return str(max(f["seeds"] for f in _record(name)["finals"]))


def budgets(name: str) -> str:
  """A sentence: whether every run of figure `name` has its last checkpoint at its budget."""
  runs = _record(name)["runs"]
  short = [r for r in runs if r["short"]]
  if not short:
    stopped = [r for r in runs if r["last_checkpoint_seconds"] >= r["budget_seconds"]]
    own = sorted({r["solver"] for r in runs} - {r["solver"] for r in stopped})
    text = (f"All {len(runs)} runs have their last checkpoint at their last iteration; the "
            f"{len(stopped)} that their budget stopped took it at or past the budget")
    if stopped:
      lo = min(r["last_checkpoint_seconds"] for r in stopped)
      text += f" (the earliest at {common.num(lo, 2)} solver CPU s)"
    if own:
      text += "; " + ", ".join(f"`{s}`" for s in own) + " ended on its own (one exact solve)"
    return text + "."
  items = "; ".join(f"`{r['solver']}` seed {r['seed']} at "
                    f"{common.num(r['last_checkpoint_seconds'], 2)} s of "
                    f"{common.num(r['solver_cpu_seconds'], 2)} s" for r in short)
  return f"Runs whose last checkpoint is short of their budget: {items}."


def excluded(name: str, solver: str, kind: str) -> str:
  """Mean CPU seconds of `kind` ("jit", "setup", "snapshot") excluded from `solver`'s runs."""
  vals = [r["excluded_cpu_seconds"].get(kind, 0.0) for r in _record(name)["runs"]
          if r["solver"] == solver]
  return common.num(sum(vals) / len(vals), 2)


def nfsp_jit() -> str:
  """What the NFSP compile-event measurement found, with its provenance."""
  rec = _record("nfsp_jit")
  ev = rec["compile_events"]
  prov = rec["provenance"]
  text = (f"In one `nfsp` run on Kuhn poker under a {common.num(rec['budget_seconds'], 0)} s "
          f"budget, JAX reported {ev['excluded'][0]} compile events while the solver's clock "
          f"was stopped (setup, the warm-up, snapshots), {ev['moved_to_jit'][0]} inside the "
          "agents' jitted calls that the runner moves to `jit` "
          f"({common.num(rec['cpu_seconds_moved_to_jit'], 2)} CPU s moved), and "
          f"{ev['charged_to_budget'][0]} anywhere else, i.e. charged to the budget; "
          f"`jit` totalled {common.num(rec['excluded_cpu_seconds']['jit'], 2)} CPU s beside "
          f"{common.num(rec['solver_cpu_seconds'], 2)} s of the solver's own.")
  return text + "\n\n" + _provenance(" ".join(prov["command"]), f"{FOLDER}/nfsp_jit.json",
                                    prov, _machine(prov))


def nfsp_jit_charged() -> str:
  """'excluded from' or 'charged to': where the measurement found NFSP's compilation."""
  ev = _record("nfsp_jit")["compile_events"]
  return "charged to" if ev["charged_to_budget"][0] else "excluded from"


def nfsp_jit_short() -> str:
  """One clause: where NFSP's compilation went in the measured run, with its CPU seconds."""
  rec = _record("nfsp_jit")
  ev = rec["compile_events"]
  text = (f"{nfsp_jit_charged()} its budget: in a measured run, the {ev['moved_to_jit'][0]} "
          "compile events inside the agents' jitted calls during the budget "
          f"({common.num(rec['cpu_seconds_moved_to_jit'], 2)} CPU s) were moved to `jit`")
  if ev["charged_to_budget"][0]:
    text += f", and {ev['charged_to_budget'][0]} others were charged to the budget"
  return text


def summary_rows() -> list[dict]:
  """The runner reproduces no paper figure: no row in the results summary."""
  return []


def last_seconds(name: str, solver: str) -> str:
  """The latest last checkpoint of `solver`'s runs in figure `name`, in solver CPU seconds."""
  return common.num(max(r["last_checkpoint_seconds"] for r in _record(name)["runs"]
                        if r["solver"] == solver), 2)


def budget(name: str) -> str:
  """Figure `name`'s CPU-second budget per run."""
  return common.num(_record(name)["runs"][0]["budget_seconds"], 1)


def iterations_ratio(name: str, fast: str, slow: str) -> str:
  """How many times more iterations `fast` ran than `slow` in figure `name` (judged rows)."""
  its = {f["solver"]: f["iterations"] for f in _record(name)["finals"] if f["primary"]}
  return common.num(its[fast] / its[slow], 0)


def wall_seconds(name: str) -> str:
  """The wall-clock seconds of figure `name`'s command, with the load it ran under."""
  rec = _record(name)
  return f"{common.num(rec['wall_seconds'], 0)} s at load {_load_text(rec['provenance'])}"


def wall_words(name: str = "default") -> str:
  """Figure `name`'s wall clock in words, with its cores and load: the README's main-job time.

  E.g. 'about 4 minutes on 2 cores at load 12' (the 1-minute load before and after, whole
  numbers: the README states no number by hand); the README states it verbatim and
  `tests/docs/test_defaults.py` checks that it does.
  """
  from ospiel_team.cli import _flags  # the commands' one rough-duration wording

  rec = _record(name)
  prov = rec["provenance"]
  machine = prov["machine"]
  loads = [machine.get("load_average_before", machine["load_average"][0]),
           machine.get("load_average_after", machine["load_average"][0])]
  load = "-".join(dict.fromkeys(common.num(x, 0) for x in loads))
  return (f"{_flags.rough_duration(rec['wall_seconds'])} on {machine['cores']} cores "
          f"at load {load}")


def nfsp_episode_cost(name: str = "default") -> str:
  """NFSP's CPU milliseconds per episode and the agents' share, over figure `name`'s runs."""
  runs = [r for r in _record(name)["runs"] if r["solver"] == "nfsp" and r["extra"]]
  episodes = sum(r["extra"]["episodes"] for r in runs)
  env = sum(r["extra"]["env_cpu_seconds"] for r in runs)
  agent = sum(r["extra"]["agent_cpu_seconds"] for r in runs)
  return (f"{common.num(1000 * (env + agent) / episodes, 1)} ms of CPU per Kuhn episode, "
          f"{common.num(100 * agent / (env + agent), 0)}% of it inside the agents "
          f"({common.thousands(episodes / len(runs))} episodes per run in the default job)")


def nfsp_settings_table() -> str:
  """NFSP's NashConv after a fixed number of episodes per setting, with the reservoir size."""
  rec = common.load(f"{FOLDER}/nfsp_settings.json")
  rows = []
  for s in rec["settings"]:
    o = s["options"]
    rows.append([s["name"], o["nfsp.batch"], o["nfsp.min_buffer"], o["nfsp.learn_every"],
                 f"{o['nfsp.rl_lr']:g}, {o['nfsp.sl_lr']:g}", f"{o['nfsp.anticipatory']:g}",
                 common.thousands(s["reservoir_size_p0"]), common.num(s["nash_conv"], 3)])
  prov = rec["provenance"]
  return (common.md_table(["setting", "batch", "min. buffer", "learn every", "rates (RL, SL)",
                           "anticipatory", "reservoir", "NashConv"], rows, "lrrrlrrr")
          + "\n\n" + _provenance(" ".join(prov["command"]), f"{FOLDER}/nfsp_settings.json",
                                 prov, _machine(prov)))


def nfsp_settings_value(what: str) -> str:
  """'episodes', 'uniform' (uniform play's NashConv) or a setting's NashConv by its name."""
  rec = common.load(f"{FOLDER}/nfsp_settings.json")
  if what == "episodes":
    return common.thousands(rec["episodes"])
  if what == "uniform":
    return common.num(rec["uniform_nash_conv"], 3)
  for s in rec["settings"]:
    if s["name"] == what:
      return common.num(s["nash_conv"], 3)
  raise KeyError(what)


def mmd_table() -> str:
  """`mmd`'s current-policy NashConv per checkpoint, moving magnet beside uniform magnet."""
  rec = common.load(f"{FOLDER}/mmd_magnet.json")
  moving = dict((int(i), v) for i, v in rec["curves"]["moving"])
  uniform = dict((int(i), v) for i, v in rec["curves"]["uniform"])
  rows = [[common.thousands(i), common.num(moving[i], 2, sig=True),
           common.num(uniform.get(i), 2, sig=True)] for i in sorted(moving)]
  prov = rec["provenance"]
  return (common.md_table(["iteration", "moving magnet", "uniform magnet"], rows, "rrr")
          + "\n\n" + _provenance(" ".join(prov["command"]), f"{FOLDER}/mmd_magnet.json",
                                 prov, _machine(prov)))
