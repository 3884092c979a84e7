"""Synthetic tool-calling chats for the demo toolbox: seeded, pure Python, no I/O.

Two disjoint phrasing sets: `"train"` templates teach the model, `"heldout"` templates only
measure it (and a slice of cities never appears in training), so an accuracy number says
how the model does on requests it has not seen.

Besides plain calls the data teaches the turns the SDK's retry loop needs:
- a *mistake* the validator catches: for a relative due date ("in two weeks") the model
  writes a date in the past, as small models do; an order id typed in lower case is copied
  as typed, breaking its pattern;
- the *feedback* turn: after a `tool` message carrying a validation error, the same call with
  the named field corrected (the past date moved to `FUTURE_YEAR`, the id upper-cased).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from toolcall_sdk_demo._toolbox import (
    INVOICE,
    ORDER,
    TOOL_NAMES,
    TOOL_STYLES,
    WEATHER,
    tool_definition,
)

Split = Literal["train", "heldout"]
Kind = Literal["call", "parallel", "chat", "mistake", "feedback", "result", "no_tool"]

# A corrected due date keeps the month and day and moves to this year: a tiny model cannot
# know today's date, and a fixed year far enough ahead stays valid for years of demos.
FUTURE_YEAR: Final = 2030
# Years of the dates a request may name explicitly (all in the future when this was written).
EXPLICIT_YEARS: Final = (2027, 2028, 2029)
# Years of the wrong dates the model learns to write for relative due dates.
PAST_YEARS: Final = (2024, 2025)

MONTHS: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_TRAIN_CITIES: Final = (
    "Paris",
    "London",
    "Berlin",
    "Madrid",
    "Rome",
    "Lisbon",
    "Vienna",
    "Prague",
    "Warsaw",
    "Dublin",
    "Oslo",
    "Stockholm",
    "Helsinki",
    "Copenhagen",
    "Amsterdam",
    "Brussels",
    "Zurich",
    "Geneva",
    "Athens",
    "Istanbul",
    "Cairo",
    "Nairobi",
    "Lagos",
    "Accra",
    "Casablanca",
    "Tunis",
    "Dubai",
    "Doha",
    "Riyadh",
    "Tehran",
    "Karachi",
    "Delhi",
    "Mumbai",
    "Chennai",
    "Kolkata",
    "Dhaka",
    "Kathmandu",
    "Colombo",
    "Bangkok",
    "Yangon",
    "Hanoi",
    "Da Nang",
    "Hue",
    "Ho Chi Minh City",
    "Can Tho",
    "Phnom Penh",
    "Vientiane",
    "Kuala Lumpur",
    "Singapore",
    "Jakarta",
    "Manila",
    "Taipei",
    "Hong Kong",
    "Shanghai",
    "Beijing",
    "Seoul",
    "Busan",
    "Tokyo",
    "Osaka",
    "Sydney",
    "Melbourne",
    "Perth",
    "Auckland",
    "Wellington",
    "Toronto",
    "Montreal",
    "Vancouver",
    "Chicago",
    "Boston",
    "New York",
    "Los Angeles",
    "San Francisco",
    "Seattle",
    "Denver",
    "Miami",
    "Houston",
    "Mexico City",
    "Havana",
    "Bogota",
    "Lima",
    "Quito",
    "Santiago",
    "Buenos Aires",
    "Montevideo",
    "Sao Paulo",
    "Rio de Janeiro",
    "Reykjavik",
    "Edinburgh",
    "Manchester",
    "Munich",
    "Hamburg",
    "Milan",
    "Naples",
    "Barcelona",
    "Seville",
    "Porto",
    "Krakow",
    "Budapest",
    "Bucharest",
    "Sofia",
    "Belgrade",
    "Zagreb",
    "Kyiv",
    "Riga",
    "Tallinn",
    "Vilnius",
    "Minsk",
    "Tbilisi",
    "Yerevan",
    "Baku",
    "Almaty",
    "Tashkent",
    "Ulaanbaatar",
)
# Never in training data: the copy rate on these says whether the model copies or recalls.
_UNSEEN_CITIES: Final = (
    "Haiphong",
    "Nha Trang",
    "Valencia",
    "Bordeaux",
    "Lyon",
    "Marseille",
    "Glasgow",
    "Cardiff",
    "Antwerp",
    "Rotterdam",
    "Gdansk",
    "Bratislava",
    "Ljubljana",
    "Dakar",
    "Kigali",
    "Addis Ababa",
    "Lusaka",
    "Harare",
    "Cebu",
    "Sapporo",
)

_GREETINGS: Final = (
    "",
    "",
    "",
    "Hi! ",
    "Hello, ",
    "Hey, ",
    "Good morning. ",
    "Quick question: ",
    "Please help: ",
    "Hi there. ",
)
_CLOSINGS: Final = ("", "", "", " Thanks!", " Thank you.", " Please.", " Thanks a lot.")

_SYSTEM_PROMPTS: Final = (
    None,
    None,
    None,
    "You are a helpful assistant.",
    "You are the assistant of a small online shop in Vietnam.",
    "You help customers with weather, orders and invoices. Be brief.",
    "You are a billing and support assistant.",
)

# --- phrasings -------------------------------------------------------------------------
# {unit} is a phrase that names the unit (or nothing, then the answer is celsius).
_WEATHER: Final[dict[Split, tuple[str, ...]]] = {
    "train": (
        "What's the weather in {city}{unit}?",
        "What is the weather like in {city} today{unit}?",
        "How is the weather in {city}{unit}?",
        "Weather for {city}{unit}, please.",
        "Tell me the weather in {city}{unit}.",
        "Can you check the weather in {city}{unit}?",
        "Give me the current weather for {city}{unit}.",
        "How hot is it in {city}{unit}?",
        "Is it cold in {city} right now{unit}?",
        "Show the weather of {city}{unit}.",
        "{city} weather{unit}?",
        "I need the weather report for {city}{unit}.",
        "What's the temperature in {city}{unit}?",
        "Look up the weather in {city}{unit}.",
        "Do I need a jacket in {city} today? Check the weather{unit}.",
        "weather in {city}{unit}",
    ),
    "heldout": (
        "I'm flying to {city} tomorrow. What's the weather like there{unit}?",
        "Could you find out how warm it is in {city}{unit}?",
        "Is it sunny in {city} at the moment{unit}?",
        "Current conditions in {city}{unit}, please.",
        "Please get me the weather for {city}{unit}.",
        "Any idea what the weather is doing in {city}{unit}?",
        "Check {city}'s weather for me{unit}.",
        "Should I bring an umbrella in {city}? Look at the weather{unit}.",
    ),
}
_UNIT_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "celsius": (" in celsius", " in Celsius", " in degrees Celsius", " in °C"),
    "fahrenheit": (" in fahrenheit", " in Fahrenheit", " in degrees Fahrenheit", " in °F"),
}

_ORDER: Final[dict[Split, tuple[str, ...]]] = {
    "train": (
        "Where is my order {order_id}?",
        "What is the status of order {order_id}?",
        "Check order {order_id}.",
        "Has order {order_id} shipped yet?",
        "Can you look up my order {order_id}?",
        "Order {order_id}: status?",
        "I want to know where order {order_id} is.",
        "Track {order_id} for me.",
        "Status of {order_id}?",
        "My package {order_id} has not arrived. Can you check it?",
        "Did {order_id} ship?",
        "Give me an update on order {order_id}.",
    ),
    "heldout": (
        "Any news on my order {order_id}?",
        "I ordered something last week, the number is {order_id}. Where is it now?",
        "Could you tell me if {order_id} has been delivered?",
        "Please find order {order_id} and tell me its status.",
        "What happened to {order_id}?",
        "Look into order {order_id} please.",
    ),
}

_INVOICE: Final[dict[Split, tuple[str, ...]]] = {
    "train": (
        "Create an invoice for {customer_id} for {amount}, due {due}.",
        "Please bill customer {customer_id} {amount}, due {due}.",
        "Make an invoice: customer {customer_id}, amount {amount}, due date {due}.",
        "Invoice {customer_id} {amount} due {due}.",
        "I need an invoice of {amount} for customer {customer_id}, payable {due}.",
        "Bill {customer_id} for {amount}. It is due {due}.",
        "New invoice for customer {customer_id}: {amount}, due {due}.",
        "Charge {customer_id} {amount} with a due date of {due}.",
        "Can you invoice {customer_id} for {amount}? Due {due}.",
        "Create invoice, customer {customer_id}, {amount}, due {due}.",
    ),
    "heldout": (
        "Send customer {customer_id} an invoice for {amount}; they should pay {due}.",
        "Please raise an invoice of {amount} to {customer_id}, due {due}.",
        "{customer_id} owes us {amount}. Invoice them, due {due}.",
        "Could you prepare an invoice for {customer_id}? The amount is {amount} and it is due "
        "{due}.",
        "Draw up a bill for customer {customer_id}: {amount}, due {due}.",
    ),
}
_AMOUNT_SUFFIXES: Final = (" VND", " VND", " dong", " đồng", "₫", " VND")
# Relative dates: the model cannot compute them, and learns to write a past date (a mistake).
_RELATIVE_DUES: Final = (
    "in two weeks",
    "next month",
    "in 30 days",
    "by the end of the month",
    "next Friday",
    "in a week",
    "tomorrow",
    "in ten days",
)
_EXPLICIT_DUE_PREFIX: Final = ("on ", "", "by ")

_PARALLEL: Final[dict[Split, tuple[str, ...]]] = {
    "train": (
        "What's the weather in {city} and in {city2}?",
        "Compare the weather in {city} and {city2}.",
        "Weather in {city} and {city2}, please.",
        "Check orders {order_id} and {order_id2}.",
        "What is the status of {order_id} and {order_id2}?",
        "What's the weather in {city}, and where is my order {order_id}?",
    ),
    "heldout": (
        "I'm choosing between {city} and {city2}. How is the weather in both?",
        "Please track {order_id} and also {order_id2}.",
        "Tell me the weather in {city}. Also, has {order_id} shipped?",
    ),
}

_CHAT: Final[dict[Split, tuple[tuple[str, str], ...]]] = {
    "train": (
        ("Hi", "Hello! How can I help you today?"),
        ("Hello", "Hi! What can I do for you?"),
        ("Hey there", "Hello! How can I help?"),
        ("Good morning", "Good morning! How can I help you?"),
        ("Thanks", "You're welcome!"),
        ("Thank you!", "You're welcome! Anything else?"),
        ("thanks a lot", "Happy to help!"),
        (
            "Who are you?",
            "I am a small demo assistant. I can check the weather, track orders "
            "and create invoices.",
        ),
        ("What can you do?", "I can check the weather, look up orders and create invoices."),
        ("Bye", "Goodbye!"),
        ("ok", "Okay. Let me know if you need anything else."),
        ("Tell me a joke", "Why did the invoice go to school? To get a little more due-cation."),
        ("How are you?", "I'm fine, thank you! How can I help?"),
        ("What is 2 + 2?", "2 + 2 = 4."),
        ("Good night", "Good night!"),
    ),
    "heldout": (
        ("Hiya", "Hello! How can I help you today?"),
        ("Many thanks", "You're welcome!"),
        (
            "What are you able to help with?",
            "I can check the weather, look up orders and create invoices.",
        ),
        ("See you later", "Goodbye!"),
        ("Good evening", "Good evening! How can I help you?"),
    ),
}

_NO_TOOL_ANSWER: Final = "Sorry, I can't help with that: no available tool can do it."


# --- the examples ----------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One expected tool call."""

    name: str
    arguments: dict[str, Any]

    def as_tool_call(self, call_id: str) -> dict[str, Any]:
        """The OpenAI `tool_calls` entry (arguments as a JSON string, as clients send it)."""
        return {
            "id": call_id,
            "type": "function",
            "function": {
                "name": self.name,
                "arguments": json.dumps(self.arguments, ensure_ascii=False),
            },
        }


