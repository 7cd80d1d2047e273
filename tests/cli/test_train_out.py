"""`yacht train` with an out folder that cannot be one -- a file, a path under a file, a device, a FIFO, a
dangling link, a link to a file -- ends in one line and exit status 2 before anything is built or written."""
import os

import pytest

pytest.importorskip("sb3_contrib")

from tests.planted import plant
from yacht_arena.cli import main
from yacht_env.safe_file import FileRefused, check_folder

CONFIG = "configs/train/smoke.yaml"


def out_for(tmp_path, kind: str):
    """(the --out given, the path the message names)."""
    f = tmp_path / "file"
    f.write_text("mine")
    if kind == "file":
        return f, f
    if kind == "under a file":
        return f / "run", f
    if kind == "device":
        return "/dev/null", "/dev/null"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo", tmp_path / "fifo"
    if kind == "dangling link":
        (tmp_path / "link").symlink_to(tmp_path / "nowhere")
        return tmp_path / "link", tmp_path / "link"
    if kind == "under a dangling link":
        (tmp_path / "link").symlink_to(tmp_path / "nowhere")
        return tmp_path / "link" / "run", tmp_path / "link"
    if kind == "link to a file":
        (tmp_path / "link").symlink_to(f)
        return tmp_path / "link", tmp_path / "link"
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["file", "under a file", "device", "fifo", "dangling link", "under a dangling link",
                                  "link to a file"])
def test_an_out_that_cannot_be_a_folder_is_one_line(tmp_path, capsys, kind):
    out, named = out_for(tmp_path, kind)
    before = sorted(os.listdir(tmp_path))
    assert main(["train", CONFIG, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"yacht train: error: {named}: ")
    assert "the out folder must be a folder" in err
    assert sorted(os.listdir(tmp_path)) == before and (tmp_path / "file").read_text() == "mine"


def test_check_folder_accepts_folders_to_be(tmp_path):
    assert check_folder(tmp_path) == tmp_path
    assert check_folder(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()                       # nothing created
    (tmp_path / "dir").mkdir()
    (tmp_path / "to-dir").symlink_to(tmp_path / "dir")
    assert check_folder(tmp_path / "to-dir" / "new") == tmp_path / "to-dir" / "new"
    plant(tmp_path / "planted", "fifo")
    with pytest.raises(FileRefused, match="FIFO"):
        check_folder(tmp_path / "planted" / "x")
