"""A stage-1 development set built from BFCL's non-live categories only.

Benchmark-side code (`benchmarks/router_bfcl.py` fits and scores the embedding router's
calibration on it); it is not part of the installed package.

The non-live requests are short, English and single-turn; live traffic is chattier,
multi-turn, partly not English, and often in the right domain without what a tool needs.
To fit a router that transfers, the non-live cases are kept as they are and varied:

- `chatty`: a call request wrapped in pleasantries or a story (still "call");
- `chatty_smalltalk`: a story followed by small talk ("no call");
- `smalltalk`: greetings, thanks and chit-chat, in English, Korean, Chinese and
  Vietnamese, offered some toolbox ("no call");
- `missing_args`: a call request with the values its ground truth needs removed
  ("no call": the right domain, but nothing to call with);
- `vague`: a request paraphrasing a tool's description without any value ("no call");
- `foreign_tools`: a request offered another case's unrelated tools ("no call");
- `after_result`: the request, the call and its result ("no call": answer from the result);
- `thanks_after`: the same, then the user says thanks ("no call");
- `follow_up`: the same, then a new request for another tool ("call");
- `system`: a call or no-call case behind a system prompt (label unchanged);
- `lowercase`: a call request typed casually, all lower case and without the final full
  stop (still "call": the values are there, only not capitalised);
- `non_english`: a call request of which only what an English-only model can still read
  is kept (numbers, quoted text, names, identifiers) inside a Korean, Chinese or
  Vietnamese frame (still "call");
- `wrapper_tools`: a call request whose toolbox also offers generic wrapper tools (an
  HTTP request, a web search, running code) (still "call");
- `chat_history`: a call request after a few turns of small talk (still "call").

Nothing here reads a live category.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolcall_sdk.bfcl import NON_LIVE_CATEGORIES, BfclCase, load_category

__all__ = ["CLOSERS", "FOLDS", "PREAMBLES", "RoutingExample", "fold_of", "routing_dev_set"]


# The out-of-fold folds every calibration choice is made on (benchmarks/router_bfcl.py) and
# that benchmarks/router_hybrid.py scores the same examples with: grouped by base case, so an
# example and its variants always share a fold.
FOLDS = 5


def fold_of(group: str) -> int:
    """The fold of a development example's group (its base case)."""
    return int(hashlib.sha1(group.encode("utf-8")).hexdigest(), 16) % FOLDS


