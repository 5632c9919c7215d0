"""The JSON form of a proposal (agent/understanding/proposal_json.py, issue 16).

Three things are proved here, without a model:

* every reading the rule proposer makes of the labelled corpus survives the JSON form
  (``proposal_from_json(proposal_to_json(p))``), and what does not survive is named;
* :data:`SCHEMA` is a JSON Schema in the subset strict structured-output modes accept, and the
  JSON form of every such reading validates against it (a small checker below: ``jsonschema``
  is not a dependency);
* a reply that is not exactly the form is refused with :class:`ProposalJSONError`, which says
  where.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from agent.core import names
from agent.core.speech import Utterance
from agent.understanding.nlu.proposer import RuleProposer
from agent.understanding.proposal_json import (
    FIELDS,
    MAX_TEXT,
    SCHEMA,
    ProposalJSONError,
    Reading,
    parse_reply,
    proposal_from_json,
    proposal_to_json,
    reading_from_json,
)
from agent.understanding.proposals import (
    CorrectionKind,
    Intent,
    Proposal,
    SlotRole,
    SlotValue,
)
from ui.nlu_eval import DEFAULT_CLOCK, corpus_files, default_corpus_dir, frame_of, load_corpus


# -- the rule proposer's readings of the labelled corpus ---------------------------------------
@dataclass(frozen=True)
class Read:
    source: str  # "file.yaml:id"
    text: str
    proposal: Proposal


@pytest.fixture(scope="module")
def corpus_readings() -> list[Read]:
    """The rule proposer's reading of every labelled turn (about 1000; half a second)."""
    proposer = RuleProposer(warm_at=datetime.fromisoformat(DEFAULT_CLOCK))
    turns = load_corpus(corpus_files(default_corpus_dir()))
    assert len(turns) > 500
    return [Read(t.source, t.text,
                 proposer.propose(Utterance(t.text, t.confidence), t.context)) for t in turns]


def _confusable(p: Proposal) -> bool:
    """An id heard that is not on the account: ``value`` null with ONE candidate."""
    return any(s.value is None and len(s.candidates) < 2 for s in p.slots)


def _kept(p: Proposal) -> tuple[object, ...]:
    """What the JSON form keeps of a proposal: everything it carries, roles as in the form."""
    slots = tuple((s.field, s.value, s.candidates,
                   s.role if s.role in (SlotRole.NEW, SlotRole.TO) else SlotRole.NEW, s.text)
                  for s in p.slots)
    return (p.intent, slots, p.correction, p.withdrawn, p.cleared, p.referent, p.authority,
            p.go_ahead)


def test_the_corpus_readings_cover_every_part_of_the_form(corpus_readings):
    """The round trip below is worth something only if the corpus exercises each part."""
    props = [r.proposal for r in corpus_readings]
    slots = [s for p in props for s in p.slots]
    assert {s.role for s in slots} == {SlotRole.NEW, SlotRole.TO}
    assert any(s.value is None and len(s.candidates) >= 2 for s in slots)
    assert {p.intent for p in props} == set(Intent)
    assert len({p.correction for p in props}) >= 6
    for part in ("withdrawn", "cleared", "referent", "authority", "go_ahead"):
        assert any(getattr(p, part) for p in props), part


def test_every_corpus_reading_survives_the_json_form(corpus_readings):
    lost = []
    for read in corpus_readings:
        p = read.proposal
        data = json.loads(json.dumps(proposal_to_json(p)))  # through text, as a model sends it
        back = proposal_from_json(data)
        if _kept(back) != _kept(p) or frame_of(back) != frame_of(p):
            lost.append(f"{read.source} {read.text!r}: {_kept(p)} -> {_kept(back)}")
    assert not lost, "\n".join(lost[:10])


def test_every_corpus_reading_parses_back_from_its_reply_text(corpus_readings):
    for read in corpus_readings[::25]:
        reply = json.dumps(proposal_to_json(read.proposal), indent=2)
        assert _kept(parse_reply(reply).proposal) == _kept(read.proposal), read.source


