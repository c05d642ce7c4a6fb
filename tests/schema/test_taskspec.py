"""TaskSpec: the paper's 18 schemas convert losslessly; versions; JSON Schema; strictness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.errors import SchemaVersionError, TaskSpecError
from tambench.schema import (
    SCHEMA_VERSION,
    GradingSpec,
    TaskSpec,
    dump_taskspec,
    from_paper,
    load_taskspec,
    parse_taskspec,
    taskspec_json_schema,
    to_paper,
)
from tambench.schema.io import PAPER_FIELDS

PLATFORM_OF = {"ind": "biendata", "pst": "biendata", "aqa": "biendata",
               "nextproductprediction": "aicrowd"}


def _paper_files(tam_lite_dir: Path) -> list[Path]:
    files = sorted(tam_lite_dir.glob("*/schema.json"))
    assert len(files) == 18
    return files


def test_all_18_paper_schemas_convert_without_loss(tam_lite_dir: Path, tmp_path: Path) -> None:
    for f in _paper_files(tam_lite_dir):
        slug = f.parent.name
        original = json.loads(f.read_text(encoding="utf-8"))
        spec = from_paper(original, f"{PLATFORM_OF.get(slug, 'kaggle')}/{slug}")
        assert to_paper(spec) == original, slug
        # and through a file round trip
        out = tmp_path / f"{slug}.json"
        out.write_text(dump_taskspec(spec), encoding="utf-8")
        again = load_taskspec(out)
        assert again == spec
        assert to_paper(again) == original


def test_loading_a_paper_file_without_an_id_names_what_is_missing(tam_lite_dir: Path) -> None:
    f = tam_lite_dir / "aqa" / "schema.json"
    with pytest.raises(TaskSpecError, match="paper's release format"):
        load_taskspec(f)
    spec = load_taskspec(f, task_id="biendata/aqa")
    assert spec.schema_version == SCHEMA_VERSION
    assert spec.provenance.mapper == "paper-release"


def test_paper_schema_with_an_unknown_key_is_refused_not_dropped(tam_lite_dir: Path) -> None:
    data = json.loads((tam_lite_dir / "aqa" / "schema.json").read_text(encoding="utf-8"))
    data["surprise"] = 1
    with pytest.raises(TaskSpecError, match="surprise"):
        from_paper(data, "biendata/aqa")


def test_future_schema_version_is_refused_with_a_clear_message() -> None:
    data = {"schema_version": SCHEMA_VERSION + 1, "id": "kaggle/x", "platform": "kaggle"}
    with pytest.raises(SchemaVersionError,
                       match=rf"schema_version {SCHEMA_VERSION + 1}.*upgrade tambench"):
        parse_taskspec(data)


def test_extra_fields_are_forbidden() -> None:
    with pytest.raises(TaskSpecError, match="colour"):
        parse_taskspec({"id": "kaggle/x", "platform": "kaggle", "colour": "red"})


def test_id_must_match_platform_and_must_not_traverse() -> None:
    with pytest.raises(TaskSpecError, match="must start with its platform"):
        parse_taskspec({"id": "kaggle/x", "platform": "aicrowd"})
    with pytest.raises(TaskSpecError):
        parse_taskspec({"id": "kaggle/../etc", "platform": "kaggle"})
    assert TaskSpec(id="kaggle/spaceship-titanic", platform="kaggle").slug == "spaceship-titanic"


def test_grading_spec_header_must_hold_id_and_target_columns() -> None:
    with pytest.raises(ValueError, match="lacks id/target"):
        GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"],
                    submission_header=["id", "z"])
    ok = GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"],
                     submission_header=["id", "y"])
    assert ok.submission_format == "csv"


def test_json_schema_carries_field_docstrings_for_the_llm_mapper() -> None:
    schema = taskspec_json_schema()
    props = schema["properties"]
    for name in PAPER_FIELDS:
        assert name in props
    assert "Stable id" in props["id"]["description"]
    assert "Numbered constraints" in props["special_instructions"]["description"]
    grading = schema["$defs"]["GradingSpec"]["properties"]
    assert "Registered metric id" in grading["metric"]["description"]
    # every property of every model has a description
    for model_name, model in schema["$defs"].items():
        for prop, body in model.get("properties", {}).items():
            assert body.get("description"), f"{model_name}.{prop} has no docstring"
