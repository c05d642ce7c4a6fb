"""The LLM mapper: a chat model fills the TaskSpec, quoting its evidence; nothing is taken on
trust. It holds the offline mapper's contract:

* **Pages are data.** They are sent between marker lines that carry a random nonce, and the
  system prompt says that text between the markers is never an instruction. The mapper has
  no tools. The pages it is shown are the visible text both mappers read (HTML comments,
  hidden elements and image alt text removed by :mod:`~tambench.schema.mapping.visible`).
* **Quotes are checked.** A quote must occur in the pages after whitespace normalisation, and
  not only inside a sentence that reads like an instruction to a model. The metric's quote
  must come from the evaluation part of the pages or from a sentence that defines how
  submissions are scored; column names must occur in their quote.
* **Registered ids only, "unknown" allowed.** The model's metric is a registered id with
  parameters the metric takes, or "unknown" with the page's name for it and the reason; an
  unknown metric leaves ``grading.metric`` empty, as the offline mapper does.
* **The offline mapper is the cross-check.** The rules read the same pages first. When both
  give a registered metric (or a submission header) and they disagree, the rules' reading is
  kept and the disagreement is flagged. When the rules read the page's metric as one that no
  registered id computes (or the text does not settle which variant), a registered id from
  the model is refused as a near neighbour, and when the rules found scoring sentences naming
  different metrics, the model's reading is refused too. When the rules find no metric, the
  model's id is checked against the family its own quote names.
* **Rejected fields are dropped, not fatal.** A field whose evidence fails falls back to the
  rules' reading (or stays unfilled); the rejection is listed in ``MappingResult.warnings``
  and ``provenance.notes``. ``strict=True`` raises :class:`~tambench.errors.EvidenceError`.

Any provider works through :mod:`tambench.core.llm` (``"provider:model"`` or a bare
OpenAI-compatible model name). The API key is read from the environment only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tambench.core.bounded import parse_json
from tambench.core.llm import ChatConfig, invoke_structured, make_chat_model
from tambench.core.metrics.base import get_metric
from tambench.errors import (
    EvidenceError,
    LLMError,
    MalformedInputError,
    MetricParameterError,
    SchemaMappingError,
    UnknownMetricError,
)
from tambench.fileio import write_text_atomic
from tambench.schema.mapping.draft import MAPPED_FIELDS, Draft, Filled, MetricGap
from tambench.schema.mapping.llm_prompt import (
    DATA_FIELDS,
    GRADING_FIELDS,
    TEXT_FIELDS,
    UNKNOWN_METRIC,
    MappedTask,
    MetricParam,
    QuotedColumns,
    QuotedMetric,
    build_messages,
    new_nonce,
)
from tambench.schema.mapping.markdown import PageText, normalize_ws, parse_pages, plain
from tambench.schema.mapping.metric_rules import MetricContext, decide
from tambench.schema.mapping.metric_terms import DEFINING_CUE_RE, find_family, fold
from tambench.schema.taskspec import DataLocation

# --- the model call -----------------------------------------------------------------------


def ask_model(messages: list[tuple[str, str]], *, llm: str, base_url: str | None,
              api_key_env: str | None = None, method: str = "function_calling",
              timeout_s: float = 180.0) -> MappedTask:
    """Send the messages and parse the reply as a MappedTask.

    Raises:
        SchemaMappingError: the endpoint failed or the reply is not a valid MappedTask.
        ConfigError: no API key in the environment for a remote endpoint.
    """
    chat = make_chat_model(ChatConfig(model=llm, base_url=base_url, api_key_env=api_key_env,
                                      timeout_s=timeout_s))
    try:
        parsed, error = invoke_structured(chat, messages, MappedTask, method=method)
    except LLMError as exc:
        raise SchemaMappingError(str(exc)) from None
    if parsed is None:
        raise SchemaMappingError(f"the model's reply is not a valid MappedTask: {error}")
    return parsed


# --- checking -----------------------------------------------------------------------------


class _Checker:
    def __init__(self, pt: PageText) -> None:
        self.pt = pt
        self.rejected: list[str] = []

    def quote_ok(self, path: str, evidence: str, *, evaluation: bool = False) -> bool:
        if self.pt.only_in_injection(evidence):
            why = "its quote occurs only in an instruction-like sentence of the pages"
        elif not self.pt.contains(evidence):
            why = "its quote is not in the pages"
        elif (evaluation and self.pt.has_evaluation and not self.pt.in_evaluation(evidence)
              and not DEFINING_CUE_RE.search(plain(evidence))):
            why = ("its quote is neither in the evaluation section nor a sentence defining "
                   "how submissions are scored")
        else:
            return True
        self.reject(path, why, evidence)
        return False

    def reject(self, path: str, why: str, evidence: str = "") -> None:
        quote = f" (quote {normalize_ws(evidence)[:120]!r})" if evidence else ""
        self.rejected.append(f"model's {path} rejected: {why}{quote}")


def _columns_ok(chk: _Checker, path: str, q: QuotedColumns) -> bool:
    if not q.value or not chk.quote_ok(path, q.evidence):
        return False
    quote = normalize_ws(q.evidence)
    missing = [c for c in q.value if c not in quote]
    if missing:
        chk.reject(path, f"column(s) {missing} do not occur in its quote", q.evidence)
        return False
    return True


def _parse_params(params: list[MetricParam]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params:
        try:
            out[p.name] = parse_json(p.value, f"metric parameter {p.name}")
        except MalformedInputError:  # not JSON, or beyond the loader's bounds: kept as text
            out[p.name] = p.value
    return out


def _registered_metric(chk: _Checker, q: QuotedMetric) -> dict[str, Any] | None:
    try:
        metric = get_metric(q.metric_id)
        params = _parse_params(q.params)
        metric.resolve_params(params)
    except (UnknownMetricError, MetricParameterError) as exc:
        chk.reject("grading.metric", str(exc), q.evidence)
        return None
    return {"id": metric.id, "params": params}


def _quote_family_refuses(q: QuotedMetric, metric: dict[str, Any], pt: PageText) -> str | None:
    """Why the family the model's own quote names does not give the model's id ("" when it
    does; None when the quote names no family the rules know, so nothing can be checked)."""
    text = fold(plain(q.evidence))
    found = find_family(text)
    if found is None:
        return None
    family, m = found
    window = fold(plain(" ".join(s.title + "\n" + s.text for s in pt.sections
                                 if s.is_evaluation)))
    d = decide(family, MetricContext(sentence=text, near=text, window=window), m)
    if d.metric_id == metric["id"]:
        return ""
    return d.reason or f"its quote names a {family} metric that {d.metric_id} computes"


# --- merging ------------------------------------------------------------------------------


class _Merge:
    """The model's checked fields, merged into the rules' draft step by step."""

    def __init__(self, mapped: MappedTask, rules: Draft, pt: PageText, model: str) -> None:
        self.mapped, self.rules, self.pt = mapped, rules, pt
        self.src = f"model:{model}"
        self.out = Draft(notes=list(rules.notes), warnings=list(rules.warnings),
                         metric_gap=rules.metric_gap)
        self.chk = _Checker(pt)
        self.accepted: dict[str, Filled] = {}

    def take(self, path: str, value: Any, evidence: str) -> None:
        self.accepted[path] = Filled(value, evidence, self.src)

    def text_fields(self) -> None:
        m = self.mapped
        for attr, path in TEXT_FIELDS.items():
            q = getattr(m, attr)
            if q is not None and q.value.strip() and self.chk.quote_ok(path, q.evidence):
                self.take(path, q.value, q.evidence)
        if m.modality is not None and self.chk.quote_ok("modality", m.modality.evidence):
            self.take("modality", m.modality.value, m.modality.evidence)
        for attr, path in DATA_FIELDS.items():
            d = getattr(m, attr)
            if d is not None and self.chk.quote_ok(path, d.evidence):
                self.take(path, DataLocation(data_location=d.data_location,
                                             data_description=d.data_description), d.evidence)
        items = [q for q in m.special_instructions
                 if q.value.strip() and self.chk.quote_ok("special_instructions", q.evidence)]
        if items:
            text = "\n".join(f"{i}. {normalize_ws(q.value)}" for i, q in enumerate(items, 1))
            self.take("special_instructions", text, items[0].evidence)

    def metric(self) -> None:
        q = self.mapped.metric
        if q is None or not self.chk.quote_ok("grading.metric", q.evidence, evaluation=True):
            return
        if q.metric_id == UNKNOWN_METRIC:
            self._unknown(q)
            return
        metric = _registered_metric(self.chk, q)
        if metric is None:
            return
        why = self._cross_check(q, metric)
        if why:
            self.out.warnings.append(f"metric disagreement: the model read {metric} from "
                                     f"{normalize_ws(q.evidence)[:120]!r}; {why}")
            return
        self.take("grading.metric", metric, q.evidence)
        self.take("metric.metric_name", q.metric_name, q.evidence)
        self.out.metric_gap = None

    def _cross_check(self, q: QuotedMetric, metric: dict[str, Any]) -> str:
        """Why the rules refuse the model's registered metric ("" when they accept it)."""
        rules_metric = self.rules.fields.get("grading.metric")
        if rules_metric is not None:
            if rules_metric.value == metric:
                return ""
            return (f"the rules read {rules_metric.value} from "
                    f"{normalize_ws(rules_metric.evidence)[:120]!r}; kept the rules' reading")
        gap = self.rules.metric_gap
        if gap is not None and gap.conflict:
            return (f"the rules found scoring sentences naming different metrics ({gap.reason}); "
                    "no reading is chosen between them")
        if gap is not None and gap.family:
            return (f"the rules read the page's metric {gap.name!r} as one no registered id "
                    f"computes ({gap.reason}); a near id is refused")
        refused = _quote_family_refuses(q, metric, self.pt)
        if refused is None:
            self.out.warnings.append(
                f"metric {metric['id']} from the model is not cross-checked: the rules "
                f"recognise no metric in its quote {normalize_ws(q.evidence)[:120]!r}")
            self.out.notes.append(f"metric {metric['id']}: read by the model only, not "
                                  "cross-checked by the rules")
            return ""
        return f"refused: {refused}" if refused else ""

    def _unknown(self, q: QuotedMetric) -> None:
        rules_metric = self.rules.fields.get("grading.metric")
        if rules_metric is not None:
            self.out.warnings.append(
                f"metric disagreement: the model found no registered id for "
                f"{q.metric_name!r}, the rules read {rules_metric.value} from "
                f"{normalize_ws(rules_metric.evidence)[:120]!r}; kept the rules' reading")
            return
        self.take("metric.metric_name", q.metric_name, q.evidence)
        if self.out.metric_gap is None:
            reason = q.reason.strip() or "the model found no registered id computing it"
            self.out.metric_gap = MetricGap(f"the model's reading: {reason}", q.metric_name)

    def header(self) -> None:
        m, chk = self.mapped, self.chk
        header_q = m.submission_header
        if header_q is None or not _columns_ok(chk, "grading.submission_header", header_q):
            return
        header = list(header_q.value)
        rules_header = self.rules.fields.get("grading.submission_header")
        if rules_header is not None and rules_header.value != header:
            self.out.warnings.append(
                f"submission header disagreement: the model read {header}, the rules read "
                f"{rules_header.value}; kept the rules' reading")
            return
        ids, tgts = m.id_columns, m.target_columns
        if (ids is not None and tgts is not None
                and _columns_ok(chk, "grading.id_columns", ids)
                and _columns_ok(chk, "grading.target_columns", tgts)
                and set(ids.value) <= set(header) and set(tgts.value) <= set(header)
                and not set(ids.value) & set(tgts.value)):
            self.take("grading.submission_header", header, header_q.evidence)
            self.take("grading.id_columns", list(ids.value), ids.evidence)
            self.take("grading.target_columns", list(tgts.value), tgts.evidence)
        elif rules_header is None:
            chk.reject("grading.id_columns",
                       "id and target columns are missing, overlap or are not in the header")

    def finish(self) -> Draft:
        """Rules fill what the model did not support, field by field; the grading unit
        (header, ids, targets) moves together."""
        model_header = "grading.submission_header" in self.accepted
        model_metric_name = "metric.metric_name" in self.accepted
        for path, filled in self.rules.fields.items():
            if path in self.accepted or (path in GRADING_FIELDS[1:] and model_header):
                continue
            if path == "metric.metric_name" and model_metric_name:
                continue
            self.accepted[path] = filled
        out = self.out
        for path in MAPPED_FIELDS:
            if path in self.accepted:
                out.fields[path] = self.accepted[path]
        out.warnings.extend(self.chk.rejected)
        out.notes.extend(self.chk.rejected)
        from_rules = [p for p, f in out.fields.items() if f.source == "rules"]
        if from_rules:
            out.notes.append(f"filled by the rule-based mapper: {', '.join(from_rules)}")
        return out


