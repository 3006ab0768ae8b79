"""The repository root, for tests that run its scripts, notebooks and examples."""
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