def test_a_confusable_id_with_one_candidate_round_trips(corpus_readings):
    """docs/understanding.md writes an id heard but not on the account ("V-200", P-200
    owned) as ``value: null, candidates: ["P-200"]``: the JSON form carries that for an asset
    (so a model can ask "Did you mean P-200?"); any other field needs two candidates."""
    confusable = [r for r in corpus_readings if _confusable(r.proposal)]
    assert confusable
    for read in confusable:
        assert _kept(proposal_from_json(proposal_to_json(read.proposal))) == \
            _kept(read.proposal), read.source
    lone = good()
    lone["slots"] = [{"field": "visit_date", "value": None, "candidates": ["2026-12-03"],
                      "role": "new", "text": "Thursday"}]
    with pytest.raises(ProposalJSONError) as caught:
        proposal_from_json(lone)
    assert caught.value.where == "slots[0].value"


# -- what the form does not carry, by design ----------------------------------------------------
def test_from_and_negated_roles_are_never_slots_of_the_form():
    """The form writes only ``new`` and ``to`` slots; ``from`` and ``negated`` values are
    ``withdrawn`` pairs (Proposal.frame derives their role). A slot given another role is
    written as ``new``."""
    p = Proposal(Intent.CORRECTION, slots=(
        SlotValue(names.VISIT_DATE, "2026-12-04", "friday", role=SlotRole.TO),
        SlotValue(names.VISIT_WINDOW, "morning", "morning", role=SlotRole.FROM),
        SlotValue(names.ASSET, "P-100", "p-100", role=SlotRole.NEGATED)),
        correction=CorrectionKind.REPLACE, withdrawn=((names.VISIT_DATE, "2026-12-03"),))
    data = proposal_to_json(p)
    assert [s["role"] for s in data["slots"]] == ["to", "new", "new"]
    assert SCHEMA["properties"]["slots"]["items"]["properties"]["role"]["enum"] == ["new", "to"]
    back = proposal_from_json(data)
    assert [s.role for s in back.slots] == [SlotRole.TO, SlotRole.NEW, SlotRole.NEW]
    assert [(s.field, s.value, s.role) for s in back.frame()][-1] == (
        names.VISIT_DATE, "2026-12-03", SlotRole.FROM)  # the withdrawn value is the from
    alone = proposal_from_json(proposal_to_json(Proposal(
        Intent.CORRECTION, correction=CorrectionKind.NEGATION,
        withdrawn=((names.VISIT_DATE, "2026-12-03"),))))
    assert [s.role for s in alone.frame()] == [SlotRole.NEGATED]


def test_what_the_form_does_not_carry_comes_back_as_the_defaults():
    """``ambiguous_fields``, confidences, ``source`` and ``rejected`` are not in the form; the
    reading comes back with ``reason`` "model" (ModelProposer sets the confidence and the
    source of a reading it uses)."""
    p = Proposal(Intent.CORRECTION, slots=(
        SlotValue(names.VISIT_DATE, "2026-12-04", "friday", confidence=0.4),),
        correction=CorrectionKind.AMBIGUOUS_TARGET,
        ambiguous_fields=(names.VISIT_DATE, "delivery_date"), confidence=0.3,
        reason="rules", source="rules", rejected=("timeout: x",))
    data = proposal_to_json(p)
    assert set(data) == set(SCHEMA["required"])
    back = proposal_from_json(data)
    assert back.ambiguous_fields == ()
    assert back.confidence == 1.0 and back.slots[0].confidence == 1.0
    assert back.rejected == () and back.reason == "model"
    assert back.correction is CorrectionKind.AMBIGUOUS_TARGET


def test_withdrawn_quotes_survive_the_reading_and_default_to_empty():
    p = Proposal(Intent.CORRECTION, correction=CorrectionKind.NEGATION,
                 withdrawn=((names.VISIT_DATE, "2026-12-03"), (names.VISIT_WINDOW, "morning")))
    data = proposal_to_json(p, ("not thursday",))
    assert [w["text"] for w in data["withdrawn"]] == ["not thursday", ""]
    reading = reading_from_json(data)
    assert reading == Reading(reading.proposal, ("not thursday", ""))
    assert reading.proposal.withdrawn == p.withdrawn


def test_values_are_read_trimmed():
    data = proposal_to_json(Proposal(Intent.BOOK, slots=(
        SlotValue(names.ASSET, " P-100 ", "p-100"),
        SlotValue(names.VISIT_DATE, "2026-12-04\n", "friday"))))
    back = proposal_from_json(data)
    assert [s.value for s in back.slots] == ["P-100", "2026-12-04"]


# -- the schema -----------------------------------------------------------------------------
_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
_KEYWORDS = {"$schema", "$id", "title", "description", "type", "enum", "required",
             "additionalProperties", "properties", "items", "maxItems", "maxLength"}


