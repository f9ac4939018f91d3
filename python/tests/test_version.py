"""The Python package's version is the npm package's."""
import json
from pathlib import Path

import voxsim

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "package.json"


def test_the_version_equals_package_json_version() -> None:
    assert voxsim.__version__ == json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["version"]


def test_the_package_is_typed() -> None:
    assert (Path(voxsim.__file__).parent / "py.typed").is_file()
