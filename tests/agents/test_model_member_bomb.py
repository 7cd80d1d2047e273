"""Zip members whose headers understate (or overstate) what they inflate to: every member of a model file
(`yacht train`'s .pt: its data record, byte order and every storage; an SB3 .zip's data and policy.pth) is
inflated a chunk at a time with the running total checked against the declared and the allowed size, so a
200 KB file that inflates to 200 MB costs a chunk of memory, not 200 MB, and is refused in one line."""
import io
import struct
import sys
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.model_file import CHUNK, ModelFileError, read_member, read_model  # noqa: E402
from agents.sb3_zip import read_sb3_zip  # noqa: E402
from agents.training.checkpoint import load_checkpoint  # noqa: E402
from yacht_arena.cli import main  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "bc-strong.pt"
BOMB = 64 << 20          # what the crafted member really inflates to


def set_size(raw: bytearray, name: str, size: int) -> None:
    """Write `size` as the uncompressed size of member `name` in its local header and its directory entry."""
    key = name.encode()
    for sig, size_at, name_len_at, name_at in ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46)):
        i = raw.find(sig)
        while i >= 0:
            n = struct.unpack_from("<H", raw, i + name_len_at)[0]
            if bytes(raw[i + name_at:i + name_at + n]) == key:
                struct.pack_into("<I", raw, i + size_at, size)
            i = raw.find(sig, i + 4)


def rewritten(members: dict[str, bytes], target: str, declared: int | None = None,
              content: bytes | None = None, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of `members` whose member `target` holds `content` (default: its bytes and BOMB zero bytes after
    them) while its headers declare `declared` bytes (default: its own size)."""
    own = members[target]
    content = own + b"\0" * BOMB if content is None else content
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, content if name == target else data)
    raw = bytearray(buf.getvalue())
    set_size(raw, target, len(own) if declared is None else declared)
    return bytes(raw)


def members_of(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {info.filename: z.read(info) for info in z.infolist()}


def peak_memory(run) -> int:
    import tracemalloc
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def model_members() -> list[str]:
    names = list(members_of(SHIPPED))
    storages = [n for n in names if "/data/" in n]
    return [next(n for n in names if n.endswith("data.pkl")), next(n for n in names if n.endswith("byteorder")),
            storages[0], storages[-1]]


@pytest.mark.parametrize("compression", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
@pytest.mark.parametrize("member", model_members())
def test_a_model_member_that_understates_its_size_is_refused_in_bounded_memory(tmp_path, member, capsys,
                                                                               compression):
    path = tmp_path / "bomb.pt"
    path.write_bytes(rewritten(members_of(SHIPPED), member, compression=compression))
    if compression == zipfile.ZIP_DEFLATED:
        assert path.stat().st_size < 2 * SHIPPED.stat().st_size + (1 << 20)
    # deflated: both readers refuse any compressed member (torch never writes one, and torch.load would read its
    # compressed bytes as weights); stored: `read_model` reads the declared bytes and finds the CRC wrong, while
    # torch.load (which ignores CRCs) reads exactly the declared bytes -- the original member -- so may load it
    readers = (read_model, load_checkpoint) if compression == zipfile.ZIP_DEFLATED else (read_model,)
    why = "is compressed" if compression == zipfile.ZIP_DEFLATED else "CRC"

    def refused():
        for reader in readers:
            with pytest.raises(ModelFileError, match=why) as e:
                reader(path)
            assert "\n" not in str(e.value) and "not a model file saved by `yacht train`" in str(e.value)
        if compression == zipfile.ZIP_STORED:
            try:
                load_checkpoint(path)
            except ModelFileError:
                pass
    assert peak_memory(refused) < 16 << 20
    if compression == zipfile.ZIP_DEFLATED:
        assert main(["evaluate", f"learned:{path}", "--games", "1", "--no-progress"]) == 2
        assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("member", model_members()[1:3])
def test_a_model_member_that_overstates_its_size_is_refused(tmp_path, member):
    members = members_of(SHIPPED)
    path = tmp_path / "short.pt"
    path.write_bytes(rewritten(members, member, declared=len(members[member]) + 8, content=members[member],
                               compression=zipfile.ZIP_STORED))
    with pytest.raises(ModelFileError, match="not a model file saved by `yacht train`"):
        read_model(path)


def sb3_members() -> dict[str, bytes]:
    buf = io.BytesIO()
    torch.save({"action_net.weight": torch.zeros(2, 2)}, buf)
    return {"data": b'{"policy_class": {}}', "policy.pth": buf.getvalue()}


@pytest.mark.parametrize("member", ["data", "policy.pth"])
def test_an_sb3_member_that_understates_its_size_is_refused_in_bounded_memory(tmp_path, member):
    path = tmp_path / "bomb.zip"
    path.write_bytes(rewritten(sb3_members(), member))

    def refused():
        with pytest.raises(ModelFileError, match="unreadable zip|not a zip file") as e:
            read_sb3_zip(path)
        assert "\n" not in str(e.value)
    assert peak_memory(refused) < 16 << 20


def test_read_member_checks_the_running_total():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a", b"x" * (3 * CHUNK))
    with zipfile.ZipFile(buf) as z:
        info = z.getinfo("a")
        assert read_member(z, info, 3 * CHUNK) == b"x" * (3 * CHUNK)
        with pytest.raises(ValueError, match="declares 3,145,728 bytes, more than 1,048,576 allowed"):
            read_member(z, info, CHUNK)
    assert sys.getrefcount(info) >= 1
