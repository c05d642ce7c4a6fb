"""The TaskSpec: one validated description of one benchmark task.

Every stage reads and writes this model. Field docstrings become the descriptions in
``TaskSpec.model_json_schema()``, which is exactly what the LLM schema mapper is shown, so they
are written for a reader who has only the competition's pages in front of them.

The first block of fields is the paper's schema, with the same names and meaning (task_type,
goal_description, metric, target_col, data_information, output_format, special_instructions);
the rest is what graders and the catalogue need and the paper's schema lacks.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator, model_serializer, model_validator

from tambench.core.fielddocs import DOCUMENTED

# The split models live in schema.splitspec; they are part of this contract (re-exported).
from tambench.schema.splitspec import AnySplitSpec, omit_empty
from tambench.schema.splitspec import FilesSpec as FilesSpec
from tambench.schema.splitspec import GroupSplit as GroupSplit
from tambench.schema.splitspec import HoldoutFileSplit as HoldoutFileSplit
from tambench.schema.splitspec import HoldoutValueSplit as HoldoutValueSplit
from tambench.schema.splitspec import OfficialSplit as OfficialSplit
from tambench.schema.splitspec import RandomSplit as RandomSplit
from tambench.schema.splitspec import SplitSpec as SplitSpec
from tambench.schema.splitspec import StratifiedSplit as StratifiedSplit
from tambench.schema.splitspec import TimeSplit as TimeSplit
from tambench.schema.splitspec import make_split_spec as make_split_spec
from tambench.schema.splitspec import parse_split_spec as parse_split_spec

#: The schema version this tambench writes. Older versions are migrated on load
#: (see :mod:`tambench.schema.io`); newer ones are refused.
SCHEMA_VERSION = 2

TASK_ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$"
_TASK_ID_RE = re.compile(TASK_ID_PATTERN)


class _Model(BaseModel):
    model_config = DOCUMENTED


class Modality(StrEnum):
    """The six data modalities the benchmark balances over."""

    TABULAR = "Tabular"
    TEXT = "Text"
    IMAGE = "Image"
    AUDIO = "Audio"
    GRAPH = "Graph"
    MULTIMODAL = "Multimodal"


class Tier(StrEnum):
    """Difficulty tier derived from the leaderboard."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class SubmissionFormat(StrEnum):
    """File format of a submission."""

    CSV = "csv"
    JSON = "json"
    TXT = "txt"


# --- the paper's fields -------------------------------------------------------------------


class MetricDescription(_Model):
    """The evaluation metric as the competition describes it (the paper's ``metric``)."""

    metric_name: str = ""
    """Name of the metric as the competition page states it, e.g. "Root Mean Squared Error"."""

    metric_formula: str = ""
    """The metric's formula as given on the page (LaTeX or plain text); empty if none given."""


class DataLocation(_Model):
    """Where one part of the data lives and what it contains."""

    data_location: str = ""
    """File name(s) or folder of this part of the data, as named on the data page."""

    data_description: str = ""
    """What the files contain: columns, formats, sizes, anything a solver must know."""


class DataInformation(_Model):
    """The data of the task (the paper's ``data_information``)."""

    data_type: str = ""
    """Data modality as written by the source (free text, e.g. "Tabular", "Multi-Modal")."""

    train: DataLocation = Field(default_factory=DataLocation)
    """The training data."""

    test: DataLocation = Field(default_factory=DataLocation)
    """The test data whose labels are hidden."""

    inference: DataLocation = Field(default_factory=DataLocation)
    """Inference-time material, typically the sample submission file."""


# --- what graders and the catalogue need ---------------------------------------------------


class PublicColumn(_Model):
    """One column of a public file of the task (a file solvers also see)."""

    file: str
    """Path of the file inside the task's ``public/`` folder, e.g. "train.csv"."""

    column: str
    """Name of the column, e.g. "label"."""


class ScoredWhere(_Model):
    """Rows are scored by the value of an answers column (ventilator: rows with u_out = 0)."""

    rule: Literal["where"] = "where"
    """Discriminator: "where"."""

    column: str | list[str]
    """The answers column holding the flag; a list names alternative spellings, the first one
    present in the answers is read (stanford-covid-vaccine: ["keep", "scored"])."""

    scored: list[str]
    """Cell values (exact text) of the rows that are scored, e.g. ["0"] or ["1", "True"]."""

    unscored: list[str] = Field(default_factory=list)
    """Cell values of the rows that are not scored; when given, a value in neither list is an
    error in the answers. Empty: every value but the scored ones is unscored."""


