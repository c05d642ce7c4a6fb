"""Every exception tambench raises on purpose, one docstring each.

A bad submission only ever produces :class:`InvalidSubmissionError`; any other exception that
escapes grading is a bug in tambench and must propagate, never be swallowed.
"""

from __future__ import annotations


class TambenchError(Exception):
    """Base class of every error tambench raises deliberately."""


class MissingDependencyError(TambenchError, ImportError):
    """An optional package is needed for this feature; the message carries the pip line."""


class ConfigError(TambenchError):
    """A setting or configuration file is missing, malformed or contradictory."""


class InputError(TambenchError):
    """A file or folder the user named does not exist or is not what was expected (a folder
    where a file is needed, a table of an unsupported type)."""


class MalformedInputError(InputError):
    """A JSON or TOML input cannot be read within bounds: too large, not UTF-8 (or UTF-16/32
    with a byte-order mark), nested too deep, an integer too long, a number that is not finite,
    or not valid JSON/TOML. The message names the file (see :mod:`tambench.core.bounded`)."""


# --- schema -------------------------------------------------------------------------------


class SchemaVersionError(TambenchError):
    """A task file declares a schema_version this tambench cannot read (newer than it knows)."""


class TaskSpecError(TambenchError):
    """A task file is not valid JSON or does not validate against the TaskSpec model."""


class SchemaMappingError(TambenchError):
    """Page Markdown could not be mapped into a TaskSpec (model reply invalid or unsupported)."""


class EvidenceError(SchemaMappingError):
    """A mapped field quotes evidence that does not occur in the source pages."""


# --- metrics, leaderboards, ranking --------------------------------------------------------


class UnknownMetricError(TambenchError, KeyError):
    """A metric id is not registered; ``tambench metrics`` lists those that are."""

    def __str__(self) -> str:  # KeyError would otherwise print the message with quotes
        return str(self.args[0]) if self.args else ""


class MetricParameterError(TambenchError, ValueError):
    """A metric was given a parameter it does not take, or an invalid value for one."""


class MetricInputError(TambenchError, ValueError):
    """A metric received arrays that break its own preconditions (shapes, lengths, NaN).

    The grader validates submissions before scoring, so this signals a bug in the caller, not
    a bad submission.
    """


class LeaderboardError(TambenchError):
    """A leaderboard file cannot be read: unknown format, no score column, or no usable rows."""


class InvalidScoreError(TambenchError, ValueError):
    """A score to rank is NaN, infinite, missing or not a number; it is never ranked."""


# --- grading -------------------------------------------------------------------------------


class InvalidSubmissionError(TambenchError):
    """A submission is malformed in a way its author can fix; carries every problem found.

    It becomes ``valid_submission: false`` plus messages in a report. It is the only error a
    bad submission produces.
    """

    def __init__(self, problems: list[str] | str, *, task_id: str | None = None) -> None:
        self.problems: list[str] = [problems] if isinstance(problems, str) else list(problems)
        self.task_id = task_id
        super().__init__(self.render())

    def render(self) -> str:
        """Render the problems as the multi-line message users see."""
        where = f" for task {self.task_id}" if self.task_id else ""
        n = len(self.problems)
        head = f"Submission invalid{where} ({n} problem{'s' if n != 1 else ''}):"
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])


class MissingSubmissionError(InvalidSubmissionError):
    """No submission file exists where one was expected (reported as ``submission_exists: false``)."""


class ScoreRangeError(TambenchError, ValueError):
    """A metric returned a score outside its declared value range: a grader error (a bug in the
    metric, or a hole in validation), never the submission's fault. Such a score is never
    ranked; a batch records the run with this error as its status."""


class GradingTimeout(BaseException):
    """Grading one run took longer than the batch's per-run limit (status ``timeout``).

    Derived from BaseException, like KeyboardInterrupt, so that no handler of ordinary errors
    between the interrupted code and the batch worker can mistake it for a bad submission.
    """


class TaskDataError(TambenchError):
    """Our own task data (answers, spec, prepared files) is missing or inconsistent."""


class ReportVersionError(TambenchError):
    """A report file declares a report_version this tambench cannot read."""