@dataclass(frozen=True)
class Example:
    """One chat. `messages` ends with the assistant turn to predict, described by `expected`.

    `expected` is empty when that turn is plain text (`answer`).
    """

    kind: Kind
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    expected: list[Call] = field(default_factory=list)
    answer: str | None = None
    # What the user asked for in words the eval should find copied (e.g. a relative date
    # is not copyable and is absent here).
    unseen_city: bool = False

    @property
    def prompt(self) -> list[dict[str, Any]]:
        """The messages before the turn to predict."""
        return self.messages[:-1]


def _due_date(rng: random.Random, years: Sequence[int]) -> tuple[int, int, int]:
    # Day <= 28: every month has it, so a moved year never makes an invalid date.
    return rng.choice(years), rng.randint(1, 12), rng.randint(1, 28)


def _iso(year: int, month: int, day: int) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}"


class _Generator:
    def __init__(self, split: Split, seed: int, *, unseen_city_rate: float) -> None:
        self.split: Split = split
        self.rng = random.Random(f"{seed}:{split}")
        self.unseen_city_rate = unseen_city_rate if split == "heldout" else 0.0
        self.call_counter = 0

    # values ---------------------------------------------------------------------------
    def city(self) -> tuple[str, bool]:
        if self.rng.random() < self.unseen_city_rate:
            return self.rng.choice(_UNSEEN_CITIES), True
        return self.rng.choice(_TRAIN_CITIES), False

    def order_id(self) -> str:
        return f"ORD-{self.rng.randint(0, 99999):05d}"

    def customer_id(self) -> str:
        return f"CUS-{self.rng.randint(0, 999999):06d}"

    def amount(self) -> tuple[int, str]:
        rng = self.rng
        value = rng.choice(
            (rng.randint(1, 999) * 1000, rng.randint(1, 99) * 100000, rng.randint(1000, 99999999))
        )
        text = f"{value:,}" if rng.random() < 0.35 else str(value)
        return value, text + rng.choice(_AMOUNT_SUFFIXES)

    def call_id(self) -> str:
        self.call_counter += 1
        style = self.rng.random()
        if style < 0.5:
            return f"call_{self.call_counter}"
        if style < 0.8:
            return "chatcmpl-tool-" + "".join(
                self.rng.choice("0123456789abcdef") for _ in range(16)
            )
        return f"call_{self.rng.randint(0, 99999)}"

    # framing --------------------------------------------------------------------------
    def tools(self, needed: Sequence[str]) -> list[dict[str, Any]]:
        names = list(needed) + [
            n for n in TOOL_NAMES if n not in needed and self.rng.random() < 0.45
        ]
        names = list(dict.fromkeys(names))
        self.rng.shuffle(names)
        style = self.rng.choice(TOOL_STYLES)
        return [tool_definition(name, style) for name in names]

    def framed(self, core: str) -> str:
        text = self.rng.choice(_GREETINGS) + core + self.rng.choice(_CLOSINGS)
        return text[0].upper() + text[1:] if self.rng.random() < 0.9 else text

    def start(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        system = self.rng.choice(_SYSTEM_PROMPTS)
        if system is not None:
            messages.append({"role": "system", "content": system})
        if self.rng.random() < 0.15:  # some history first
            user, reply = self.rng.choice(_CHAT[self.split])
            messages += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
        return messages

    def assistant_calls(self, calls: Sequence[Call]) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [c.as_tool_call(self.call_id()) for c in calls],
        }

    # requests -------------------------------------------------------------------------
    def weather_request(self) -> tuple[str, Call, bool]:
        city, unseen = self.city()
        unit = "celsius"
        unit_phrase = ""
        if self.rng.random() < 0.5:
            unit = self.rng.choice(("celsius", "fahrenheit"))
            unit_phrase = self.rng.choice(_UNIT_PHRASES[unit])
        core = self.rng.choice(_WEATHER[self.split]).format(city=city, unit=unit_phrase)
        return core, Call(WEATHER, {"city": city, "unit": unit}), unseen

    def order_request(self, *, lower: bool = False) -> tuple[str, Call]:
        order_id = self.order_id()
        typed = order_id.lower() if lower else order_id
        core = self.rng.choice(_ORDER[self.split]).format(order_id=typed)
        return core, Call(ORDER, {"order_id": typed})

    def invoice_request(self, *, relative: bool = False, past: bool = False) -> tuple[str, Call]:
        rng = self.rng
        customer_id = self.customer_id()
        value, amount_text = self.amount()
        if relative:
            due_text = rng.choice(_RELATIVE_DUES)
            due = _iso(*_due_date(rng, PAST_YEARS))  # the mistake it learns to make
        else:
            year, month, day = _due_date(rng, PAST_YEARS if past else EXPLICIT_YEARS)
            due = _iso(year, month, day)
            if rng.random() < 0.7:
                due_text = rng.choice(_EXPLICIT_DUE_PREFIX) + due
            else:
                due_text = rng.choice(_EXPLICIT_DUE_PREFIX) + f"{MONTHS[month - 1]} {day}, {year}"
        core = rng.choice(_INVOICE[self.split]).format(
            customer_id=customer_id, amount=amount_text, due=due_text
        )
        return core, Call(
            INVOICE, {"customer_id": customer_id, "amount_vnd": value, "due_date": due}
        )

    # kinds ----------------------------------------------------------------------------
    def call_example(self) -> Example:
        which = self.rng.random()
        unseen = False
        if which < 0.34:
            core, call, unseen = self.weather_request()
        elif which < 0.62:
            core, call = self.order_request()
        else:
            core, call = self.invoice_request()
        messages = [*self.start(), {"role": "user", "content": self.framed(core)}]
        messages.append(self.assistant_calls([call]))
        return Example("call", messages, self.tools([call.name]), [call], unseen_city=unseen)

    def parallel_example(self) -> Example:
        template = self.rng.choice(_PARALLEL[self.split])
        city, unseen = self.city()
        city2, unseen2 = self.city()
        while city2 == city:
            city2, unseen2 = self.city()
        order_id, order_id2 = self.order_id(), self.order_id()
        calls: list[Call] = []
        slots = [s for s in ("{city}", "{city2}", "{order_id}", "{order_id2}") if s in template]
        # Calls in the order their values appear in the request.
        slots.sort(key=template.index)
        for slot in slots:
            if slot == "{city}":
                calls.append(Call(WEATHER, {"city": city, "unit": "celsius"}))
            elif slot == "{city2}":
                calls.append(Call(WEATHER, {"city": city2, "unit": "celsius"}))
            elif slot == "{order_id}":
                calls.append(Call(ORDER, {"order_id": order_id}))
            else:
                calls.append(Call(ORDER, {"order_id": order_id2}))
        core = template.format(city=city, city2=city2, order_id=order_id, order_id2=order_id2)
        messages = [*self.start(), {"role": "user", "content": self.framed(core)}]
        messages.append(self.assistant_calls(calls))
        return Example(
            "parallel",
            messages,
            self.tools([c.name for c in calls]),
            calls,
            unseen_city=unseen or unseen2,
        )

    def chat_example(self) -> Example:
        user, reply = self.rng.choice(_CHAT[self.split])
        if self.rng.random() < 0.3:
            user = user.lower()
        messages = [
            *self.start(),
            {"role": "user", "content": user},
            {"role": "assistant", "content": reply},
        ]
        tools = self.tools([]) if self.rng.random() < 0.85 else []
        return Example("chat", messages, tools, [], answer=reply)

    def no_tool_example(self) -> Example:
        # The request needs a tool that is not offered: say so instead of calling another.
        name = self.rng.choice(TOOL_NAMES)
        if name == WEATHER:
            core = self.weather_request()[0]
        elif name == ORDER:
            core = self.order_request()[0]
        else:
            core = self.invoice_request()[0]
        others = [n for n in TOOL_NAMES if n != name]
        tools = [
            tool_definition(n, self.rng.choice(TOOL_STYLES))
            for n in others
            if self.rng.random() < 0.6
        ]
        messages = [
            *self.start(),
            {"role": "user", "content": self.framed(core)},
            {"role": "assistant", "content": _NO_TOOL_ANSWER},
        ]
        return Example("no_tool", messages, tools, [], answer=_NO_TOOL_ANSWER)

    def _mistake(self) -> tuple[str, Call, Call, str, str]:
        """A request, the wrong call, the corrected call, the field and its error text."""
        if self.rng.random() < 0.6:
            core, bad = self.invoice_request(relative=self.rng.random() < 0.75, past=True)
            _year, month, day = (int(p) for p in bad.arguments["due_date"].split("-"))
            fixed = Call(INVOICE, {**bad.arguments, "due_date": _iso(FUTURE_YEAR, month, day)})
            return core, bad, fixed, "due_date", "must not be in the past"
        core, bad = self.order_request(lower=True)
        fixed = Call(ORDER, {"order_id": bad.arguments["order_id"].upper()})
        return core, bad, fixed, "order_id", "String should match pattern '^ORD-\\d{5}$'"

    def mistake_example(self) -> Example:
        """First turn only: the model makes the mistake the validator exists for."""
        core, bad, _fixed, _field, _error = self._mistake()
        messages = [*self.start(), {"role": "user", "content": self.framed(core)}]
        messages.append(self.assistant_calls([bad]))
        return Example("mistake", messages, self.tools([bad.name]), [bad])

    def feedback_text(
        self, name: str, call_id: str, field_name: str, error: str, value: str
    ) -> str:
        rng = self.rng
        style = rng.random()
        if style < 0.45:
            # The SDK's own wording (toolcall_sdk/_feedback.py).
            return (
                f"VALIDATION_ERROR in {name} (call {call_id}):\n- {field_name}: {error} "
                f'(got "{value}")\nCall {name} again with corrected arguments.'
            )
        if style < 0.55:
            return (
                f"VALIDATION_ERROR in {name} (call {call_id}): {field_name}: "
                + ("Value error, " if "past" in error else "")
                + f'{error} (got "{value}"). Call {name} again with corrected arguments.'
            )
        if style < 0.75:
            return (
                f"1 validation error for {name}\n{field_name}\n  "
                + ("Value error, " if "past" in error else "")
                + f"{error} [input_value='{value}']\nFix the arguments and call {name} "
                "again."
            )
        if style < 0.9:
            return f"Error: invalid argument {field_name}={value!r}: {error}."
        return json.dumps(
            {
                "error": "validation_error",
                "tool": name,
                "details": [{"field": field_name, "message": error, "input": value}],
            }
        )

    def feedback_example(self) -> Example:
        core, bad, fixed, field_name, error = self._mistake()
        messages = [*self.start(), {"role": "user", "content": self.framed(core)}]
        first = self.assistant_calls([bad])
        call_id = first["tool_calls"][0]["id"]
        value = str(bad.arguments[field_name])
        text = self.feedback_text(bad.name, call_id, field_name, error, value)
        messages.append(first)
        if self.rng.random() < 0.85:
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        else:
            messages.append({"role": "user", "content": text})
        messages.append(self.assistant_calls([fixed]))
        return Example("feedback", messages, self.tools([bad.name]), [fixed])

    def result_example(self) -> Example:
        """After a successful tool result, a short answer in words (copying from the result)."""
        which = self.rng.random()
        if which < 0.4:
            core, call, _unseen = self.weather_request()
            temp = self.rng.randint(-10, 40)
            cond = self.rng.choice(("sunny", "cloudy", "rainy", "windy", "snowy"))
            result = {
                "city": call.arguments["city"],
                "temperature": temp,
                "unit": call.arguments["unit"],
                "condition": cond,
            }
            answer = (
                f"It is {temp} degrees {call.arguments['unit']} and {cond} in "
                f"{call.arguments['city']}."
            )
        elif which < 0.7:
            core, call = self.order_request()
            status = self.rng.choice(("shipped", "delivered", "processing", "cancelled"))
            result = {"order_id": call.arguments["order_id"], "status": status}
            answer = f"Order {call.arguments['order_id']} is {status}."
        else:
            core, call = self.invoice_request()
            invoice_id = f"INV-{self.rng.randint(0, 9999):04d}"
            result = {"invoice_id": invoice_id, "status": "created"}
            answer = (
                f"Invoice {invoice_id} for {call.arguments['customer_id']} was created, "
                f"due {call.arguments['due_date']}."
            )
        messages = [*self.start(), {"role": "user", "content": self.framed(core)}]
        first = self.assistant_calls([call])
        messages += [
            first,
            {
                "role": "tool",
                "tool_call_id": first["tool_calls"][0]["id"],
                "content": json.dumps(result, ensure_ascii=False),
            },
            {"role": "assistant", "content": answer},
        ]
        return Example("result", messages, self.tools([call.name]), [], answer=answer)