@dataclass(frozen=True, slots=True)
class RoutingExample:
    """One labelled stage-1 example.

    Attributes:
        id: Unique id (`<base case id>/<kind>`).
        group: The base case it derives from (keep a group in one fold).
        kind: `"base"` or the variant kind.
        messages: The conversation.
        tools: OpenAI tool dicts.
        should_call: The label.
    """

    id: str
    group: str
    kind: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    should_call: bool

    def as_case(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
        """The `(messages, tools, should_call)` triple `EmbeddingRouter.fit` takes."""
        return self.messages, self.tools, self.should_call


_OPENERS = (
    "Hi there! ",
    "Hey, hope you're doing well. ",
    "Good morning. I have a question. ",
    "So I was thinking about something today. ",
    "Hello again, thanks for the help earlier. ",
    "Quick one: ",
    "My boss asked me this and I have no idea. ",
    "",
)
# Live requests often tell a story before asking; the ask is one sentence among several.
PREAMBLES = (
    "I'm working on a small project for my team and we ran into something. ",
    "My sister and I were arguing about this at dinner last night, so I want to settle it. "
    "She thinks she's right, as always. ",
    "Context: I am a student and my homework is due tomorrow morning. I've been stuck for an "
    "hour. ",
    "We are migrating our internal tools this week and I'm double-checking a few things. ",
    "I run a tiny online shop and I'm trying to automate the boring parts. ",
    "Sorry for the long message, it's been a chaotic day. Anyway. ",
    "Following up on what we discussed earlier today. ",
    "I have a meeting in ten minutes and need this quickly. ",
)
CLOSERS = (
    " Thanks a lot!",
    " Appreciate it.",
    " Let me know, thank you.",
    " Cheers.",
    " Sorry if this is a dumb question.",
    "",
)
# Deliberately not the router's own small-talk prototypes, so fitting cannot memorise them.
_SMALLTALK = (
    "Hey! How's it going?",
    "Thank you, that was really helpful.",
    "Great, thanks. That's everything for today.",
    "Good evening, assistant.",
    "Can you tell me something funny?",
    "What's your name?",
    "Are you a robot or a person?",
    "I had a rough day at work.",
    "lol that's hilarious",
    "Okay cool.",
    "Nice to meet you!",
    "Do you like music?",
    "What do you think about philosophy?",
    "Write me a short poem about autumn.",
    "Explain what an API is in simple words.",
    "Why is the sky blue?",
    "Summarize our conversation so far.",
    "Hmm, let me think about it.",
    "No, that's wrong. Try again in a different way.",
    "I don't need anything right now.",
    "안녕하세요, 반갑습니다!",
    "고마워요, 도움이 많이 됐어요.",
    "오늘 기분이 어때요?",
    "你好，很高兴认识你。",  # noqa: RUF001 (Chinese punctuation)
    "谢谢你的帮助！",  # noqa: RUF001 (Chinese punctuation)
    "你是谁？",  # noqa: RUF001 (Chinese punctuation)
    "Xin chào, bạn khỏe không?",
    "Cảm ơn bạn rất nhiều.",
    "Bạn tên là gì?",
)
_MULTILINGUAL_WRAPS = (
    "안녕하세요. {q} 부탁드립니다.",
    "你好，{q} 谢谢。",  # noqa: RUF001 (Chinese punctuation)
    "Xin chào, {q} Cảm ơn.",
    "질문이 있어요: {q}",
    "请帮我：{q}",  # noqa: RUF001 (Chinese punctuation)
    "Giúp tôi với: {q}",
)
_THANKS = (
    "Thanks!",
    "Perfect, thank you.",
    "Great, that's all I needed.",
    "Awesome. Have a nice day!",
    "감사합니다!",
    "谢谢！",  # noqa: RUF001 (Chinese punctuation)
    "Cảm ơn!",
)
_SYSTEMS = (
    "You are a helpful assistant.",
    "You are an AI assistant with access to tools. Use them when needed.",
    "Don't make assumptions about what values to plug into functions. Ask for "
    "clarification if a user request is ambiguous.",
)
# Frames for `non_english`: the words around the values are in a language MiniLM does not
# read, so only the values themselves carry meaning for it.
_FOREIGN_FRAMES = (
    "{v} 좀 알려주세요.",
    "{v} 관련해서 처리해 주실 수 있나요?",
    "请帮我处理一下 {v}。",
    "我想知道 {v} 的情况。",
    "Làm ơn xử lý giúp tôi {v}.",
    "Cho tôi biết về {v} nhé.",
)
# Generic tools that match almost any request; live toolboxes often include such wrappers.
_WRAPPER_TOOLS: tuple[dict[str, Any], ...] = tuple(
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {param: {"type": "string", "description": about}},
                "required": [param],
            },
        },
    }
    for name, description, param, about in (
        ("requests_get", "Sends a GET request to the specified URL.", "url", "The URL."),
        ("web_search", "Search the web and return the top results.", "query", "Search terms."),
        ("run_python", "Execute a snippet of Python code and return its output.", "code", "Code."),
        ("send_message", "Send a message to a user or a channel.", "text", "The message."),
    )
)
_VAGUE = ("Can you {d}?", "I need to {d}.", "Help me {d}.", "Is it possible to {d}?")
_FIRST_CLAUSE = re.compile(r"^([^.;:(]{8,140})")
_NUMBERS = re.compile(r"[-+]?\d[\d,._/:-]*")
_QUOTED = re.compile(r"[\"'\u2018\u201c`][^\"'\u2019\u201d`]{1,80}[\"'\u2019\u201d`]")
_CAPITALISED = re.compile(r"(?<=[\w,] )[A-Z][\w'-]*(?: [A-Z][\w'-]*)*")


