"""The `.pth` reader of the JPS authors' bidders (`jps_paper.load_torch_legacy`) on damaged or
crafted files: every tensor's offset, size and stride is checked against its storage before a
view of the data is made; a file that fails is refused with its path and the tensor's name.

The files are crafted here byte by byte in the legacy ``torch.save`` layout (five pickles,
then each storage as an int64 element count and its raw little-endian float32 data); no torch
and no published model are needed.
"""
import os
import pickle
import struct
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.bridge.agents.bidders import jps_paper

_MAGIC = 0x1950a86a20f9469cfc6c


def _str(s: str) -> bytes:
  data = s.encode()
  return b"X" + struct.pack("<I", len(data)) + data


def _int(n: int) -> bytes:
  return b"I" + str(int(n)).encode() + b"\n"


def _tuple(items) -> bytes:
  return b"(" + b"".join(_int(v) for v in items) + b"t"


def _tensor(key: str, numel: int, offset, size, stride) -> bytes:
  """Opcodes of torch._utils._rebuild_tensor_v2(storage `key`, offset, size, stride, False)."""
  storage = (b"(" + _str("storage") + b"ctorch\nFloatStorage\n" + _str(key) + _str("cpu")
             + _int(numel) + b"tQ")  # the persistent id tuple, then BINPERSID
  return (b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + _int(offset) + _tuple(size)
          + _tuple(stride) + b"\x89tR")


def write_legacy(path, tensors: dict, storages: dict, numel_override: dict | None = None):
  """Writes {"state_dict": {name: tensor}} in the legacy torch.save format.

  Args:
    path: the file.
    tensors: name -> (storage key, offset, size, stride).
    storages: storage key -> float32 values.
    numel_override: storage key -> the element count to write in the storage's header.
  """
  items = b"".join(_str(name) + _tensor(key, len(storages[key]), off, size, stride)
                   for name, (key, off, size, stride) in tensors.items())
  obj = b"\x80\x02}(" + _str("state_dict") + b"}(" + items + b"uu."
  out = [pickle.dumps(_MAGIC, protocol=2), pickle.dumps(1001, protocol=2),
         pickle.dumps({"protocol_version": 1001, "little_endian": True}, protocol=2), obj,
         pickle.dumps(list(storages), protocol=2)]
  for key, values in storages.items():
    data = np.asarray(values, "<f4")
    numel = (numel_override or {}).get(key, len(data))
    out.append(struct.pack("<q", numel) + data.tobytes())
  with open(path, "wb") as f:
    f.write(b"".join(out))


def test_a_crafted_file_in_range_loads_exactly(tmp_path):
  # The control: the crafting is the layout the reader expects.
  path = tmp_path / "ok.pth"
  write_legacy(path, {"w": ("0", 1, (2, 3), (3, 1)), "t": ("0", 0, (3, 2), (1, 3)),
                      "s": ("0", 6, (), ())}, {"0": np.arange(10)})
  sd = jps_paper.load_torch_legacy(str(path))["state_dict"]
  np.testing.assert_array_equal(sd["w"], [[1, 2, 3], [4, 5, 6]])
  np.testing.assert_array_equal(sd["t"], [[0, 3], [1, 4], [2, 5]])
  assert sd["s"] == 6


@pytest.mark.parametrize("offset,size,stride,match", [
    (0, (2, 4), (4, 1), r"reaches element 7 of a storage of 4 elements"),  # overshoot by 4
    (3, (2,), (1,), r"reaches element 4 of a storage of 4 elements"),
    (4, (), (), r"reaches element 4 of a storage of 4"),                    # a scalar past it
    (-1, (2,), (1,), r"negative offset"),
    (0, (2, 2), (-1, 1), r"negative offset, size or stride"),
    (0, (-2, 2), (1, 1), r"negative offset, size or stride"),
    (0, (2, 2), (1,), r"differ in length"),
    (0, (1 << 20, 1 << 20, 1 << 20), (0, 0, 0), r"more than"),           # a huge broadcast
    (0, (10,), (1 << 70,), r"reaches element 1062\d+ of a storage of 4"),  # past int64
])
def test_a_tensor_outside_its_storage_is_refused_with_path_and_name(tmp_path, offset, size,
                                                                   stride, match):
  path = tmp_path / "bad.pth"
  write_legacy(path, {"online_net.linear1.weight": ("0", offset, size, stride)},
               {"0": np.arange(4)})
  with pytest.raises(ValueError, match=match) as e:
    jps_paper.load_torch_legacy(str(path))
  assert repr(str(path)) in str(e.value)
  assert "'state_dict.online_net.linear1.weight'" in str(e.value)


def test_a_storage_count_beyond_the_file_is_refused(tmp_path):
  for numel, match in ((1 << 40, "more than the file holds"), (-3, "negative")):
    path = tmp_path / f"bad{numel}.pth"
    write_legacy(path, {"w": ("0", 0, (4,), (1,))}, {"0": np.arange(4)}, {"0": numel})
    with pytest.raises(ValueError, match=match) as e:
      jps_paper.load_torch_legacy(str(path))
    assert repr(str(path)) in str(e.value)


def test_the_match_command_refuses_a_crafted_model_instead_of_crashing(tmp_path):
  # 10 rows of stride 2^26 over a 4-float storage: as_strided used to read ~2.4 GB past the
  # storage (SIGSEGV). In a subprocess, so a crash shows as a failed test.
  ref = tmp_path / "models"
  ref.mkdir()
  path = ref / jps_paper.REFERENCE_MODELS["jps_paper_0.63"]
  write_legacy(path, {"online_net.linear1.weight": ("0", 0, (10, 2), (1 << 26, 1))},
               {"0": np.arange(4)})
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.match", "--bidder_a",
                        "jps_paper_0.63", "--bidder_b", "random", "--boards", "2",
                        "--reference_dir", str(ref), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
  lines = [ln for ln in res.stderr.splitlines() if ln.startswith("match:")]
  assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
  assert len(lines) == 1 and repr(str(path)) in lines[0], res.stderr
  assert "tensor 'state_dict.online_net.linear1.weight' reaches element" in lines[0]
  assert not os.path.exists(tmp_path / "out" / "match.json")
