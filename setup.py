"""Install metadata for ospiel_team: team and cooperative games and solvers for OpenSpiel."""
import setuptools

setuptools.setup(
    name="ospiel_team",
    version="0.1.0",
    description=("Team and cooperative imperfect-information games and solvers "
                 "(Joint Policy Search, Exploitability Descent, team LP) for OpenSpiel."),
    python_requires=">=3.11",
    packages=setuptools.find_packages(include=["ospiel_team", "ospiel_team.*"]),
    package_data={"ospiel_team": ["data/*", "bridge/data/*", "bridge/models/*"]},
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
        "endplay",
        # What OpenSpiel's JAX NFSP (open_spiel.python.jax.nfsp) imports.
        "flax",
        "orbax-checkpoint",
        "chex",
        "etils",
    ],
    extras_require={
        "test": ["pytest", "nbformat", "nbclient", "ipykernel",
                 # OpenSpiel's sequence_form_lp (the team LP's independent check) needs these.
                 "cvxpy", "ecos"],
        "ray": ["ray"],
    },
)