class ScoredLastPerGroup(_Model):
    """Only the last ``k`` rows of each group are scored, in the order of a numeric answers
    column (osic-pulmonary-fibrosis-progression: the last 3 measured weeks of each patient)."""

    rule: Literal["last_per_group"] = "last_per_group"
    """Discriminator: "last_per_group"."""

    group_column: str
    """Answers column naming each row's group, e.g. "Patient"."""

    order_column: str
    """Numeric answers column ordering the rows of a group, e.g. "Weeks"."""

    k: int = Field(default=1, ge=1)
    """How many rows of each group are scored (the ones with the largest order values)."""


ScoredRows = Annotated[ScoredWhere | ScoredLastPerGroup, Field(discriminator="rule")]


class GradingSpec(_Model):
    """How a submission is checked and scored. Metric ids exist only in the metric registry."""

    metric: str
    """Registered metric id (``tambench metrics`` lists them), e.g. "rmse" or "map_at_k"."""

    metric_params: dict[str, Any] = Field(default_factory=dict)
    """Parameters of the metric, e.g. {"k": 25} for MAP@25."""

    id_columns: list[str] = Field(default_factory=list)
    """Column(s) identifying a row in the submission and the answers (empty for formats keyed
    by line order or by JSON keys)."""

    target_columns: list[str] = Field(default_factory=list)
    """Column(s) the metric scores."""

    submission_format: SubmissionFormat = SubmissionFormat.CSV
    """File format of the submission: csv, json or txt."""

    submission_header: list[str] = Field(default_factory=list)
    """The exact header row the submission must have, in the sample submission's order
    (csv only). May hold required columns that are not scored."""

    answers_file: str = "answers.csv"
    """File name of the private answers inside the task's ``private/`` folder."""

    value_policy: dict[str, Any] = Field(default_factory=dict)
    """Declared normalisation policies, e.g. {"strip_spaces": true}; empty means strict."""

    answers_target_columns: list[str] = Field(default_factory=list)
    """The answers' names of the target columns, in ``target_columns`` order, where they
    differ from the submission's (empty: the same names)."""

    labels: list[str] = Field(default_factory=list)
    """Class labels a ``label`` target accepts, as submissions write them (every target
    column). Empty: the distinct values of ``labels_from``, or else any label is accepted and
    an unseen one scores as a wrong prediction. Never taken from the private answers: a class
    that is valid for the task but absent from the test split is a wrong prediction, not an
    error."""

    labels_from: PublicColumn | None = None
    """A public column whose distinct values are the valid labels (e.g. train.csv's label
    column); used when ``labels`` is empty."""

    label_equivalence: list[Literal["case", "boolean", "number"]] = Field(default_factory=list)
    """Other spellings of the declared labels that grade as those labels: "case" (letter case:
    "cat" is "Cat"), "boolean" (true/false/1/0 in any case, 1.0 and 0.0: "1" is "True"),
    "number" (equal values: "3.0" is "3"). A submitted label outside the label set that
    matches exactly one declared label under these rules is that label; any other is refused,
    naming the declared spelling. Needs ``labels`` or ``labels_from``. Empty: labels are exact
    strings (spaces around them: ``value_policy.strip_spaces``)."""

    empty_token: str | None = None
    """A cell holding exactly this text is an empty value, in submissions and answers
    (google-research-identify-contrails: "-" for an empty mask). Kinds mask, set, ranking and
    text only."""

    unscored_marker: str | None = None
    """An answers row with this value in any target cell is not scored; submissions must still
    hold it (jigsaw-toxic-comment-classification-challenge: "-1"; osic: "" for the weeks
    without a measurement). Numbers compare as numbers. Kinds value, probability and label."""

    normalize_truths: Literal["none", "row_sum"] = "none"
    """"row_sum": each answers row of the target columns is divided by its sum before scoring
    (hms-harmful-brain-activity-classification: annotator vote counts become probabilities).
    Kind probability with several target columns."""

    scored_rows: ScoredRows | None = None
    """Which answers rows are scored (after the unscored marker); null: every row. The metric
    only ever sees the scored rows."""

    extra_ids: Literal["reject", "ignore"] = "reject"
    """"ignore": a submission may hold ids that are not answer ids; they are not scored
    (h-and-m-personalized-fashion-recommendations lists every customer, only buyers are
    scored). Which ids are scored stays private: unknown ids are not named, and a missing
    answer id is refused without being named, unless ``ids_from`` gives the public id list."""

    ids_from: PublicColumn | None = None
    """With ``extra_ids`` "ignore": the public list of ids every submission holds exactly once
    (e.g. the sample submission's id column); ids outside it, missing or repeated are named."""

    submission_only_columns: dict[str, str] = Field(default_factory=dict)
    """Targets only the submission holds, with the sample submission's value (OSIC's
    ``{"Confidence": "70"}``: the metric reads the predicted FVC and its confidence, the
    answers hold the FVC alone): left out of the truths. CSV only; written only when set."""

    @model_serializer(mode="wrap")
    def _omit_unset_submission_only(self, handler: Any) -> Any:
        return omit_empty(handler(self), ("submission_only_columns",))

    def answers_targets(self) -> list[str]:
        """The answers' names of the targets the answers hold, in ``target_columns`` order."""
        names = self.answers_target_columns or self.target_columns
        return [a for t, a in zip(self.target_columns, names, strict=False)
                if t not in self.submission_only_columns]

    @model_validator(mode="after")
    def _submission_only_are_some_targets(self) -> GradingSpec:
        only = set(self.submission_only_columns)
        if only - set(self.target_columns):
            raise ValueError(f"submission_only_columns {sorted(only - set(self.target_columns))}"
                             " are not target columns")
        if only and (only >= set(self.target_columns)
                     or self.submission_format != SubmissionFormat.CSV):
            raise ValueError("submission_only_columns: CSV submissions only, and not every "
                             "target column (the answers must hold one)")
        return self

    @model_validator(mode="after")
    def _header_holds_keys(self) -> GradingSpec:
        if self.submission_format == SubmissionFormat.CSV and self.submission_header:
            missing = [c for c in [*self.id_columns, *self.target_columns]
                       if c not in self.submission_header]
            if missing:
                raise ValueError(
                    f"submission_header {self.submission_header} lacks id/target column(s) {missing}"
                )
        return self


