"""What every config loader built on the config layer (`yacht_env.config`) refuses in a file, each as one
ConfigError naming the file: a missing file, YAML that does not parse, anchors and aliases, a top level that is
not a mapping."""
import pytest

from yacht_env.config import ConfigError


def check_bad_files(load, tmp_path, kind: str):
    """`load(path)` refuses the files every config refuses; `kind` names the config ('tournament config')."""
    with pytest.raises(ConfigError, match=f"absent.yaml: no such {kind}$"):
        load(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    for text, message in (("name: [unclosed\n", "not valid YAML"), ("x: &a [1]\ny: *a\n", "anchors and aliases"),
                          ("- just a list\n", "top level: must be a mapping")):
        bad.write_text(text)
        with pytest.raises(ConfigError, match=f"bad.yaml: {message}"):
            load(bad)