def routing_dev_set(*, seed: int = 0) -> list[RoutingExample]:
    """The non-live BFCL cases plus their synthetic variants, in a fixed order."""
    rng = random.Random(seed)
    bases = [case for category in NON_LIVE_CATEGORIES for case in load_category(category)]
    calls = [case for case in bases if case.should_call]
    out: list[RoutingExample] = []
    for case in bases:
        out.append(_example(case, "base", case.messages, case.tools, case.should_call))
        out.extend(_variants(case, rng, calls))
    return out


def _variants(
    case: BfclCase, rng: random.Random, calls: Sequence[BfclCase]
) -> list[RoutingExample]:
    query = str(case.messages[-1].get("content", ""))
    out: list[RoutingExample] = []
    if rng.random() < 0.3:
        system = {"role": "system", "content": rng.choice(_SYSTEMS)}
        out.append(_example(case, "system", [system, *case.messages], case.tools, case.should_call))
    if rng.random() < 0.25:
        talk = rng.choice(_SMALLTALK)
        out.append(_example(case, "smalltalk", [_user(talk)], case.tools, False))
    if not case.should_call:
        return out
    if rng.random() < 0.5:
        opener = rng.choice(PREAMBLES) if rng.random() < 0.5 else rng.choice(_OPENERS)
        text = opener + query + rng.choice(CLOSERS)
        out.append(_example(case, "chatty", [_user(text)], case.tools, True))
    if rng.random() < 0.15:
        text = rng.choice(PREAMBLES) + rng.choice(_SMALLTALK)
        out.append(_example(case, "chatty_smalltalk", [_user(text)], case.tools, False))
    if rng.random() < 0.15:
        text = rng.choice(_MULTILINGUAL_WRAPS).format(q=query)
        out.append(_example(case, "multilingual", [_user(text)], case.tools, True))
    if rng.random() < 0.3:
        casual = query.lower().rstrip(" .")
        out.append(_example(case, "lowercase", [_user(casual)], case.tools, True))
    values = _values_only(query)
    if values is not None and rng.random() < 0.3:
        text = rng.choice(_FOREIGN_FRAMES).format(v=values)
        out.append(_example(case, "non_english", [_user(text)], case.tools, True))
    if rng.random() < 0.2:
        names = {t["function"]["name"] for t in case.tools}
        wrappers = [t for t in _WRAPPER_TOOLS if t["function"]["name"] not in names]
        tools = [*case.tools, *rng.sample(wrappers, rng.randint(1, len(wrappers)))]
        out.append(_example(case, "wrapper_tools", case.messages, tools, True))
    if rng.random() < 0.15:
        chat = [_user(rng.choice(_SMALLTALK)), _assistant("Sure, happy to chat!")]
        chat += [_user(rng.choice(_SMALLTALK)), _assistant("Anything else I can do?")]
        out.append(_example(case, "chat_history", [*chat, *case.messages], case.tools, True))
    stripped = _strip_values(query, case)
    if stripped is not None and rng.random() < 0.6:
        if rng.random() < 0.3:
            stripped = rng.choice(PREAMBLES) + stripped
        out.append(_example(case, "missing_args", [_user(stripped)], case.tools, False))
    vague = _vague(case, rng)
    if vague is not None and rng.random() < 0.4:
        out.append(_example(case, "vague", [_user(vague)], case.tools, False))
    other = rng.choice(calls)
    if other.id != case.id and other.category != case.category and rng.random() < 0.3:
        out.append(_example(case, "foreign_tools", case.messages, other.tools, False))
    history = _called(case)
    if history is not None:
        if rng.random() < 0.25:
            out.append(_example(case, "after_result", history, case.tools, False))
        if rng.random() < 0.2:
            thanks = [*history, _assistant("Here is the result."), _user(rng.choice(_THANKS))]
            out.append(_example(case, "thanks_after", thanks, case.tools, False))
        if other.id != case.id and rng.random() < 0.25:
            names = {t["function"]["name"] for t in case.tools}
            tools = case.tools + [t for t in other.tools if t["function"]["name"] not in names]
            follow = [*history, _assistant("Done."), *other.messages]
            out.append(_example(case, "follow_up", follow, tools, True))
    return out


