"""How a task's training data becomes a local train/test split: one model per strategy.

A split spec is one model per strategy, chosen by its ``strategy`` field from the registry
:data:`SPLIT_MODELS` when a task file loads. Each model holds only the fields its strategy
reads, so a field that does not apply (``group_column`` with the random strategy,
``test_size`` with the official one) is refused when the task file loads, with the reason,
instead of being silently ignored when the split runs. Conflicting settings
(``time_cutoff`` with ``last_k_periods``) are refused the same way.

Strategies, by how the test rows are chosen:

* one table, rows assigned by a seeded hash: ``random``, ``stratified`` (class shares kept),
  ``group`` (no group on both sides);
* one table, rows assigned by their values: ``time`` (later periods are test),
  ``holdout_value`` (rows whose column equals a value);
* two tables: ``holdout_file`` (a raw file holds the test rows with their labels),
  ``official`` (published test features and answers files).

One-table strategies may carry per-row files (``files``: images, audio) that follow their rows
into ``public/train/`` or ``public/test/``.

Every strategy shares one way to withhold a non-target column: ``hidden_columns`` maps a
column to ``"test"`` (removed from public/test.csv only, e.g. a secondary label) or
``"public"`` (removed from every public file). Targets are hidden from public/test.csv by being
targets.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from pydantic import (
    BaseModel,
    Field,
    GetJsonSchemaHandler,
    PlainValidator,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from tambench.core.fielddocs import DOCUMENTED
from tambench.core.registry import Registry
from tambench.errors import TaskSpecError
from tambench.schema.transforms import AnyTransform

DEFAULT_TEST_SIZE = 0.1

S = TypeVar("S", bound="SplitSpec")

#: Why a field is refused for a strategy that does not read it (field -> reason).
NOT_APPLICABLE: dict[str, str] = {
    "test_size": "this strategy does not take a share of rows: its test set is fixed by "
                 "{what}",
    "stratify_column": "only the stratified strategy reads it",
    "group_column": "only the group strategy keeps the groups of this column apart; with "
                    "this strategy rows of one group would land in both train and test "
                    "(use strategy 'group')",
    "time_column": "only the time strategy reads it",
    "time_cutoff": "only the time strategy reads it",
    "last_k_periods": "only the time strategy reads it",
    "holdout_column": "only the holdout_value strategy reads it",
    "holdout_value": "only the holdout_value strategy reads it",
    "holdout_file": "only the holdout_file strategy reads it",
    "official_test_file": "only the official strategy reads it",
    "official_answers_file": "only the official strategy reads it",
    "files": "per-row files follow rows of one table; two-table strategies take none",
    # names of schema version 1, refused with their replacement
    "holdout": "schema version 1 name: use strategy 'holdout_value' with holdout_column and "
               "holdout_value, or strategy 'holdout_file' with holdout_file",
    "drop_columns": "schema version 1 name: use hidden_columns: {column: \"public\"}",
    "file_id_pattern": "schema version 1 name: use files: {\"pattern\": ...}",
    "file_base_strategy": "schema version 1 name: the strategy itself assigns the rows; "
                          "per-row files go in files: {\"pattern\": ...}",
    "link_files": "schema version 1 name: use files: {\"link\": ...}",
}

#: What fixes the test set of strategies that take no ``test_size`` (for messages).
_FIXED_BY = {
    "holdout_value": "holdout_column == holdout_value",
    "holdout_file": "the holdout_file",
    "official": "the official test file",
}


class _Model(BaseModel):
    model_config = DOCUMENTED


def omit_empty(out: Any, names: tuple[str, ...]) -> Any:
    """A dumped model without the named fields that are empty (0, "", [], None): fields
    added later are written only when used, so older files keep their bytes."""
    if isinstance(out, dict):
        for name in names:
            if name in out and not out[name]:
                del out[name]
    return out


class FilesSpec(_Model):
    """Per-row files (images, audio, documents) that follow their row into public/."""

    pattern: str = Field(min_length=1)
    """Path of a row's file inside the raw data, with ``{column}`` fields filled from the row,
    e.g. "images/{id}.png"; ``{id[0]}`` takes one character of a value ("train/{id[0]}/{id}.npy");
    a path naming a folder places every file under it. Target columns may not be used (paths
    would reveal labels)."""

    link: bool = True
    """Hard-link files into public/ when the file system allows it and the raw file is
    readable by everyone (else copy); false always copies."""

    dest: str = ""
    """Path of a row's file under public/train/ or public/test/, with ``{column}`` fields
    (e.g. "{id}.jpg" when the raw name holds the label); empty: the raw path. Several rows
    may share one file (one structure per molecule): it is placed once. Written only when
    set."""

    strip: Literal["", "id3"] = ""
    """Metadata removed from every placed file (each is then copied, never linked): "id3"
    removes the ID3v2 tags at the start and the ID3v1 tag at the end of MP3 files (xeno-canto
    recordings name their species there), the audio frames kept byte for byte; empty: files
    placed as they are. Written only when set."""

    exclude: list[str] = Field(default_factory=list)
    """Names (shell patterns) of files left out of a row's folder on both sides, e.g.
    ["ground_truth.csv"] (smartphone-decimeter's trip folders hold their own answers). Written
    only when set."""

    @model_serializer(mode="wrap")
    def _omit_unset_dest(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return omit_empty(handler(self), ("dest", "strip", "exclude"))


class RecipeSource(_Model):
    """Where a recipe's knowledge of the raw layout was read."""

    source: str = Field(min_length=1)
    """The repository ("github:openai/mle-bench") or page the layout was read from."""

    commit: str = ""
    """The commit read (repositories)."""

    path: str = ""
    """The file read, e.g. "mlebench/competitions/<slug>/prepare.py"."""

    detail: str = ""
    """What it showed (file names, nesting, columns)."""


class AnswersPer(_Model):
    """Answers regrouped per key after the split: the test rows are events (h-and-m's
    purchases of the last week), the answers one row per key listing its events' items
    (each customer's articles), public/test.csv the keys and the sample submission one
    constant item per key."""

    key: str = Field(min_length=1)
    """The column whose values are the answers' rows: the grading's id column, e.g.
    "customer_id"."""

    column: str = Field(min_length=1)
    """The item column of the events, each item joined once, in the test rows' order: the
    split's one target, e.g. "article_id"."""

    into: str = Field(min_length=1)
    """The answers' column of the joined items: the grading's target, e.g. "prediction"."""

    separator: str = Field(default=" ", min_length=1)
    """Between two items."""

    @model_validator(mode="after")
    def _three_columns(self) -> AnswersPer:
        if len({self.key, self.column, self.into}) != 3:
            raise ValueError("answers_per: key, column and into must be three columns")
        return self


class SplitSpec(_Model):
    """Fields every split strategy has. Build a concrete one with :func:`make_split_spec`."""

    strategy: str
    """The strategy's name (see the concrete models)."""

    seed: int = 0
    """Seed of the assignment and of the public test order; the same inputs and seed give
    byte-identical outputs."""

    train_file: str = ""
    """Relative path of the table to split (or of the training table) inside the raw data;
    empty: the only CSV, else the only train.csv."""

    id_column: str = ""
    """Column holding the row id (also the submission's id column); empty: the grading
    spec's first id column."""

    target_columns: list[str] = Field(default_factory=list)
    """Columns written to the private answers and hidden from public/test.csv; the grading
    spec's target columns are always included."""

    hidden_columns: dict[str, Literal["test", "public"]] = Field(default_factory=dict)
    """Other columns withheld from agents: "test" removes one from public/test.csv only (it
    stays in train.csv, e.g. a secondary label); "public" removes it from every public file
    (e.g. a column derived from the target)."""

    test_order: Literal["shuffled", "original"] = "shuffled"
    """Row order of public/test.csv: "shuffled" (a seeded order that cannot carry label
    signal) or "original" (the raw file's order)."""

    extra_public_files: list[str] = Field(default_factory=list)
    """Raw files (relative paths) copied unchanged into public/, e.g. side tables a solver
    needs to predict (stores.csv, holidays.csv); a folder copies every file under it."""

    transforms: list[AnyTransform] = Field(default_factory=list)
    """Recipe transforms applied in order to the raw tables before the split (one_hot, rename,
    compose_id, hash_id, drop_rows, files_table; see ``tambench.schema.transforms``)."""

    sources: list[RecipeSource] = Field(default_factory=list)
    """Where the raw layout this recipe expects was read (peers' prepare scripts, data
    pages)."""

    encoding: str = ""
    """Text encoding of the raw tables the recipe reads when it is not UTF-8 (home-depot's
    train.csv is "latin-1"): they are re-encoded as UTF-8 before the split reads them."""

    answers_keys: list[str] = Field(default_factory=list)
    """JSON answers (grading submission_format json) only: the two columns that nest them,
    ``{row[k1]: {row[k2]: target}}`` (IND's author and paper ids); they stay in the answers."""

    answers_list: bool = False
    """JSON answers only: ``{row[k1]: [target, ...]}``, each k1's targets listed in the order
    of k2, which must number its rows 0, 1, ... (PST's labels per reference of a paper);
    false: nested objects."""

    answers_per: AnswersPer | None = None
    """Answers regrouped per key after the split (one-table strategies, CSV grading): see
    :class:`AnswersPer`; None: one answers row per test row."""

    @model_serializer(mode="wrap")
    def _omit_empty_recipe_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``transforms``, ``sources``, ``encoding``, ``answers_keys``, ``answers_list`` and
        ``answers_per`` are written only when a recipe has them, so recipes written before them
        keep their bytes."""
        return omit_empty(handler(self), ("transforms", "sources", "encoding", "answers_keys",
                                          "answers_list", "answers_per"))

    @model_validator(mode="before")
    @classmethod
    def _refuse_fields_of_other_strategies(cls, data: Any) -> Any:
        if cls.model_fields["strategy"].annotation is str:  # a base, not a strategy
            raise ValueError(f"{cls.__name__} is a base of the split strategies; build one with "
                             "make_split_spec(strategy=...) or a strategy's own model")
        if not isinstance(data, dict):
            return data
        strategy = data.get("strategy", "random")
        reasons = []
        for key in data:
            if key in cls.model_fields or key not in NOT_APPLICABLE:
                continue
            why = NOT_APPLICABLE[key].replace("{what}", _FIXED_BY.get(str(strategy), "its rule"))
            reasons.append(f"{key} does not apply to the {strategy} strategy: {why}")
        if reasons:
            raise ValueError("; ".join(reasons))
        return data

    @model_validator(mode="after")
    def _hidden_columns_are_not_ids_or_targets(self) -> SplitSpec:
        clash = sorted(set(self.hidden_columns) & set(self.target_columns))
        if clash:
            raise ValueError(f"hidden_columns {clash} are target columns: targets are already "
                             "hidden from public/test.csv and stay in train.csv")
        if self.id_column and self.id_column in self.hidden_columns:
            raise ValueError(f"hidden_columns hides the id column {self.id_column!r}")
        return self

    @property
    def uses_rows_of_one_table(self) -> bool:
        """True for strategies that assign the rows of one table (False: two tables)."""
        return False

    def applied(self) -> dict[str, Any]:
        """The settings that decided this split, as recorded in the split report."""
        out: dict[str, Any] = {}
        if self.test_order == "shuffled":
            out["seed"] = self.seed
        out["test_order"] = self.test_order
        return out


class OneTableSplit(SplitSpec):
    """Base of the strategies that assign the rows of one table (they may carry files)."""

    files: FilesSpec | None = None
    """Per-row files that follow their rows (None: the table is the whole data)."""

    @property
    def uses_rows_of_one_table(self) -> bool:
        """True: rows of one table are assigned."""
        return True


class HashedSplit(OneTableSplit):
    """Base of the strategies that pick test rows by a seeded hash of their ids or groups."""

    test_size: float = Field(default=DEFAULT_TEST_SIZE, gt=0.0, lt=1.0)
    """Fraction of rows (or of rows in whole groups) that go to the local test set."""

    def applied(self) -> dict[str, Any]:
        """Seed and test_size decide a hashed assignment."""
        return {"test_size": self.test_size, "seed": self.seed, "test_order": self.test_order}


class RandomSplit(HashedSplit):
    """Random rows: a seeded hash of each id decides; round(n x test_size) rows go to test."""

    strategy: Literal["random"] = "random"
    """random: the rows with the smallest seeded id hashes are test rows."""


class StratifiedSplit(HashedSplit):
    """Random rows within each class, so train and test keep the class shares."""

    strategy: Literal["stratified"] = "stratified"
    """stratified: per class (the label set of a multi-label cell), the smallest hashes."""

    stratify_column: str = ""
    """Column whose values are the classes (empty: the target columns)."""



class GroupSplit(HashedSplit):
    """Whole groups (patients, molecules, games) go to test, so no group is on both sides."""

    strategy: Literal["group"] = "group"
    """group: groups in seeded hash order go to test until their rows near test_size."""

    group_column: str = Field(min_length=1)
    """Column whose values must not be shared between train and test."""

    def applied(self) -> dict[str, Any]:
        """Seed, test_size and the group column."""
        return {**super().applied(), "group_column": self.group_column}


class TimeSplit(OneTableSplit):
    """Later periods are test: a cutoff, the last k periods, or the latest test_size share."""

    strategy: Literal["time"] = "time"
    """time: rows of the latest periods of time_column go to test."""

    time_column: str = Field(min_length=1)
    """Column holding times (ISO dates/times, or numbers such as a day index)."""

    time_cutoff: str = ""
    """ISO date/time or number: rows at or after it go to test."""

    last_k_periods: int = Field(default=0, ge=0)
    """The last k distinct values of time_column go to test."""

    test_size: float | None = Field(default=None, gt=0.0, lt=1.0)
    """The latest periods whose rows come nearest this share go to test (the default, 0.1,
    when neither time_cutoff nor last_k_periods is set)."""

    @model_validator(mode="after")
    def _one_rule(self) -> TimeSplit:
        given = [name for name, on in (("time_cutoff", bool(self.time_cutoff)),
                                       ("last_k_periods", self.last_k_periods > 0),
                                       ("test_size", self.test_size is not None)) if on]
        if len(given) > 1:
            raise ValueError(f"{' and '.join(given)} conflict: the time strategy takes one of "
                             "time_cutoff, last_k_periods or test_size")
        return self

    def applied(self) -> dict[str, Any]:
        """The time column and the one rule that chose the test periods."""
        out: dict[str, Any] = {"time_column": self.time_column}
        if self.time_cutoff:
            out["time_cutoff"] = self.time_cutoff
        elif self.last_k_periods:
            out["last_k_periods"] = self.last_k_periods
        else:
            out["test_size"] = self.test_size if self.test_size is not None else DEFAULT_TEST_SIZE
        return {**out, **super().applied()}


class HoldoutValueSplit(OneTableSplit):
    """The rows whose column equals a value (a fold, a shard, a site) are the test set."""

    strategy: Literal["holdout_value"] = "holdout_value"
    """holdout_value: rows with holdout_column == holdout_value go to test."""

    holdout_column: str = Field(min_length=1)
    """Column whose value marks test rows."""

    holdout_value: str = Field(min_length=1)
    """The value of holdout_column that marks test rows (compared as text)."""

    def applied(self) -> dict[str, Any]:
        """The column and value."""
        return {"holdout_column": self.holdout_column, "holdout_value": self.holdout_value,
                **super().applied()}


class HoldoutFileSplit(SplitSpec):
    """A raw file holds the test rows, labels included; the training table is the train set."""

    strategy: Literal["holdout_file"] = "holdout_file"
    """holdout_file: the rows of holdout_file are the test set."""

    holdout_file: str = Field(min_length=1)
    """Relative path of the file of test rows (with their target columns) in the raw data."""

    def applied(self) -> dict[str, Any]:
        """The holdout file."""
        return {"holdout_file": self.holdout_file, **super().applied()}


class OfficialSplit(SplitSpec):
    """The competition's own test set, with the labels it published after the deadline."""

    strategy: Literal["official"] = "official"
    """official: the official test features and published answers are the test set."""

    official_test_file: str = Field(min_length=1)
    """File of the official test features in the raw data."""

    official_answers_file: str = Field(min_length=1)
    """File of the published test labels in the raw data."""

    def applied(self) -> dict[str, Any]:
        """The two files."""
        return {"official_test_file": self.official_test_file,
                "official_answers_file": self.official_answers_file, **super().applied()}


#: Strategy name -> its spec model: the schema half of the "split strategy" extension point
#: (the other half, how the rows are assigned, is ``tambench.splits.strategies.STRATEGIES``;
#: ``tambench.splits.strategies.register_strategy`` registers both, and a test checks that
#: both name the same strategies). Not listed by ``extension_points()``: it is one extension
#: point with ``STRATEGIES``. A TaskSpec's ``split`` is validated by the model registered for
#: its ``strategy`` when the spec loads, so a strategy registered from outside the package
#: loads from a task.json like a built-in one.
SPLIT_MODELS: Registry[type[SplitSpec]] = Registry(
    "split strategy", error=TaskSpecError, listed=False,
    hint="strategies from outside tambench are registered with "
         "tambench.splits.strategies.register_strategy")


def strategy_name(model: type[SplitSpec]) -> str:
    """The one name a spec model's ``strategy: Literal[name]`` field allows.

    >>> strategy_name(TimeSplit)
    'time'
    """
    if not (isinstance(model, type) and issubclass(model, SplitSpec)):
        raise ValueError(f"a split spec model must subclass SplitSpec, got {model!r}")
    field = model.model_fields["strategy"]
    names = get_args(field.annotation) if get_origin(field.annotation) is Literal else ()
    if len(names) != 1 or not isinstance(names[0], str) or field.default != names[0]:
        raise ValueError(f"{model.__name__}.strategy must be declared "
                         "`strategy: Literal[\"<name>\"] = \"<name>\"`")
    return names[0]


def register_split_model(model: type[S]) -> type[S]:
    """Register a spec model under its strategy's name (once); returns it, so it can decorate.

    Only the schema half: a strategy also needs its assignment, so outside the package use
    ``tambench.splits.strategies.register_strategy``, which registers both.
    """
    SPLIT_MODELS.register(strategy_name(model), model)
    return model


for _model in (RandomSplit, StratifiedSplit, GroupSplit, TimeSplit, HoldoutValueSplit,
               HoldoutFileSplit, OfficialSplit):
    register_split_model(_model)


def _validate_split(value: Any) -> SplitSpec:
    """The spec model registered for ``value``'s strategy, validated (``strategy`` defaults
    to random); an unknown strategy is a validation error naming the valid ones."""
    if isinstance(value, SplitSpec):
        model = _model_of(value.strategy)
        if not isinstance(value, model):
            raise PydanticCustomError(
                "split_model", "{given} is not the model of strategy '{name}' ({expected})",
                {"given": type(value).__name__, "name": value.strategy,
                 "expected": model.__name__})
        return value
    if not isinstance(value, dict):
        raise PydanticCustomError("split_type", "a split spec is an object with a strategy, "
                                  "got {kind}", {"kind": type(value).__name__})
    return _model_of(value.get("strategy", "random")).model_validate(value)


def _model_of(strategy: Any) -> type[SplitSpec]:
    name = str(strategy)
    if name not in SPLIT_MODELS:
        raise PydanticCustomError("unknown_split_strategy", "{message}",
                                  {"message": SPLIT_MODELS.unknown_message(name)})
    return SPLIT_MODELS[name]


class _OneModelPerStrategy:
    """JSON schema of a split spec: one of the registered models (read when the schema is
    generated, so ``tambench schema export`` shows every registered strategy)."""

    def __get_pydantic_json_schema__(self, schema: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        choices: list[CoreSchema | tuple[CoreSchema, str]] = [
            SPLIT_MODELS[name].__pydantic_core_schema__ for name in SPLIT_MODELS]
        # The strategies exclude each other (``strategy`` is a constant of each model).
        return {"oneOf": handler(core_schema.union_schema(choices))["anyOf"]}


AnySplitSpec = Annotated[SerializeAsAny[SplitSpec], PlainValidator(_validate_split),
                         _OneModelPerStrategy()]
"""A split spec of any registered strategy (the ``split`` field of a TaskSpec): validated by
the strategy's own model, dumped with that model's fields."""


def parse_split_spec(data: Any) -> SplitSpec:
    """Validate a split spec dict (``strategy`` defaults to random) into its strategy's model.

    >>> parse_split_spec({"strategy": "group", "group_column": "patient"}).applied()
    {'test_size': 0.1, 'seed': 0, 'test_order': 'shuffled', 'group_column': 'patient'}
    """
    try:
        return _validate_split(data)
    except PydanticCustomError as err:  # an unknown strategy, or not a spec at all
        raise ValidationError.from_exception_data(
            "split spec", [{"type": err, "loc": (), "input": data}]) from None


def make_split_spec(**fields: Any) -> SplitSpec:
    """Keyword form of :func:`parse_split_spec`.

    >>> make_split_spec(strategy="time", time_column="day").applied()
    {'time_column': 'day', 'test_size': 0.1, 'seed': 0, 'test_order': 'shuffled'}
    """
    return parse_split_spec(fields)