class Difficulty(_Model):
    """Difficulty of the task computed from its private leaderboard."""

    method: str = Field(default="paper", pattern=r"^[a-z][a-z0-9_-]*$")
    """Which registered difficulty method produced the score: ``paper`` (the formula as
    printed), ``robust`` (the same formula on a cleaned board) or ``calibrated`` (the model
    fitted to human tiers); ``tambench difficulty --help`` lists them."""

    score: float
    """The difficulty score D (higher is harder)."""

    tier: Tier
    """easy, medium or hard, by the method's own thresholds (the paper's: D <= 0.6 easy,
    0.6 < D <= 0.85 medium, hard above)."""

    inputs: dict[str, float] = Field(default_factory=dict)
    """Every term of the formula (NormMean, NormBest, participants, min, max, ...)."""

    other: list[Difficulty] = Field(default_factory=list)
    """Results of the other method(s), kept side by side."""


class LeaderboardSource(_Model):
    """Where the task's ``leaderboard.csv`` came from, and the scale its scores are on."""

    source: str
    """Who published the board: ``github:<owner>/<repo>`` for a file committed to a
    repository, ``kaggle`` for a board fetched with the kaggle client, or a page address."""

    commit: str = ""
    """Commit of the repository the file was read at (empty for other sources)."""

    path: str = ""
    """Path of the file inside that repository."""

    kind: Literal["private", "public", "unknown"] = "unknown"
    """Which board it is: the final private one (what ranking needs), the public one, or not
    known."""

    rows: int = Field(ge=1)
    """Number of rows (teams) on the board as shipped."""

    sha256: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")
    """SHA-256 of the source file as read, before conversion to the compact form."""

    retrieved_at: date | None = None
    """When the board was fetched (boards fetched with the kaggle client)."""

    metric: str = ""
    """The metric the scores are in, by registered id (or the id a metric is being added
    under); empty when not known."""

    higher_is_better: bool | None = None
    """Direction of the scores, as declared for that metric (None when not known)."""

    lower_bound: float | None = None
    """Lowest value the metric can take; None when it has no lower bound (or is not known)."""

    upper_bound: float | None = None
    """Highest value the metric can take; None when it has no upper bound (or is not known)."""

    notes: list[str] = Field(default_factory=list)
    """Remarks: which of several files was chosen and why, known quirks of the board."""