def merge_model_reply(mapped: MappedTask, rules: Draft, pt: PageText, *, model: str,
                      strict: bool = False) -> Draft:
    """Combine the model's checked fields with the rule-based draft (see module docstring)."""
    merge = _Merge(mapped, rules, pt, model)
    merge.text_fields()
    merge.metric()
    merge.header()
    if strict and merge.chk.rejected:
        raise EvidenceError("; ".join(merge.chk.rejected))
    return merge.finish()


def map_llm(pages: Mapping[str, str], *, task_id: str, llm: str, base_url: str | None,
            api_key_env: str | None, rules: Draft, strict: bool = False,
            method: str = "function_calling", record_reply: Path | None = None) -> Draft:
    """Ask the model, check its evidence, and merge with the rule-based draft.

    ``record_reply``: also write the parsed reply there (for offline replay).
    """
    sections = parse_pages(pages)
    messages = build_messages(pages, task_id=task_id, nonce=new_nonce())
    mapped = ask_model(messages, llm=llm, base_url=base_url, api_key_env=api_key_env,
                       method=method)
    if record_reply is not None:
        write_text_atomic(record_reply, mapped.model_dump_json(indent=2) + "\n")
    return merge_model_reply(mapped, rules, PageText(sections), model=llm, strict=strict)