def _example(
    case: BfclCase,
    kind: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    label: bool,
) -> RoutingExample:
    return RoutingExample(
        id=f"{case.id}/{kind}",
        group=case.id,
        kind=kind,
        messages=[dict(m) for m in messages],
        tools=tools,
        should_call=label,
    )


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _strip_values(query: str, case: BfclCase) -> str | None:
    """The query without its argument values, if that leaves a required one unfillable."""
    stripped = _QUOTED.sub("", query)
    stripped = _NUMBERS.sub("", stripped)
    stripped = _CAPITALISED.sub("", stripped)
    stripped = re.sub(r"\s+([,.?!])", r"\1", re.sub(r"\s{2,}", " ", stripped)).strip()
    if stripped == query or len(stripped.split()) < 3 or not case.ground_truth:
        return None
    lowered = stripped.lower()
    for call in case.ground_truth:
        for function, arguments in call.items():
            required = _required_of(case, function)
            for name, accepted in arguments.items():
                if name not in required or "" in accepted:
                    continue
                values = [str(v).lower() for v in accepted if not isinstance(v, (dict, list, bool))]
                if values and not any(v in lowered for v in values):
                    return stripped
    return None


def _values_only(query: str) -> str | None:
    """The argument-like parts of a request (numbers, quoted text, names), or None."""
    parts = [m.group(0) for m in _QUOTED.finditer(query)]
    parts += _CAPITALISED.findall(query)
    parts += _NUMBERS.findall(query)
    parts = [p.strip(" ,.") for p in parts if p.strip(" ,.")]
    if not parts:
        return None
    return ", ".join(dict.fromkeys(parts))


def _required_of(case: BfclCase, function: str) -> set[str]:
    for doc in case.functions:
        if doc.get("name") == function:
            required = (doc.get("parameters") or {}).get("required") or []
            return {str(r) for r in required}
    return set()


def _vague(case: BfclCase, rng: random.Random) -> str | None:
    candidates = [
        t["function"]
        for t in case.tools
        if t["function"]["parameters"].get("required") and t["function"]["description"]
    ]
    if not candidates:
        return None
    description = str(rng.choice(candidates)["description"]).strip()
    match = _FIRST_CLAUSE.match(description)
    if match is None:
        return None
    clause = match.group(1).strip()
    clause = clause[0].lower() + clause[1:]
    # "Calculates the area" -> "calculate the area": descriptions are often third person.
    first, _, rest = clause.partition(" ")
    if first.endswith("es") and first[:-2].endswith(("ch", "sh", "ss", "x")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return rng.choice(_VAGUE).format(d=f"{first} {rest}".strip())


def _called(case: BfclCase) -> list[dict[str, Any]] | None:
    """The conversation after the ground-truth calls were made and answered."""
    if not case.ground_truth:
        return None
    reverse = {original: name for name, original in case.name_map.items()}
    calls = []
    for number, call in enumerate(case.ground_truth):
        for function, arguments in call.items():
            values = {k: v[0] for k, v in arguments.items() if v and v[0] != ""}
            calls.append(
                {
                    "id": f"call_{number}",
                    "type": "function",
                    "function": {
                        "name": reverse.get(function, function),
                        "arguments": json.dumps(values),
                    },
                }
            )
    results = [
        {"role": "tool", "tool_call_id": c["id"], "content": json.dumps({"result": "ok"})}
        for c in calls
    ]
    return [*case.messages, {"role": "assistant", "content": None, "tool_calls": calls}, *results]
