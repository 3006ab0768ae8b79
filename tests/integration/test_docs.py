"""The documentation builds with `mkdocs build --strict` and without a single warning.

The API reference is generated from the package (docs/gen_ref_pages.py): every public module
gets a page, the deprecated `python -m` shims and private modules do not.
"""
import fnmatch
import os
import re
import subprocess
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_mkdocs_build_strict_has_no_warning(tmp_path):
  site = tmp_path / "site"
  env = dict(os.environ, DISABLE_MKDOCS_2_WARNING="true", NO_MKDOCS_2_WARNING="1")
  proc = subprocess.run(
      [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
      cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
  log = _ANSI.sub("", proc.stdout + proc.stderr)
  warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)
              and "MkDocs may break support" not in line]
  assert proc.returncode == 0, log[-4000:]
  assert not warnings, "\n".join(warnings)

  # The reference documents a public module with its classes ...
  page = site / "reference" / "tree" / "game_tree" / "index.html"
  assert "GameTree" in page.read_text(encoding="utf-8")
  # ... and leaves out the deprecated shims (tests/test_layering.py ENTRY_MODULES).
  assert not (site / "reference" / "compare" / "index.html").exists()
  assert not (site / "reference" / "bridge" / "match" / "index.html").exists()
  assert (site / "reference" / "bridge" / "agents" / "match" / "index.html").exists()
  # Every hand-written page is built.
  for name in ("index", "install", "quickstart", "results", "cli", "runner", "bridge"):
    built = site / name / "index.html" if name != "index" else site / "index.html"
    assert built.exists(), built


def test_results_index_names_every_record_and_nothing_else():
  """results/README.md lists each file of results/ (names or `*` patterns in backticks)."""
  results = os.path.join(REPO, "results")
  with open(os.path.join(results, "README.md"), encoding="utf-8") as f:
    index = f.read()
  named = set(re.findall(r"`([\w*./-]+\.(?:json|md|csv))`", index))
  files = {f for f in os.listdir(results)
           if f != "README.md" and not os.path.isdir(os.path.join(results, f))}
  files |= {f"{d}/{f}" for d in os.listdir(results) if os.path.isdir(os.path.join(results, d))
            for f in os.listdir(os.path.join(results, d))}
  patterns = [re.compile(fnmatch.translate(n)) for n in named if "*" in n]
  unlisted = sorted(f for f in files if f not in named and not any(p.match(f) for p in patterns))
  assert not unlisted, f"results/README.md does not list {unlisted}"
  # Every plain name is a file, except the record another script has yet to write.
  missing = sorted(n for n in named if "*" not in n and n not in files and "/" not in n
                   and n not in ("native_kernels.json",))
  assert not missing, f"results/README.md lists files that do not exist: {missing}"
  for pattern in patterns:
    assert any(pattern.match(f) for f in files), pattern.pattern


def test_every_figure_under_docs_img_is_shown_on_a_page():
  docs = os.path.join(REPO, "docs")
  pages = ""
  for root, _, names in os.walk(docs):
    for name in names:
      if name.endswith(".md"):
        with open(os.path.join(root, name), encoding="utf-8") as f:
          pages += f.read()
  images = os.listdir(os.path.join(docs, "img"))
  assert images
  unshown = sorted(i for i in images if f"img/{i})" not in pages)
  assert not unshown, f"docs/img figures on no page: {unshown}"


def test_benchmarks_index_lists_every_script():
  with open(os.path.join(REPO, "benchmarks", "README.md"), encoding="utf-8") as f:
    index = f.read()
  listed = set(re.findall(r"^\| `([\w.]+\.py)` \|", index, re.M))
  scripts = {f for f in os.listdir(os.path.join(REPO, "benchmarks")) if f.endswith(".py")}
  assert len(scripts) > 10
  assert not scripts - listed, f"benchmarks/README.md does not list {sorted(scripts - listed)}"


def _section_rows(text: str, heading: str) -> list[list[str]]:
  """The cells of the Markdown table rows under `heading` (up to the next `## ` heading)."""
  section = text.split(heading, 1)[1].split("\n## ", 1)[0]
  return [[c.strip() for c in line.strip().strip("|").split("|")]
          for line in section.splitlines()
          if line.startswith("| ") and not set(line) <= set("|-: ")]


def _first_number(cell: str) -> float:
  return float(re.search(r"-?\d+\.\d+|-?\d+", cell.replace(",", "")).group())


def test_results_page_jps_table_matches_its_record():
  import json
  with open(os.path.join(REPO, "docs", "results.md"), encoding="utf-8") as f:
    page = f.read()
  with open(os.path.join(REPO, "results", "jps_experiments.json"), encoding="utf-8") as f:
    record = {(r["game"], r["method"]): r for r in json.load(f)}
  rows = _section_rows(page, "## Joint Policy Search: Table 1 of Tian et al.")[1:]
  assert len(rows) == 11
  for row in rows:
    name, param = re.fullmatch(r"(\w+)(?:\((\d+)\))?", row[0]).groups()
    key = {"comm": "length", "simple_bidding": "size", "mini_bridge": "size"}.get(name)
    game = f"{name}({key}={param})" if param else f"{name}()"
    for column, method in ((4, "CFR (current, purified)"), (5, "CFR+JPS")):
      r = record[(game, method)]
      assert _first_number(row[column]) == round(r["mean"], 4), (game, method)
      assert int(row[3]) == r["num_seeds"], game


def test_results_page_team_table_matches_its_record():
  import json
  with open(os.path.join(REPO, "docs", "results.md"), encoding="utf-8") as f:
    page = f.read()
  with open(os.path.join(REPO, "results", "team_lp_table_quiet_default.json"),
            encoding="utf-8") as f:
    record = {r["instance"]: r for r in json.load(f)["rows"]}
  rows = _section_rows(page, "## Zhang & Sandholm: Table 1")[1:]
  assert len(rows) == 29 and len(record) == 29
  for row in rows:
    r = record[row[0]]
    assert r["finished"], row[0]
    assert float(row[1]) == round(r["value"], 6), row[0]
    assert (row[4] == "exact") == bool(r["exact"]), row[0]
    assert row[5].split(" ")[0] == r["method"], row[0]
    assert float(row[7]) == round(r["seconds"], 2), row[0]


def test_results_page_jpsbid_method_level_matches_its_record():
  import json
  with open(os.path.join(REPO, "docs", "results.md"), encoding="utf-8") as f:
    page = f.read()
  with open(os.path.join(REPO, "results", "jpsbid_from_a2c_longer.json"),
            encoding="utf-8") as f:
    rec = json.load(f)
  a = rec["across_runs"]
  m = re.search(r"Across the (\d+) runs JPSBid minus plain is \*\*([+-][\d.]+) IMPs/b\*\*, 95% "
                r"interval\s+\*\*\[([+-][\d.]+), ([+-][\d.]+)\]\*\*", page[page.index(
                    "**The same comparison from `a2c_longer`**"):])
  assert m, "the a2c_longer method-level sentence is missing"
  assert int(m.group(1)) == a["runs"] == len(rec["runs"]) == 27
  assert [float(x) for x in m.group(2, 3, 4)] == [round(a["mean"], 3),
                                                   *(round(x, 3) for x in a["ci95"])]
  assert f"the pre-registered decision: {rec['method_decision']}" in page
