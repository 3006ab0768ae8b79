"""The one cache folder (`ospiel_team.paths.cache_dir`)."""
import os

import pytest

from ospiel_team import paths


def test_cache_dir_follows_the_environment_and_creates_folders(tmp_path, monkeypatch):
  monkeypatch.setenv("OSPIEL_TEAM_CACHE", str(tmp_path / "c"))
  assert paths.cache_dir() == str(tmp_path / "c")
  sub = paths.cache_dir("game_trees", "v1")
  assert sub == str(tmp_path / "c" / "game_trees" / "v1") and os.path.isdir(sub)


def test_cache_dir_default_is_under_the_home_folder(tmp_path, monkeypatch):
  monkeypatch.delenv("OSPIEL_TEAM_CACHE", raising=False)
  monkeypatch.setenv("HOME", str(tmp_path))
  assert paths.cache_dir() == str(tmp_path / ".cache" / "ospiel_team")


def test_cache_dir_that_cannot_be_created_names_the_path(tmp_path, monkeypatch):
  blocker = tmp_path / "a_file"
  blocker.write_text("x")
  monkeypatch.setenv("OSPIEL_TEAM_CACHE", str(blocker))
  with pytest.raises(OSError, match=f"cannot create the cache folder '{blocker}/x'.*"
                                    "OSPIEL_TEAM_CACHE"):
    paths.cache_dir("x")
  with pytest.raises(ValueError, match=r"'\.\./up'"):
    paths.cache_dir("../up")