class SourcePage(_Model):
    """One page a TaskSpec was built from."""

    kind: str
    """overview | data | evaluation | rules | leaderboard | other."""

    url: str
    """Address the page was fetched from."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the raw HTML (or text) as fetched."""

    fetched_at: datetime
    """When the page was fetched (UTC)."""

    path: str = ""
    """Where the page's Markdown is kept, relative to the task folder."""


class PageSource(_Model):
    """Where the competition's own pages (overview, evaluation, data, rules) can be read.

    The catalogue names the text and pins it by checksum; it does not hold it. ``tambench
    tasks pages`` and ``prepare`` read it on the user's side (a local checkout of the
    repository, the repository over the network, or the platform) and check the checksum."""

    kind: Literal["repository", "platform"]
    """repository: a file of a public repository at a commit; platform: the competition's
    page on its platform (read as HTML)."""

    source: str = Field(min_length=1)
    """The repository ("github:openai/mle-bench") or the platform ("kaggle")."""

    commit: str = Field(default="", pattern=r"^([0-9a-f]{40})?$")
    """The commit the file is read at (repository sources)."""

    path: str = ""
    """The file, relative to the repository's root (repository sources)."""

    key: str = ""
    """For a file holding many competitions' pages (a JSON list): ``<field>=<value>/<text
    field>``, the item whose field has that value and the field holding its text."""

    url: str = ""
    """The page's address (platform sources)."""

    format: Literal["markdown", "text", "html", "paper-schema"] = "markdown"
    """How the text is written: Markdown, plain text, an HTML page, or the paper's schema
    JSON (a statement, not the page)."""

    sha256: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")
    """SHA-256 of the text as read (the file's bytes, or the UTF-8 of the keyed text); empty
    only for a platform page, whose text changes and is not pinned."""


class FactSource(_Model):
    """One source of one fact of a task: a file of a public repository or data set."""

    source: str = Field(min_length=1)
    """The repository or data set, e.g. "github:openai/mle-bench"."""

    commit: str = ""
    """The commit the file was read at (empty for a source without versions)."""

    path: str = ""
    """The file, relative to the source's root."""

    value: str = ""
    """The value this source gives, as text (so that sources that disagree stand side by
    side)."""

    detail: str = ""
    """How the value was read, e.g. the line of the timeline that states it."""


class PendingGrading(_Model):
    """Grading facts a mapper read from the pages while it could not build ``grading``
    (because the metric is missing, unknown, or not registered). Kept so that nothing read is
    lost: the submission header stays here with its id and target columns, and once the
    metric is known these fill ``grading``."""

    metric_name: str = ""
    """The metric as the page names it ("" when the pages name none)."""

    metric_id: str = ""
    """The metric id that computes the page's metric exactly, when one is known but not
    registered in this installation; empty when no id computes it."""

    metric_params: dict[str, Any] = Field(default_factory=dict)
    """Parameters of ``metric_id`` read from the pages."""

    reason: str = ""
    """Why there is no grading section, e.g. "metric box_map is not registered"."""

    submission_header: list[str] = Field(default_factory=list)
    """The exact header row the pages give for the submission."""

    id_columns: list[str] = Field(default_factory=list)
    """Column(s) identifying a row."""

    target_columns: list[str] = Field(default_factory=list)
    """Column(s) the metric scores."""


class Provenance(_Model):
    """Where a TaskSpec came from."""

    mapper: str = "manual"
    """Who filled the fields: "rules", "model:<name>", "paper-release", "importer:<name>" or
    "manual"."""

    pages: list[SourcePage] = Field(default_factory=list)
    """Source pages, with their hashes and fetch times."""

    evidence: dict[str, str] = Field(default_factory=dict)
    """For each filled field, a quote from the source Markdown that supports it."""

    unfilled: list[str] = Field(default_factory=list)
    """Fields the mapper could not fill."""

    notes: list[str] = Field(default_factory=list)
    """Free-form remarks: known defects of the source, manual corrections."""

    pending_grading: PendingGrading | None = None
    """What a mapper read for grading when ``grading`` could not be built (see
    :class:`PendingGrading`); None when ``grading`` holds it, or nothing was read."""

    facts: dict[str, list[FactSource]] = Field(default_factory=dict)
    """Fact (``end_date``, ``grading.metric``, ``modality``, ``split``, ...) -> every source
    that gave it. When sources disagree the fact is left unset and the notes say why."""