# How often each kind appears in the training mix (weights, not probabilities).
TRAIN_MIX: Final[dict[Kind, float]] = {
    "call": 0.55,
    "parallel": 0.07,
    "chat": 0.1,
    "mistake": 0.05,
    "feedback": 0.12,
    "result": 0.06,
    "no_tool": 0.05,
}


def generate(
    n: int,
    *,
    split: Split = "train",
    seed: int = 0,
    mix: dict[Kind, float] | None = None,
    unseen_city_rate: float = 0.3,
) -> list[Example]:
    """Generate `n` chats; the same arguments always give the same chats.

    Args:
        n: How many examples.
        split: "train" or "heldout" phrasings (disjoint template sets).
        seed: Seed of the generator.
        mix: Weights per kind (defaults to `TRAIN_MIX`).
        unseen_city_rate: In the held-out split, the share of cities never seen in training.
    """
    gen = _Generator(split, seed, unseen_city_rate=unseen_city_rate)
    weights = mix or TRAIN_MIX
    makers: dict[Kind, Callable[[], Example]] = {
        "call": gen.call_example,
        "parallel": gen.parallel_example,
        "chat": gen.chat_example,
        "mistake": gen.mistake_example,
        "feedback": gen.feedback_example,
        "result": gen.result_example,
        "no_tool": gen.no_tool_example,
    }
    kinds = [k for k in weights if weights[k] > 0]
    return [
        makers[gen.rng.choices(kinds, weights=[weights[k] for k in kinds])[0]]() for _ in range(n)
    ]


def city_pools() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The training cities and the cities held out of training."""
    return _TRAIN_CITIES, _UNSEEN_CITIES