def schema_errors(instance: object, schema: dict[str, Any], where: str = "$") -> list[str]:
    """What ``instance`` breaks of ``schema`` (the subset SCHEMA uses), as "path: why"."""
    unknown = set(schema) - _KEYWORDS
    if unknown:
        return [f"{where}: the checker does not know {sorted(unknown)}"]
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[k](instance) for k in kinds):
            return [f"{where}: {instance!r} is not of type {kinds}"]
    errors = []
    if "enum" in schema and instance not in schema["enum"]:
        errors.append(f"{where}: {instance!r} not in enum")
    if isinstance(instance, str) and len(instance) > schema.get("maxLength", len(instance)):
        errors.append(f"{where}: longer than {schema['maxLength']}")
    if isinstance(instance, list):
        if len(instance) > schema.get("maxItems", len(instance)):
            errors.append(f"{where}: more than {schema['maxItems']} items")
        for i, item in enumerate(instance):
            errors += schema_errors(item, schema.get("items", {}), f"{where}[{i}]")
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        errors += [f"{where}: missing {k}" for k in schema.get("required", ())
                   if k not in instance]
        if schema.get("additionalProperties") is False:
            errors += [f"{where}: unknown {k}" for k in instance if k not in properties]
        for key, value in instance.items():
            if key in properties:
                errors += schema_errors(value, properties[key], f"{where}.{key}")
    return errors


def subschemas(schema: dict[str, Any], where: str = "$") -> Iterator[tuple[str, dict]]:
    yield where, schema
    for key, sub in schema.get("properties", {}).items():
        yield from subschemas(sub, f"{where}.{key}")
    if "items" in schema:
        yield from subschemas(schema["items"], f"{where}[]")


def test_the_schema_is_a_json_schema_in_the_checked_subset():
    assert json.loads(json.dumps(SCHEMA)) == SCHEMA  # plain JSON, nothing Python-only
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for key in ("$id", "title", "description"):
        assert isinstance(SCHEMA[key], str) and SCHEMA[key]
    for where, sub in subschemas(SCHEMA):
        assert set(sub) <= _KEYWORDS, where
        kinds = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
        assert kinds and set(kinds) <= set(_TYPES) and len(set(kinds)) == len(kinds), where
        if "enum" in sub:
            assert sub["enum"] and len(set(sub["enum"])) == len(sub["enum"]), where
            assert all(any(_TYPES[k](v) for k in kinds) for v in sub["enum"]), where
        for limit in ("maxItems", "maxLength"):
            if limit in sub:
                assert isinstance(sub[limit], int) and sub[limit] > 0, where
        if "maxLength" in sub:
            assert "string" in kinds, where
        if "maxItems" in sub or "items" in sub:
            assert kinds == ["array"] and "items" in sub, where
        if "properties" in sub:
            assert kinds == ["object"], where
        assert isinstance(sub.get("description", ""), str), where


def test_every_object_is_closed_and_every_property_required():
    """Strict structured output (the model servers' "strict" JSON Schema mode) needs both."""
    objects = [(w, s) for w, s in subschemas(SCHEMA) if s["type"] == "object"]
    assert [w for w, _ in objects] == ["$", "$.slots[]", "$.withdrawn[]"]
    for where, sub in objects:
        assert sub["additionalProperties"] is False, where
        assert sub["required"] == list(sub["properties"]), where


def test_the_schema_names_exactly_the_intents_kinds_and_fields():
    props = SCHEMA["properties"]
    assert props["intent"]["enum"] == [i.value for i in Intent]
    assert props["correction"]["enum"] == [c.value for c in CorrectionKind]
    field_enums = [s["enum"] for w, s in subschemas(SCHEMA) if w.endswith(("field", "cleared[]"))]
    assert len(field_enums) == 3 and all(e == list(FIELDS) for e in field_enums)
    declared = {v for k, v in vars(names).items() if k.isupper() and isinstance(v, str)}
    assert set(FIELDS) <= declared
    assert not set(FIELDS) & {"tenant", "account", "roles", "subject"}
    strings = [s for _, s in subschemas(SCHEMA) if "string" in str(s["type"]) and "enum" not in s]
    assert strings and all(s["maxLength"] == MAX_TEXT for s in strings)


def test_the_json_form_of_every_corpus_reading_validates(corpus_readings):
    for read in corpus_readings:
        errors = schema_errors(json.loads(json.dumps(proposal_to_json(read.proposal))), SCHEMA)
        assert not errors, (read.source, errors)