class TaskSpec(_Model):
    """One benchmark task: the paper's schema plus what grading and the catalogue need."""

    schema_version: int = SCHEMA_VERSION
    """Version of this schema; files of a newer version are refused, older ones migrated."""

    id: str = Field(pattern=TASK_ID_PATTERN)
    """Stable id ``<platform>/<slug>``, e.g. "kaggle/spaceship-titanic"."""

    platform: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    """Hosting platform: kaggle, aicrowd, biendata, or another site's short name."""

    url: str = ""
    """Address of the competition's overview page."""

    title: str = ""
    """Human-readable competition title."""

    status: Literal["complete", "incomplete"] = "complete"
    """complete when graded end to end is possible; incomplete for catalogue stubs."""

    modality: Modality | None = None
    """Data modality: Tabular, Text, Image, Audio, Graph or Multimodal."""

    field: str = ""
    """Application domain, e.g. finance, e-commerce, medicine, bioinformatics."""

    start_date: date | None = None
    """First day of the competition."""

    end_date: date | None = None
    """Last day of the competition (final submission deadline)."""

    n_teams: int | None = Field(default=None, ge=0)
    """Number of teams on the private leaderboard."""

    # The paper's schema --------------------------------------------------------------------
    task_type: str = ""
    """Kind of problem: "classification", "regression", "generation", ... as in the paper."""

    goal_description: str = ""
    """One or two sentences stating what must be predicted and why."""

    metric: MetricDescription = Field(default_factory=MetricDescription)
    """The evaluation metric as the competition describes it."""

    target_col: str = ""
    """The column (or columns, as the page words it) to predict."""

    data_information: DataInformation = Field(default_factory=DataInformation)
    """Data files of the task: modality, train, test and inference parts."""

    output_format: str = ""
    """The submission format as the page describes it, e.g. "fname,label\\nclip_0001.wav,..."."""

    special_instructions: str = ""
    """Numbered constraints a solution must respect ("1. ... 2. ...")."""

    page_sources: list[PageSource] = Field(default_factory=list)
    """Where the competition's pages are read, best first (see :class:`PageSource`); the
    catalogue ships none of their text."""

    # What the paper's schema lacks ---------------------------------------------------------
    grading: GradingSpec | None = None
    """How submissions are validated and scored; required for grading."""

    split: AnySplitSpec | None = None
    """How the local train/test split is made from the official training data (one model per
    strategy: fields another strategy reads are refused)."""

    difficulty: Difficulty | None = None
    """Difficulty from the private leaderboard."""

    leaderboard: LeaderboardSource | None = None
    """Provenance and score scale of the shipped ``leaderboard.csv`` (None without one)."""

    reference_tiers: dict[str, str] = Field(default_factory=dict)
    """Tiers given by other benchmarks, e.g. {"mle-bench": "low"}, kept for comparison."""

    provenance: Provenance = Field(default_factory=Provenance)
    """Where this spec came from."""

    @field_validator("id")
    @classmethod
    def _id_has_no_traversal(cls, v: str) -> str:
        if ".." in v.split("/") or v.startswith("/"):
            raise ValueError(f"task id {v!r} must not contain '..' or start with '/'")
        return v

    @model_validator(mode="after")
    def _id_matches_platform(self) -> TaskSpec:
        if self.id.split("/", 1)[0] != self.platform:
            raise ValueError(
                f"id {self.id!r} must start with its platform {self.platform!r} followed by '/'"
            )
        return self

    @property
    def slug(self) -> str:
        """The competition's slug, the part of the id after the platform."""
        return self.id.split("/", 1)[1]

    @property
    def is_gradable(self) -> bool:
        """Whether the spec carries what the grader needs."""
        return self.grading is not None


def make_task_id(platform: str, slug: str) -> str:
    """Build and check a task id.

    >>> make_task_id("kaggle", "spaceship-titanic")
    'kaggle/spaceship-titanic'
    """
    tid = f"{platform}/{slug}"
    if not _TASK_ID_RE.match(tid) or ".." in tid.split("/"):
        raise ValueError(f"{tid!r} is not a valid task id (expected <platform>/<slug>)")
    return tid
