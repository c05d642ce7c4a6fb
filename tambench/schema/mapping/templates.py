"""The statement (the paper's schema fields) written from a task's facts, in the project's words.

The catalogue cannot ship a competition's prose, so the schema fields of an entry are written
here from what the entry already states as facts: its grading (metric, id and target columns,
submission header and format), its modality and title. Each sentence is this project's
template; a field the facts do not give is left empty and the reason recorded.
:func:`statement_problems` checks that a statement agrees with the grading, whoever wrote it
(these templates, the paper's release, a mapper):

* ``output_format`` holds the submission header, comma-separated, exactly;
* ``metric.metric_name`` names the metric ``grading.metric`` computes (the name resolves to it
  through the alias table, or is its id);
* ``target_col`` lists target columns of the grading (CSV submissions).

``special_instructions`` holds only constraints a page states; :func:`strip_advice` removes
the items of a numbered list that give advice instead (which model to use, what to tune).
"""

from __future__ import annotations

import re
from typing import Any

from tambench.core.metrics import get_metric
from tambench.core.metrics.aliases import ALIASES, REFINEMENTS, resolve_alias
from tambench.schema.taskspec import SubmissionFormat, TaskSpec

#: Where a metric's display name is taken from, best first (Kaggle's own names first).
_NAME_SOURCES = ("kaggle", "", "mle-bench", "dslighting", "tam-bench")
#: A placeholder in a metric's spelling ("MAP@{K}"): a parameter of the metric.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)\}")
_KIND_TYPES = {"label": "classification", "probability": "classification",
               "value": "regression", "ranking": "ranking", "set": "set prediction",
               "text": "text prediction", "mask": "segmentation",
               "structured": "structured prediction"}
#: A statement field left empty by the templates, and why.
REASONS = {
    "special_instructions": "no constraint of the competition's page is restated in the "
                            "catalogue; the page itself is handed over in description.md",
    "data_information": "the files of a non-CSV task are named by its recipe and described "
                        "in description.md when prepared",
    "target_col": "the submission is a whole-file structure without target columns",
}
#: An item of a numbered list that advises instead of constraining.
ADVICE = re.compile(
    r"\b(recommend\w*|suggest\w*|encourag\w*|consider\w*|may be (?:useful|required)|"
    r"could|optionally|flexib\w*|tun(?:e|ed|ing)\b|hyper-?parameters?|must[- ]use features?|"
    r"features? such as|no specific (?:model|methodology)|is not required|"
    r"should be (?:tuned|considered|explored|utili[sz]ed|leveraged|determined)|aim to|"
    r"ensure (?:that )?(?:predictions|your approach)|may use|you may|may need|as features?\b|"
    r"features must include|data augmentation|must be used to detect|use all available|"
    r"strategies such as|is called|problem categories|evaluation uses|if needed|if necessary|"
    r"(?:cnn|convolutional|transformer|bert|ensemble|gradient boost\w*|seq2seq|"
    r"sequence-to-sequence)s?\b)"
    r"|^(?:handle|integrate|segment|simulate|define|preprocessing|methods? for|"
    r"the evaluation metric|the training data includes)\b", re.I)
_ITEM = re.compile(r"(?:^|\s)(\d{1,2})\.\s+")


def metric_name(metric_id: str, params: dict[str, Any] | None = None) -> str:
    """A metric's name as competitions spell it (Kaggle's own when known), else its id; a
    spelling's placeholders ("MAP@{K}") take the grading's parameters (``k``), or the
    parameter's own name when the grading gives none ("MAP@k").

    >>> metric_name("rmse"), metric_name("roc_auc")
    ('Root Mean Squared Error', 'Area Under Receiver Operating Characteristic Curve')
    >>> metric_name("map_at_k", {"k": 5}), metric_name("ndcg_at_k")
    ('MAP@5', 'NDCG@k')
    """
    given = {str(k).upper(): v for k, v in (params or {}).items()}
    for source in _NAME_SOURCES:
        for alias in ALIASES:
            if (alias.metric == metric_id and alias.source == source and not alias.ambiguous
                    and not alias.params):
                return _PLACEHOLDER.sub(
                    lambda m: str(given.get(m.group(1), m.group(1).lower())), alias.spelling)
    return metric_id


def _templated(name: str, metric_id: str) -> bool:
    """Whether ``name`` fills a placeholder spelling of ``metric_id`` ("NDCG@5", "MAP@k")."""
    for alias in ALIASES:
        if alias.metric != metric_id or not _PLACEHOLDER.search(alias.spelling):
            continue
        parts = _PLACEHOLDER.split(alias.spelling)
        pattern = "".join(re.escape(p) if i % 2 == 0 else rf"(?:\d+|{p.lower()})"
                          for i, p in enumerate(parts))
        if re.fullmatch(pattern, name.strip(), re.I):
            return True
    return False


def names_metric(name: str, metric_id: str) -> bool:
    """Whether ``name`` names the metric ``metric_id`` computes (or one it refines)."""
    if not name.strip() or _PLACEHOLDER.search(name):  # "MAP@{K}": the k is not given
        return False
    if name.strip() == metric_id or _templated(name, metric_id):
        return True
    for source in ("", "tam-bench", "kaggle", "mle-bench", "dslighting"):
        match = resolve_alias(name, source)
        if match is not None and (metric_id in (match.metric, *match.alternatives)
                                  or REFINEMENTS.get(metric_id) == match.metric):
            return True
    return False


