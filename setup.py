"""Install metadata for ospiel_team: team and cooperative games and solvers for OpenSpiel.

The distribution is called `ospiel-team` and the import name is `ospiel_team`; it is installed
from a clone (`pip install -e .`) or from a wheel built with `pip wheel . --no-deps`.
"""
import os
import re

import setuptools

_HERE = os.path.dirname(os.path.abspath(__file__))


def _version() -> str:
  """The one version number, `ospiel_team.__version__`, read without importing the package."""
  with open(os.path.join(_HERE, "ospiel_team", "__init__.py"), encoding="utf-8") as f:
    return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


with open(os.path.join(_HERE, "README.md"), encoding="utf-8") as _f:
  _README = _f.read()

setuptools.setup(
    name="ospiel-team",
    version=_version(),
    description=("Team and cooperative imperfect-information games and solvers "
                 "(Joint Policy Search, Exploitability Descent, team LP) for OpenSpiel."),
    long_description=_README,
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    license_files=["LICENSE"],
    # No public repository address yet: none is claimed (add url= when there is one).
    project_urls={"OpenSpiel": "https://github.com/google-deepmind/open_spiel"},
    keywords="game theory, team games, imperfect information, OpenSpiel, bridge bidding",
    classifiers=[
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Science/Research",
        "Operating System :: POSIX :: Linux",
        "Operating System :: MacOS",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Topic :: Games/Entertainment",
    ],
    python_requires=">=3.11",
    # Namespace discovery, so that the data folders (bridge/data, bridge/models) are packages
    # of the distribution and their files ship as package data (no "is not a package" warning).
    packages=setuptools.find_namespace_packages(
        include=["ospiel_team", "ospiel_team.*"], exclude=["*.__pycache__"]),
    package_data={"ospiel_team.bridge": ["shipped_digests.json"],
                  "ospiel_team.bridge.data": ["*"], "ospiel_team.bridge.models": ["*"],
                  "ospiel_team.runner.data": ["*.json"]},
    include_package_data=True,
    install_requires=[
        "open_spiel>=1.5",
        "numpy",
        "scipy",
        "jax",
        "optax",
        "dm-haiku",
        "matplotlib",
        "tqdm",
        "absl-py",
        "highspy",
        # bridge/dds.py calls endplay's private endplay._dds (DDS's SetMaxThreads has no public
        # wrapper; the dataset builder's workers need one DDS thread each), so endplay is
        # pinned to the version tested. Its public calc_all_tables was as fast on 200 deals
        # (41.6-47.7 s here vs 42.7-48.6 s public, same tables, 2 cores at load ~3).
        "endplay==0.5.12",
        # What OpenSpiel's JAX NFSP (open_spiel.python.jax.nfsp) imports.
        "flax",
        "orbax-checkpoint",
        "chex",
        "etils",
        "numba",
    ],
    entry_points={
        "console_scripts": [
            "ospiel-team-compare = ospiel_team.cli.compare:run",
            "ospiel-team-solve = ospiel_team.cli.team_solve:run",
            "ospiel-team-coop-optimum = ospiel_team.cli.coop_optimum:run",
            "ospiel-team-match = ospiel_team.cli.match:run",
            "ospiel-team-make-dataset = ospiel_team.cli.make_dataset:run",
            "ospiel-team-uncontested = ospiel_team.cli.uncontested:run",
            "ospiel-team-train-bridge = ospiel_team.cli.train_bridge:run",
        ],
    },
    extras_require={
        "test": ["pytest", "nbformat", "nbclient", "ipykernel",
                 # tests/test_wheel.py builds the wheel without build isolation.
                 "setuptools>=70.1",
                 # OpenSpiel's sequence_form_lp (the team LP's independent check) needs these.
                 "cvxpy", "ecos",
                 # .ci/run lints, type checks (mypy.ini) and builds the documentation strictly.
                 "ruff", "mypy", "mkdocs-material", "mkdocstrings[python]", "mkdocs-gen-files",
                 "mkdocs-literate-nav", "mkdocs-section-index", "mkdocs-macros-plugin",
                 # Property-based tests of argument checking.
                 "hypothesis"],
        "docs": ["mkdocs-material", "mkdocstrings[python]", "mkdocs-gen-files",
                 "mkdocs-literate-nav", "mkdocs-section-index", "mkdocs-macros-plugin"],
        "ray": ["ray"],
        # Peer solvers of benchmarks/cfr_peers.py. liteefg 1.0.0 builds from its source
        # distribution (a C++17 compiler) and declares jax<0.8 and flax<0.11 (for its JAX
        # module, which the benchmark does not import): this extra moves JAX back to 0.7;
        # `pip install --no-deps liteefg pandas` installs what the benchmark uses and keeps JAX.
        "bench": ["liteefg"],
    },
)