class LLMError(TambenchError):
    """A model endpoint failed: connection, timeout or an HTTP error status."""


class JudgeError(TambenchError):
    """The constraint judge could not obtain or parse a verdict (reported as a failure)."""


class ProtocolError(TambenchError):
    """Input to a sibling-benchmark scoring protocol is malformed."""


# --- splits ---------------------------------------------------------------------------------


class SplitError(TambenchError):
    """A split cannot be produced from the given raw data and split spec."""


class LeakageError(SplitError):
    """The leakage audit found private information reachable from the public split."""


class ChecksumMismatchError(SplitError):
    """Prepared files no longer match the checksums recorded when they were produced."""


class QuarantinedTaskError(TaskDataError):
    """A prepared task failed its leakage audit: it is not graded unless explicitly allowed."""


class UnsafeArchiveError(TambenchError):
    """An archive holds a path traversal, absolute path, link out of the target, or a bomb."""


class UnsafePathError(TambenchError, ValueError):
    """A path or task id would resolve outside its root, or is a symlink or non-regular file."""


# --- data sources, acquisition --------------------------------------------------------------


class SourceError(TambenchError):
    """A raw-data source (local folder, archive, Kaggle) failed after its retries."""


class RulesNotAcceptedError(SourceError):
    """The platform requires the user to accept the competition's rules first (never retried)."""


class FetchError(TambenchError):
    """A page could not be fetched after bounded retries (timeout, 5xx, truncated body)."""


class BlockedPageError(FetchError):
    """A page is a login wall, CAPTCHA or rules gate; recorded as blocked, never retried."""


class OffDomainError(FetchError):
    """A link or redirect leaves the adapter's allow-list of domains, or targets a private host."""


class UnreachableHostError(FetchError, SourceError):
    """A host cannot be reached at all: its name does not resolve or there is no route to it
    (no network?). Another attempt cannot help, so it is never retried."""


class RobotsDisallowedError(FetchError):
    """robots.txt forbids fetching this URL."""


class PageTooLargeError(FetchError):
    """A response exceeded the size cap and was abandoned."""


class FetchTimeoutError(FetchError):
    """A page did not answer within the connect, read or total timeout, after bounded retries."""


class TruncatedPageError(FetchError):
    """A response ended before its declared length (data loss); never parsed as a page."""


class ContentNotFoundError(FetchError):
    """A page loaded but none of its content hooks ever matched (the message names them)."""


class JavaScriptRequiredError(FetchError):
    """A page's content is rendered by JavaScript, which the plain HTTP renderer cannot run."""


class HttpStatusError(FetchError):
    """A page answered with an HTTP error status (429 and 5xx are retried first, 4xx not)."""

    def __init__(self, message: str, *, status: int, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class BrowserNotFoundError(ConfigError):
    """No Chromium binary was found (Playwright's, the system's, or ``TAMBENCH_CHROMIUM``)."""


class AgentError(TambenchError):
    """The browser agent stopped without collecting the pages it was asked for."""


class UnknownPlatformError(TambenchError, KeyError):
    """No platform adapter is registered under this name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# --- catalogue, difficulty ------------------------------------------------------------------


class CatalogueError(TambenchError):
    """A catalogue folder or one of its entries is malformed."""


class TaskNotFoundError(CatalogueError, TaskSpecError):
    """No task matches a reference (path, id or slug); the message suggests the closest ids."""


class AmbiguousTaskError(CatalogueError, TaskSpecError):
    """A bare slug matches tasks on several platforms; the message lists them."""


class ImportLayoutError(CatalogueError):
    """A tree given to an importer does not have the layout that importer reads."""


class SubsetError(TambenchError):
    """A subset cannot be built or a manifest cannot be read."""


class DifficultyError(TambenchError):
    """Difficulty cannot be computed (no usable scores, unknown direction, bad labels file)."""


# --- execution ------------------------------------------------------------------------------


class ExecutorError(TambenchError):
    """An executor backend could not start or lost its workers beyond the retry budget."""


# --- warnings -------------------------------------------------------------------------------


class LeaderboardOrderWarning(UserWarning):
    """A leaderboard's row order contradicts the metric's declared direction."""
