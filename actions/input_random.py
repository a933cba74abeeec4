"""``input_random``: type a random text, number, e-mail address or name into the focused field
(Maestro's ``inputRandomText``, ``inputRandomNumber``, ``inputRandomEmail``,
``inputRandomPersonName``, ``inputRandomCityName``, ``inputRandomCountryName``,
``inputRandomColorName``). What was typed is in the step's output."""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Choice, Number

__all__ = ["ACTION", "KINDS", "random_text"]

# A few of each, enough to look like real input (Maestro draws them from DataFaker's lists).
_FIRST = ("Ana", "Ben", "Chloe", "David", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kai", "Lena")
_LAST = ("Silva", "Meyer", "Okafor", "Nguyen", "Rossi", "Kowalski", "Haddad", "Tanaka", "Moreau", "Jensen")
_CITIES = ("Lisbon", "Porto", "Nairobi", "Osaka", "Montreal", "Valparaiso", "Krakow", "Tbilisi", "Perth")
_COUNTRIES = ("Portugal", "Kenya", "Japan", "Canada", "Chile", "Poland", "Georgia", "Australia", "Norway")
_COLORS = ("red", "green", "blue", "yellow", "purple", "orange", "teal", "maroon", "olive", "silver")
_DOMAINS = ("example.com", "example.org", "example.net")
KINDS: tuple[str, ...] = ("text", "number", "email", "person_name", "city_name", "country_name", "color_name")
_MAESTRO = {
    "inputRandomText": "text",
    "inputRandomNumber": "number",
    "inputRandomEmail": "email",
    "inputRandomPersonName": "person_name",
    "inputRandomCityName": "city_name",
    "inputRandomCountryName": "country_name",
    "inputRandomColorName": "color_name",
}


def random_text(kind: str, length: int, rng: random.Random) -> str:
    """A random value of ``kind``; ``length`` characters for text and number."""
    if kind == "text":
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(length))
    if kind == "number":
        return str(rng.randint(1, 9)) + "".join(rng.choice(string.digits) for _ in range(length - 1))
    if kind == "email":
        user = "".join(rng.choice(string.ascii_lowercase) for _ in range(8))
        return f"{user}@{rng.choice(_DOMAINS)}"
    if kind == "person_name":
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    words = {"city_name": _CITIES, "country_name": _COUNTRIES, "color_name": _COLORS}[kind]
    return rng.choice(words)


def _input(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    text = random_text(args["kind"], args["length"], random.Random())
    driver.type_text(text)
    return {"typed": text}


ACTION = Action(
    "input_random",
    "type a random text, number, e-mail address or name",
    _input,
    params=(
        Param("kind", Choice(KINDS), "what to type", default="text"),
        Param("length", Number(1, 1000, integer=True), "characters, for text and number", default=8),
    ),
    changes_screen=True,
    flow=FlowForm("input_random", short="kind", bare=True),
    maestro=tuple(
        MaestroForm(command, bare=True, options={"length": "length"}, fixed={"kind": kind})
        for command, kind in _MAESTRO.items()
    ),
    offered=False,  # flows only: an agent has press back / type_text for it, or no use
)