@pytest.mark.parametrize("bad", [
    "not an object", {"intent": "book"}, None])
def test_the_checker_refuses_what_the_schema_refuses(bad):
    assert schema_errors(bad, SCHEMA)


# -- strict parsing -------------------------------------------------------------------------
def good() -> dict[str, Any]:
    """A reply a model might give for "P-100 on Thursday afternoon, two units"."""
    return {
        "intent": "book",
        "slots": [
            {"field": "asset", "value": "P-100", "candidates": [], "role": "new",
             "text": "P-100"},
            {"field": "visit_date", "value": "2026-12-03", "candidates": [], "role": "new",
             "text": "Thursday"},
            {"field": "visit_window", "value": "afternoon", "candidates": [], "role": "new",
             "text": "afternoon"},
            {"field": "visit_time", "value": None, "candidates": ["07:00", "19:00"],
             "role": "new", "text": "at 7"},
            {"field": "units", "value": "2", "candidates": [], "role": "new", "text": "two"},
        ],
        "correction": "none",
        "withdrawn": [{"field": "visit_date", "value": "2026-12-02", "text": "not Wednesday"}],
        "cleared": [],
        "referent": None,
        "authority": None,
        "go_ahead": False,
    }


def test_the_good_reply_parses_in_full():
    reading = parse_reply(json.dumps(good()))
    p = reading.proposal
    assert (p.intent, p.correction, p.go_ahead) == (Intent.BOOK, CorrectionKind.NONE, False)
    assert [(s.field, s.value, s.candidates, s.text) for s in p.slots][3] == (
        "visit_time", None, ("07:00", "19:00"), "at 7")
    assert reading.withdrawn_text == ("not Wednesday",)
    assert proposal_from_json(good()) == p
    assert not schema_errors(good(), SCHEMA)


def _with(change: Callable[[dict[str, Any]], object]) -> str:
    data = good()
    change(data)
    return json.dumps(data)


def _slot(index: int, **values: object) -> Callable[[dict[str, Any]], object]:
    return lambda d: d["slots"][index].update(values)


def _top(**values: object) -> Callable[[dict[str, Any]], object]:
    return lambda d: d.update(values)