def task_type_of(metric_id: str) -> str:
    """The kind of problem a metric scores."""
    if "box" in metric_id:
        return "object detection"
    return _KIND_TYPES[get_metric(metric_id).kind]


def _code_list(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _direction(metric_id: str) -> str:
    return "higher is better" if get_metric(metric_id).higher_is_better else "lower is better"


def template_fields(spec: TaskSpec) -> tuple[dict[str, Any], dict[str, str]]:
    """The schema fields written from the grading, and the reasons of those left empty.

    Raises:
        ValueError: the spec has no grading.
    """
    g = spec.grading
    if g is None:
        raise ValueError(f"{spec.id} has no grading to write a statement from")
    m = get_metric(g.metric)
    name = metric_name(g.metric, g.metric_params)
    csv = g.submission_format == SubmissionFormat.CSV
    targets = _code_list(g.target_columns)
    scored = f"scored by {name} ({_direction(g.metric)})"
    if csv:
        goal = (f"Predict {targets} for every row of the test data, identified by "
                f"{_code_list(g.id_columns)}; {scored}.")
        output = (f"submission.csv with the header `{','.join(g.submission_header)}` and one "
                  "row per row of test.csv.")
    else:
        goal = (f"Predict the answers of every test item of {spec.title or spec.slug} and "
                f"write them as one {g.submission_format.value.upper()} file; {scored}.")
        output = (f"One {g.submission_format.value.upper()} file whose structure the "
                  f"`{g.metric}` grader checks (see description.md).")
    fields: dict[str, Any] = {
        "task_type": task_type_of(g.metric), "goal_description": goal,
        "metric": {"metric_name": name, "metric_formula": m.summary},
        "target_col": ", ".join(g.target_columns) if csv else "",
        "output_format": output, "special_instructions": "",
    }
    reasons = {"special_instructions": REASONS["special_instructions"]}
    if csv:
        fields["data_information"] = _csv_data(spec, targets)
    else:
        fields["data_information"] = {"data_type": spec.modality.value if spec.modality
                                      else ""}
        reasons["data_information"] = REASONS["data_information"]
        reasons["target_col"] = REASONS["target_col"]
    return fields, reasons


def _csv_data(spec: TaskSpec, targets: str) -> dict[str, Any]:
    files = getattr(spec.split, "files", None) if spec.split is not None else None
    per_row = (f"; each row's input file is under train/ ({files.pattern})"
               if files is not None else "")
    train = f"The training rows with their {targets}{per_row}."
    test = f"The rows to predict, without {targets}."
    per = getattr(spec.split, "answers_per", None) if spec.split is not None else None
    if per is not None:  # events in train.csv, one answer per key (h-and-m's purchases)
        train = (f"The earlier events, one row each, with their `{per.column}`{per_row}; a "
                 f"{targets} is the `{per.column}`s of one `{per.key}`'s later events, joined "
                 f"by {per.separator!r}.")
        test = f"The `{per.key}`s to predict, one row each, without {targets}."
    return {
        "data_type": spec.modality.value if spec.modality else "",
        "train": {"data_location": "train.csv" + (", train/" if files is not None else ""),
                  "data_description": train},
        "test": {"data_location": "test.csv" + (", test/" if files is not None else ""),
                 "data_description": test},
        "inference": {"data_location": "sample_submission.csv",
                      "data_description": "A submission in the expected format."},
    }


def strip_advice(text: str) -> tuple[str, list[str]]:
    """A numbered list without its advice items, renumbered; and the items removed.

    >>> strip_advice("1. Output must be a parquet file. 2. A CNN is recommended.")
    ('1. Output must be a parquet file.', ['A CNN is recommended.'])
    """
    marks = list(_ITEM.finditer(text))
    if not marks:
        return (text, []) if not ADVICE.search(text) else ("", [text.strip()])
    items = [text[a.end():b.start() if b else len(text)].strip()
             for a, b in zip(marks, [*marks[1:], None], strict=True)]
    kept = [i for i in items if not ADVICE.search(i)]
    removed = [i for i in items if ADVICE.search(i)]
    return " ".join(f"{n}. {i}" for n, i in enumerate(kept, 1)), removed


def statement_problems(spec: TaskSpec) -> list[str]:
    """Where the statement disagrees with the grading (empty when it agrees)."""
    g = spec.grading
    if g is None:
        return []
    problems = []
    if g.submission_format == SubmissionFormat.CSV and g.submission_header:
        header = ",".join(g.submission_header)
        if header not in spec.output_format:
            problems.append(f"output_format does not give the submission header {header!r}")
        named = [c.strip() for c in spec.target_col.split(",") if c.strip()]
        if not named or not set(named) <= set(g.target_columns):
            problems.append(f"target_col {spec.target_col!r} is not among the target columns "
                            f"{g.target_columns}")
    if not names_metric(spec.metric.metric_name, g.metric):
        problems.append(f"metric_name {spec.metric.metric_name!r} does not name the graded "
                        f"metric {g.metric!r}")
    if not spec.goal_description.strip():
        problems.append("goal_description is empty")
    if strip_advice(spec.special_instructions)[1]:
        problems.append("special_instructions give advice, not only the page's constraints")
    return problems
