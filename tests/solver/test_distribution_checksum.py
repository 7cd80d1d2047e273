"""Cached score distributions are checked by content: the data file's SHA-256 is written in the index, so a
data file damaged under a valid header (NaN, garbage, zeros, another build's data) is a cache miss and the
files are built again; `yacht solve --distribution` never reads damaged probabilities."""
import json

import numpy as np
import pytest

from tests.solver.test_cache_hostile import tiny  # noqa: F401 - the fixture
from yacht_arena.cli import main
from yacht_env.solver import distributions_for
from yacht_env.solver.cache import distribution_paths, load_distributions, solitaire_rules


def damage_start(data: np.ndarray, offset: np.ndarray, length: np.ndarray, how: str) -> None:
    start = slice(int(offset[0]), int(offset[0]) + int(length[0]))
    if how == "nan":
        data[start] = np.nan
    elif how == "zeros":
        data[start] = 0
    elif how == "garbage":
        data[start] = np.frombuffer(np.random.default_rng(0).bytes(4 * len(data[start])), "<f4")
    elif how == "one bit":
        view = data.view(np.uint32)
        view[int(offset[0])] ^= 1
    elif how == "far away":
        data[-1] = 0.5


@pytest.mark.parametrize("how", ["nan", "zeros", "garbage", "one bit", "far away"])
def test_damaged_data_under_a_valid_header_is_built_again(tiny, capsys, how):  # noqa: F811
    path, rules, _ = tiny
    built = distributions_for(rules, progress=False)
    reference = np.array(built.data)
    data_path, _ = distribution_paths(solitaire_rules(rules))
    good = data_path.read_bytes()
    data = np.load(data_path, mmap_mode="r+")
    damage_start(data, built.offset, built.length, how)
    data.flush()
    del data
    assert data_path.read_bytes() != good and len(data_path.read_bytes()) == len(good)
    assert load_distributions(rules) is None
    assert main(["solve", "--rules", str(path), "--distribution", "--json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["distribution"]["source"] == "built" and np.isfinite(doc["distribution"]["mean"])
    assert data_path.read_bytes() == good
    assert np.array_equal(load_distributions(rules).data, reference)


def test_an_index_without_the_data_checksum_is_built_again(tiny):  # noqa: F811
    _, rules, _ = tiny
    distributions_for(rules, progress=False)
    data_path, index_path = distribution_paths(solitaire_rules(rules))
    with np.load(index_path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    for key in ("data_sha256",):
        changed = {k: v for k, v in meta.items() if k != key}
        with open(index_path, "wb") as f:
            np.savez(f, meta=np.array(json.dumps(changed)), **arrays)
        assert load_distributions(rules) is None
    with open(index_path, "wb") as f:
        np.savez(f, meta=np.array(json.dumps({**meta, "data_sha256": "0" * 64})), **arrays)
    assert load_distributions(rules) is None
    assert distributions_for(rules, progress=False) is not None and load_distributions(rules) is not None