# (id, the reply text, where the error is, whether the schema alone refuses it too)
BAD: list[tuple[str, str, str, bool]] = [
    ("empty", "", "", True),
    ("blank", "  \n ", "", True),
    ("prose", "Sure! The caller wants P-100 on Thursday.", "", True),
    ("fenced", "```json\n" + json.dumps(good()) + "\n```", "", True),
    ("truncated", json.dumps(good())[:-7], "", True),
    ("two objects", json.dumps(good()) + json.dumps(good()), "", True),
    ("a list", json.dumps([good()]), "", True),
    ("a string", json.dumps("book"), "", True),
    ("huge number", '{"intent": ' + "1" * 5000 + "}", "", True),
    ("deep nesting", "[" * 100_000 + "]" * 100_000, "", True),
    ("missing key", _with(lambda d: d.pop("go_ahead")), "", True),
    ("unknown key", _with(_top(confidence=0.9)), "", True),
    ("tenant key", _with(_top(tenant="globex")), "", True),
    ("bad intent", _with(_top(intent="book_visit")), "intent", True),
    ("intent case", _with(_top(intent="BOOK")), "intent", True),
    ("bad correction", _with(_top(correction="fix")), "correction", True),
    ("go_ahead string", _with(_top(go_ahead="true")), "go_ahead", True),
    ("go_ahead number", _with(_top(go_ahead=1)), "go_ahead", True),
    ("go_ahead null", _with(_top(go_ahead=None)), "go_ahead", True),
    ("slots not a list", _with(_top(slots={})), "slots", True),
    ("slot not an object", _with(_top(slots=["P-100"])), "slots[0]", True),
    ("too many slots", _with(lambda d: d.update(slots=d["slots"] * 3)), "slots", True),
    ("slot missing role", _with(lambda d: d["slots"][0].pop("role")), "slots[0]", True),
    ("slot unknown key", _with(_slot(0, confidence=1)), "slots[0]", True),
    ("field unknown", _with(_slot(0, field="favourite_colour")), "slots[0].field", True),
    ("field tenant", _with(_slot(0, field="tenant")), "slots[0].field", True),
    ("role from", _with(_slot(0, role="from")), "slots[0].role", True),
    ("value a number", _with(_slot(4, value=2)), "slots[4].value", True),
    ("date not real", _with(_slot(1, value="2026-02-30")), "slots[1].value", False),
    ("date not ISO", _with(_slot(1, value="03/12/2026")), "slots[1].value", False),
    ("date compact", _with(_slot(1, value="20261203")), "slots[1].value", False),
    ("date as a week", _with(_slot(1, value="2026-W49-4")), "slots[1].value", False),
    ("date and time", _with(_slot(1, value="2026-12-03T09:00")), "slots[1].value", False),
    ("date in words", _with(_slot(1, value="Thursday")), "slots[1].value", False),
    ("window evening", _with(_slot(2, value="evening")), "slots[2].value", False),
    ("time 25:00", _with(_slot(3, value="25:00", candidates=[])), "slots[3].value", False),
    ("time 2pm", _with(_slot(3, value="2pm", candidates=[])), "slots[3].value", False),
    ("time not digits", _with(_slot(3, value="1\u0663:00", candidates=[])), "slots[3].value",
     False),
    ("candidate bad", _with(_slot(3, candidates=["07:00", "7 pm"])), "slots[3].candidates[1]",
     False),
    ("candidates too many", _with(_slot(3, candidates=["07:00"] * 7)), "slots[3].candidates",
     True),
    ("units 0", _with(_slot(4, value="0")), "slots[4].value", False),
    ("units two", _with(_slot(4, value="two")), "slots[4].value", False),
    ("units 1000", _with(_slot(4, value="1000")), "slots[4].value", False),
    ("units superscript", _with(_slot(4, value="\u00b2")), "slots[4].value", False),
    ("units arabic digit", _with(_slot(4, value="\u0663")), "slots[4].value", False),
    ("units negative", _with(_slot(4, value="-2")), "slots[4].value", False),
    ("value empty", _with(_slot(0, value="  ")), "slots[0].value", False),
    ("null, no candidates", _with(_slot(0, value=None)), "slots[0].value", False),
    ("null, one candidate", _with(_slot(1, value=None, candidates=["2026-12-03"])),
     "slots[1].value", False),
    ("over-long text", _with(_slot(0, text="x" * (MAX_TEXT + 1))), "slots[0].text", True),
    ("over-long value", _with(_slot(0, value="P" * (MAX_TEXT + 1))), "slots[0].value", True),
    ("text null", _with(_slot(0, text=None)), "slots[0].text", True),
    ("withdrawn pair", _with(_top(withdrawn=[["visit_date", "2026-12-02"]])), "withdrawn[0]",
     True),
    ("withdrawn no text", _with(lambda d: d["withdrawn"][0].pop("text")), "withdrawn[0]", True),
    ("withdrawn null", _with(lambda d: d["withdrawn"][0].update(value=None)),
     "withdrawn[0].value", True),
    ("withdrawn date", _with(lambda d: d["withdrawn"][0].update(value="Wednesday")),
     "withdrawn[0].value", False),
    ("cleared unknown", _with(_top(cleared=["colour"])), "cleared[0]", True),
    ("referent number", _with(_top(referent=7)), "referent", True),
    ("referent over-long", _with(_top(referent="P" * (MAX_TEXT + 1))), "referent", True),
    ("authority list", _with(_top(authority=["globex"])), "authority", True),
    ("opened maybe", _with(_slot(0, field="opened", value="maybe")), "slots[0].value", False),
    ("language word", _with(_slot(0, field="language", value="german")), "slots[0].value",
     False),
]


@pytest.mark.parametrize(("text", "where"), [(t, w) for _, t, w, _ in BAD],
                         ids=[i for i, *_ in BAD])
def test_a_bad_reply_is_refused_saying_where(text, where):
    with pytest.raises(ProposalJSONError) as caught:
        parse_reply(text)
    assert caught.value.where == where
    assert caught.value.problem and str(caught.value).startswith(where)


@pytest.mark.parametrize(("text", "by_schema"), [(t, s) for _, t, _, s in BAD],
                         ids=[i for i, *_ in BAD])
def test_what_the_schema_refuses_and_what_only_the_parser_does(text, by_schema):
    """What the schema alone refuses, and what only the parser knows (a real ISO date, a
    window, an hour, a whole number): the schema is what a model server can enforce."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        assert by_schema
        return
    assert bool(schema_errors(data, SCHEMA)) == by_schema


def test_a_bad_reply_is_a_value_error_for_callers_that_catch_those():
    with pytest.raises(ValueError, match="intent"):
        proposal_from_json(json.loads(_with(_top(intent="sing"))))
