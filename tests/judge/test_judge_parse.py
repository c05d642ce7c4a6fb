"""Splitting special_instructions into numbered constraints: the 18 real Lite schemas and the
traps (stray numbers, decimals, versions, abbreviations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.judge import parse_constraints, parse_instructions

#: Constraint counts of the 18 Lite tasks, read off their special_instructions by hand.
LITE_COUNTS = {
    "aqa": 5,
    "binary-prediction-of-poisonous-mushrooms": 6,
    "cornell-birdcall-identification": 5,
    "denoising-dirty-documents": 6,
    "eedi-mining-misconceptions-in-mathematics": 10,
    "image-matching-challenge-2024-hexathlon": 12,
    "ind": 5,
    "lmsys-chatbot-arena": 5,
    "mlsp-2013-birds": 5,
    "multi-modal-gesture-recognition": 10,
    "new-york-city-taxi-fare-prediction": 5,
    "nextproductprediction": 11,
    "planttraits2024": 5,
    "pst": 9,
    "stanford-covid-vaccine": 5,
    "statoil-iceberg-classifier-challenge": 4,
    "tensorflow-speech-recognition-challenge": 6,
    "text-normalization-challenge-english-language": 5,
}


def instructions(tam_lite_dir: Path, task: str) -> str:
    return str(json.loads((tam_lite_dir / task / "schema.json").read_text())
               ["special_instructions"])


def test_the_lite_folder_holds_exactly_the_eighteen_tasks(tam_lite_dir: Path) -> None:
    assert sorted(p.name for p in tam_lite_dir.iterdir() if (p / "schema.json").is_file()) \
        == sorted(LITE_COUNTS)


@pytest.mark.parametrize(("task", "count"), sorted(LITE_COUNTS.items()))
def test_real_schema_splits_into_its_numbered_constraints_losslessly(
    tam_lite_dir: Path, task: str, count: int
) -> None:
    text = instructions(tam_lite_dir, task)
    parsed = parse_instructions(text)
    assert parsed.preamble == ""
    assert [c.number for c in parsed.constraints] == list(range(1, count + 1))
    # Re-joining "N. text" gives the original (whitespace collapsed): nothing dropped or moved.
    rejoined = " ".join(f"{c.number}. {c.text}" for c in parsed.constraints)
    assert rejoined == " ".join(text.split())


@pytest.mark.parametrize(("task", "number", "text"), [
    ("mlsp-2013-birds", 1,
     "Combine 'rec_id' and 'species' into a single 'Id' column by multiplying 'rec_id' by 100 "
     "and adding 'species'. For example, ('rec_id', 'species') pair '1,2' becomes '102'."),
    ("image-matching-challenge-2024-hexathlon", 1,
     "Submissions must be made via Notebooks with CPU/GPU runtime \u2264 9 hours."),
    ("image-matching-challenge-2024-hexathlon", 6,
     "There are 6 problem categories: phototourism/historical preservation, night vs "
     "day/temporal changes, aerial/mixed aerial-ground, repeated structures, natural "
     "environments, transparencies/reflections."),
    ("pst", 1, "Importance scores must be normalized to the range [0, 1]."),
    ("planttraits2024", 5,
     "The evaluation metric is the mean $R^2$ over all 6 traits, with only $R^2$ values > 0 "
     "considered."),
    ("cornell-birdcall-identification", 2,
     "Use space\u2011separated ebird codes (e.g., \"amecro amerob\")."),
    ("multi-modal-gesture-recognition", 1,
     "Only include gestures from the predefined vocabulary of 20 Italian signs (labels 1-20); "
     "exclude non-interest gestures."),
    ("statoil-iceberg-classifier-challenge", 4,
     "Any binary classification model suitable for this task can be used, but consider "
     "handling class imbalance if necessary."),
])
def test_real_schema_constraint_texts(tam_lite_dir: Path, task: str, number: int,
                                      text: str) -> None:
    constraints = parse_constraints(instructions(tam_lite_dir, task))
    assert constraints[number - 1].number == number
    assert constraints[number - 1].text == text


def texts(s: str) -> list[str]:
    return [c.text for c in parse_constraints(s)]


def test_stray_number_inside_a_sentence_does_not_split() -> None:
    assert texts("1. Use at most 2. GPUs per run. 2. Log the seed.") == [
        "Use at most 2. GPUs per run.", "Log the seed."]


def test_decimals_and_versions_do_not_split() -> None:
    assert texts("1. Keep the threshold at 0.5. 2. Use Python 3.11 and v2. only. "
                 "3. Ship release 1.2.3.") == [
        "Keep the threshold at 0.5.", "Use Python 3.11 and v2. only.", "Ship release 1.2.3."]


def test_figure_and_other_abbreviations_do_not_split() -> None:
    assert texts("1. Follow the layout of Fig. 2. exactly. 2. See Eq. 3. for the loss; "
                 "e.g. 4. is fine.") == [
        "Follow the layout of Fig. 2. exactly.", "See Eq. 3. for the loss; e.g. 4. is fine."]


def test_out_of_sequence_number_after_a_sentence_stays_in_its_constraint() -> None:
    assert texts("1. Train for 5 epochs. 3. of them on GPU. 2. Save the model.") == [
        "Train for 5 epochs. 3. of them on GPU.", "Save the model."]


def test_markers_at_line_starts_split_even_without_a_period_before() -> None:
    assert texts("1. Use CNNs\n2. Output probabilities\n3) not a marker style") == [
        "Use CNNs", "Output probabilities 3) not a marker style"]


def test_parenthesis_style_numbering() -> None:
    assert texts("1) Scale inputs. 2) Fix seeds.") == ["Scale inputs.", "Fix seeds."]


def test_text_before_the_first_marker_is_kept_as_preamble() -> None:
    parsed = parse_instructions("Constraints: 1. A. 2. B.")
    assert parsed.preamble == "Constraints:" and [c.text for c in parsed.constraints] == ["A.", "B."]


def test_unnumbered_text_is_one_constraint_and_bullets_are_one_each() -> None:
    assert texts("Use only the provided data.") == ["Use only the provided data."]
    assert texts("- Use CNNs\n- Fix seeds\n* Log metrics") == ["Use CNNs", "Fix seeds",
                                                              "Log metrics"]


def test_empty_instructions_have_no_constraints() -> None:
    assert parse_constraints("") == [] and parse_constraints("  \n ") == []
