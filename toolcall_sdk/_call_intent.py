"""Whether a call found in an answer's text is the answer, or only shown in it.

Recovery (`_recovery`) reads calls a server left in the text, and what it reads runs. A model
also writes calls it does not mean to make: it shows one as an example, asks whether to make
it, refuses or postpones it ("I will NOT call <tool_call>...</tool_call> until you confirm"),
or drafts it while thinking. The rule, applied to the text around the calls once the calls'
markup is taken out:

- A call counts when it is the answer: only the call, or the call with a short lead-in or
  close (`Sure, here is the call:`), at most `MAX_PROSE_CHARS` of prose in all.
- Prose that asks about the call (a question to the user), negates (`not`, `never`,
  `won't`, `don't`), makes the call wait on something (`once you confirm`, `if you want`,
  `shall I`, `would`) or shows it (`for example`, `you can call`) makes the whole answer
  text: no call of it runs, whether recovery read it or the server's parser took it out of
  that prose (`_recovery.withheld_calls`). Under a free choice (`tool_choice="auto"`) the
  text is the model's answer to the user; under a forced choice it is fed back as "no tool
  call", and the model is asked again.
- A call inside reasoning (a think block, or the server's `reasoning_content`) is a draft:
  text, whatever the prose says.

The words are English, the language the supported models write their call prose in. A
false "text" costs a question the user answers; a false "call" runs a function nobody
asked for: where the prose is unclear, the rule reads it as text.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_PROSE_CHARS", "prose_withholds_call"]

# The most prose a call's answer may hold around the calls and still be the call: a lead-in
# and a closing line. The small models' own lead-ins ("To get the weather in Hanoi, I will
# call the get_weather function with the city parameter set to Hanoi.") are under 200.
MAX_PROSE_CHARS: Final = 400

_WITHHOLDS: Final = re.compile(
    r"""
      n't\b | \b(?:not|never|cannot|nor)\b       # negates
    | \b(?:once|unless|until)\b                 # conditions (a bare "if" or "whether" is
    | \bif\s+(?:you|yes|so|needed|necessary|ok|okay|approved|confirmed|wanted|desired)\b
    | \b(?:after|when|before)\s+you\b           #   a lead-in's "to check if ...")
    | \b(?:would|could|might|shall)\b           # offers, supposes
    | \b(?:want|like)\s+me\s+to\b
    | \b(?:confirm\w*|approv\w*|permission|go\s+ahead|proceed)\b
    | \b(?:example|e\.g\.|for\s+instance|such\s+as|sample|illustrat\w*|hypothetical\w*)\b
    | \byou\s+(?:can|may)\s+(?:call|use|run|invoke|try)\b
    | \b(?:here(?:'s|\s+is)\s+how|like\s+this|looks?\s+like|format)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
# A question that asks the user about the call ("Shall I go ahead?", "Is that OK?", "Do you
# want me to send it?"), not small talk around it ("Hello! What's up?"): a sentence that ends
# in a question mark and speaks of the user, the model or the action.
_SENTENCE: Final = re.compile(r"[^.!?\n]*\?")
_ABOUT_THE_CALL: Final = re.compile(
    r"\b(?:you|your|i|me|we|us|this|that|it|ok|okay|proceed|continue|right|correct)\b",
    re.IGNORECASE,
)
# Fences and blank lines that only frame a call are not prose.
_FRAMING: Final = re.compile(r"```[\w-]*|\s+")


def prose_withholds_call(prose: str) -> str | None:
    """Why the prose around an answer's calls keeps them from running, or None.

    Args:
        prose: The answer's text with the calls' markup taken out (reasoning blocks removed).

    Returns:
        A short reason (`asks or conditions: "Shall I go ahead?"`), or None when the calls
        are the answer.
    """
    text = _FRAMING.sub(" ", prose).strip()
    if not text:
        return None
    found = _WITHHOLDS.search(text) or next(
        (q for q in _SENTENCE.finditer(text) if _ABOUT_THE_CALL.search(q.group())), None
    )
    if found is not None:
        start = max(0, found.start() - 40)
        return f"the text around the call asks, negates or conditions it: {text[start:][:80]!r}"
    if len(text) > MAX_PROSE_CHARS:
        return f"the call stands in {len(text)} characters of prose (more than {MAX_PROSE_CHARS})"
    return None
