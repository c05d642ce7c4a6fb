"""The one bounded loader of JSON and TOML inputs: every refusal is an error of the caller's
class naming the source, never a RecursionError, a bare ValueError or a silent infinity; and
every JSON/TOML read in the package goes through it."""

from __future__ import annotations

import ast
import codecs
from pathlib import Path

import pytest

from tambench.core.bounded import (
    Bounds,
    decode_text,
    load_json,
    load_toml,
    parse_json,
    parse_toml,
)
from tambench.errors import ConfigError, MalformedInputError, TaskSpecError

PACKAGE = Path(__file__).resolve().parents[2] / "tambench"
GOOD = '{"id": "a/b", "n": [1, 2.5, "x", {"k": null}]}'

#: (name, text, what the message says)
HOSTILE_JSON = [
    ("deep past the parser", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("deep past the bound", "[" * 65 + "]" * 65, "more than 64 levels"),
    ("deep objects", '{"a":' * 70 + "1" + "}" * 70, "more than 64 levels"),
    ("huge integer", '{"n": ' + "9" * 5000 + "}", "integer of more than 64 digits"),
    ("long integer", '{"n": -' + "1" * 65 + "}", "integer of more than 64 digits"),
    ("overflowing float", '{"x": 1e400}', "not finite"),
    ("overflowing digits", '{"x": ' + "1" * 400 + ".5}", "not finite"),
    ("NaN constant", '{"x": NaN}', "NaN is not allowed"),
    ("Infinity constant", "[-Infinity]", "-Infinity is not allowed"),
    ("syntax", '{"a": 1,}', "is not valid JSON: line 1, column 9"),
]


@pytest.mark.parametrize(("name", "text", "says"), HOSTILE_JSON, ids=[c[0] for c in HOSTILE_JSON])
def test_hostile_json_is_refused_naming_the_source(name: str, text: str, says: str) -> None:
    with pytest.raises(TaskSpecError) as caught:
        parse_json(text, "cat/x/task.json", error=TaskSpecError)
    assert str(caught.value).startswith("cat/x/task.json ") and says in str(caught.value)


def test_what_is_within_bounds_reads_as_json_does() -> None:
    assert parse_json(GOOD, "t") == {"id": "a/b", "n": [1, 2.5, "x", {"k": None}]}
    nested = parse_json("[" * 64 + "]" * 64, "t")  # exactly at the bound
    for _ in range(63):
        (nested,) = nested
    assert nested == []
    assert parse_json('{"n": ' + "9" * 64 + ', "x": 1e308, "s": "' + "9" * 500 + ' e999"}', "t") \
        == {"n": int("9" * 64), "x": 1e308, "s": "9" * 500 + " e999"}
    text = '{"s": "' + "[" * 68 + '\\"[[{{"}'
    assert parse_json(text, "t") == {"s": "[" * 68 + '"[[{{'}  # brackets in strings: no nesting


def test_a_string_cannot_hide_nesting_from_the_depth_check() -> None:
    # Closing brackets inside strings between the real ones must not cancel them.
    text = "".join('["]",' for _ in range(70)) + "1" + "]" * 70
    with pytest.raises(MalformedInputError, match="more than 64 levels"):
        parse_json(text, "t")


@pytest.mark.parametrize(("codec", "bom"), [("utf-16", True), ("utf-32", True),
                                            ("utf-8-sig", True), ("utf-8", False)])
def test_unicode_with_a_byte_order_mark_is_decoded(codec: str, bom: bool) -> None:
    data = GOOD.encode(codec)
    assert parse_json(data, "t.json")["id"] == "a/b"


def test_undecodable_bytes_are_refused_naming_the_file_and_line() -> None:
    with pytest.raises(TaskSpecError, match=r"^t\.json looks like UTF-16 text without a "
                                            r"byte-order mark; save it as UTF-8$"):
        decode_text(GOOD.encode("utf-16-le"), "t.json", TaskSpecError)
    with pytest.raises(TaskSpecError, match=r"^t\.json is not UTF-8 text: byte 0xe9 at offset "
                                            r"\d+ \(line 2\)"):
        decode_text(b'{\n"a": "caf\xe9"}', "t.json", TaskSpecError)
    with pytest.raises(TaskSpecError, match="starts with a UTF-16 byte-order mark but"):
        decode_text(codecs.BOM_UTF16_LE + b"\x00\xd8", "t.json", TaskSpecError)
    with pytest.raises(TaskSpecError, match=r"holds a NUL byte at offset 6 \(line 1\)"):
        decode_text(b'{"a": \x00 1}', "t.json", TaskSpecError)


def test_a_file_over_the_size_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:  # sparse: 8 GB that cost no disk
        fh.truncate(8 * 1024**3)
    with pytest.raises(TaskSpecError, match="is over the limit of 16,777,216 bytes"):
        load_json(path, error=TaskSpecError)
    small = Bounds(max_bytes=10)
    with pytest.raises(MalformedInputError, match=r"over the limit of 10 bytes for this input \(25 bytes\)"):
        parse_json('{"aaaaaaaaaaaaaaaaaa": 1}', "t", bounds=small)
    with pytest.raises(FileNotFoundError):  # the caller words a missing file
        load_json(tmp_path / "missing.json")


HOSTILE_TOML = [
    ("deep array", "a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("deep tables", "a" + ".a" * 20 + " = 1", "more than 16 levels"),
    ("huge integer", "n = " + "9" * 5000, "integer of more than 64 digits"),
    ("infinity", "x = inf", "not finite"),
    ("syntax", "a = [", "is not valid TOML"),
]


@pytest.mark.parametrize(("name", "text", "says"), HOSTILE_TOML, ids=[c[0] for c in HOSTILE_TOML])
def test_hostile_toml_is_refused_naming_the_source(name: str, text: str, says: str,
                                                   tmp_path: Path) -> None:
    path = tmp_path / "tambench.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_toml(path, error=ConfigError)
    assert str(caught.value).startswith(str(path)) and says in str(caught.value)
    assert parse_toml('executor = "serial"\n[x]\ny = 2\n', "t") == {
        "executor": "serial", "x": {"y": 2}}


def _reads(path: Path) -> list[str]:
    """Calls that parse JSON or TOML other than through the loader."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = f"{getattr(owner, 'id', '?')}.{node.func.attr}"
            if name in {"json.loads", "json.load", "tomllib.loads", "tomllib.load"} \
                    or node.func.attr == "model_validate_json":
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}")
    return found


#: Modules that must not import tambench: the demo's agent runs inside the sandbox as a
#: plain script and reads only the tasks.json the demo itself wrote.
STANDALONE = {PACKAGE / "testing" / "demo_agent.py"}


def test_every_json_and_toml_read_in_the_package_goes_through_the_loader() -> None:
    loader = PACKAGE / "core" / "bounded.py"
    found = [r for p in sorted(PACKAGE.rglob("*.py")) if p != loader and p not in STANDALONE
             for r in _reads(p)]
    assert found == []
    assert _reads(loader)  # the scan does see the calls it looks for
