"""Element lookup as WebDriverAgent does it, over a :class:`~sim.render_wda.WdaNode` tree.

Supports the locator strategies facebook-wda and Appium send to ``POST /session/S/elements``:
``accessibility id`` / ``id`` / ``name`` (the WDA ``name``), ``class name``, ``predicate string``
(the NSPredicate subset test code uses: comparisons with ``== != CONTAINS BEGINSWITH ENDSWITH
LIKE MATCHES IN``, ``[c]``/``[cd]`` modifiers, ``AND OR NOT`` and parentheses), ``class chain``
(``**/Type[`predicate`][n]/Child…``) and ``xpath`` (evaluated with lxml over the same XML the face
serves). A query that cannot be read raises :class:`QueryError` (WDA's ``invalid selector``).
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from lxml import etree

from .render_wda import TYPE_PREFIX, WdaNode, render_xml

__all__ = ["QueryError", "find"]

_Predicate = Callable[[WdaNode], bool]


class QueryError(ValueError):
    """The locator could not be parsed (WDA answers ``invalid selector``)."""


def find(root: WdaNode, using: str, value: str) -> list[WdaNode]:
    """Every element under (and including) ``root`` the locator matches, in document order."""
    if not isinstance(value, str):
        raise QueryError(f"the locator value must be a string, got {value!r}")
    strategy = using.lower()
    if strategy in ("accessibility id", "id", "name"):
        return [n for n in root.iter() if n.name == value]
    if strategy == "class name":
        return [n for n in root.iter() if n.type == value]
    if strategy == "predicate string":
        match = parse_predicate(value)
        return [n for n in root.iter() if match(n)]
    if strategy == "class chain":
        return _class_chain(root, value)
    if strategy == "xpath":
        return _xpath(root, value)
    raise QueryError(f"locator strategy {using!r} is not supported")


# --- predicates ------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<op>==|=|!=|<>|>=|<=|>|<|&&|\|\||!|\(|\)|\{|\}|,)
      | (?P<mod>\[[cdCD]+\])
      | (?P<word>[A-Za-z_$][\w.$]*|-?\d+(?:\.\d+)?)
    )""",
    re.VERBOSE,
)
_KEYWORDS = {"AND": "&&", "OR": "||", "NOT": "!"}
_STRING_OPS = frozenset({"CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "IN"})


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise QueryError(f"cannot read the predicate {text!r} at {pos}")
        pos = m.end()
        token = m.group(m.lastgroup or "word")
        out.append(_KEYWORDS.get(token.upper(), token) if m.lastgroup == "word" else token)
    return out


def _literal(token: str) -> Any:
    if token[:1] in ("'", '"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    upper = token.upper()
    if upper in ("TRUE", "YES"):
        return True
    if upper in ("FALSE", "NO"):
        return False
    if upper in ("NIL", "NULL"):
        return None
    if re.fullmatch(r"-?\d+(?:\.\d+)?", token):
        return float(token) if "." in token else int(token)
    raise QueryError(f"expected a value, got {token!r}")


def _fold(text: str, modifiers: str) -> str:
    if "c" in modifiers:
        text = text.casefold()
    if "d" in modifiers:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return text


def _numeric(left: float, op: str, right: float) -> bool:
    if op in ("==", "="):
        return left == right
    if op in ("!=", "<>"):
        return left != right
    checks = {">": left > right, "<": left < right, ">=": left >= right, "<=": left <= right}
    return checks.get(op, False)


def _compare(actual: Any, op: str, expected: Any, modifiers: str) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        truth = bool(actual) if not isinstance(actual, str) else actual.lower() in ("1", "true", "yes")
        if op in ("==", "="):
            return truth == bool(expected)
        if op in ("!=", "<>"):
            return truth != bool(expected)
    if op == "IN":
        items = expected if isinstance(expected, list) else [expected]
        return any(_compare(actual, "==", item, modifiers) for item in items)
    if actual is None or expected is None:
        equal = actual is None and expected is None
        return equal if op in ("==", "=") else (not equal if op in ("!=", "<>") else False)
    if isinstance(expected, int | float) and not isinstance(actual, str):
        return _numeric(float(actual), op, float(expected))
    left, right = _fold(str(actual), modifiers), _fold(str(expected), modifiers)
    if op in ("==", "="):
        return left == right
    if op in ("!=", "<>"):
        return left != right
    if op == "CONTAINS":
        return right in left
    if op == "BEGINSWITH":
        return left.startswith(right)
    if op == "ENDSWITH":
        return left.endswith(right)
    if op == "LIKE":
        return fnmatch.fnmatchcase(left, right)
    if op == "MATCHES":
        try:
            return re.fullmatch(right, left) is not None
        except re.error as exc:
            raise QueryError(f"bad regular expression {expected!r}: {exc}") from exc
    raise QueryError(f"operator {op!r} is not supported")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise QueryError(f"the predicate {self.text!r} ends too early")
        self.pos += 1
        return token

    def parse(self) -> _Predicate:
        pred = self.disjunction()
        if self.peek() is not None:
            raise QueryError(f"unexpected {self.peek()!r} in the predicate {self.text!r}")
        return pred

    def disjunction(self) -> _Predicate:
        parts = [self.conjunction()]
        while self.peek() == "||":
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda n: any(p(n) for p in parts))

    def conjunction(self) -> _Predicate:
        parts = [self.unary()]
        while self.peek() == "&&":
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda n: all(p(n) for p in parts))

    def unary(self) -> _Predicate:
        if self.peek() == "!":
            self.take()
            inner = self.unary()
            return lambda n: not inner(n)
        if self.peek() == "(":
            self.take()
            inner = self.disjunction()
            if self.take() != ")":
                raise QueryError(f"missing ')' in the predicate {self.text!r}")
            return inner
        return self.comparison()

    def value(self) -> Any:
        if self.peek() == "{":
            self.take()
            items: list[Any] = []
            while self.peek() != "}":
                items.append(_literal(self.take()))
                if self.peek() == ",":
                    self.take()
            self.take()
            return items
        return _literal(self.take())

    def comparison(self) -> _Predicate:
        key = self.take()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", key):
            raise QueryError(f"expected an attribute name, got {key!r}")
        op = self.take()
        op = op.upper() if op.upper() in _STRING_OPS else op
        if op not in _STRING_OPS and op not in ("==", "=", "!=", "<>", ">", "<", ">=", "<="):
            raise QueryError(f"expected an operator after {key!r}, got {op!r}")
        modifiers = ""
        if (self.peek() or "").startswith("["):
            modifiers = self.take()[1:-1].lower()
        expected = self.value()
        return lambda n: _compare(n.attribute(key), op, expected, modifiers)


def parse_predicate(text: str) -> _Predicate:
    """An NSPredicate-like string as a test on one element."""
    return _Parser(text).parse()


# --- class chains ----------------------------------------------------------------------------


def _split_chain(chain: str) -> list[str]:
    parts, depth_tick, bracket, current = [], False, 0, ""
    for char in chain:
        if char == "`":
            depth_tick = not depth_tick
        elif not depth_tick and char == "[":
            bracket += 1
        elif not depth_tick and char == "]":
            bracket -= 1
        if char == "/" and not depth_tick and bracket == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if depth_tick or bracket:
        raise QueryError(f"unbalanced brackets or backticks in the class chain {chain!r}")
    parts.append(current)
    return parts


_SEGMENT = re.compile(r"^(?P<type>\*|[A-Za-z]+)(?P<filters>(?:\[`[^`]*`\]|\[\$[^$]*\$\]|\[-?\d+\])*)$")
_FILTER = re.compile(r"\[`(?P<pred>[^`]*)`\]|\[\$(?P<desc>[^$]*)\$\]|\[(?P<index>-?\d+)\]")


def _apply_segment(candidates: list[WdaNode], segment: str) -> list[WdaNode]:
    m = _SEGMENT.match(segment)
    if m is None:
        raise QueryError(f"cannot read the class chain segment {segment!r}")
    kind = m.group("type")
    if kind not in ("*", "XCUIElementTypeAny") and not kind.startswith(TYPE_PREFIX):
        kind = TYPE_PREFIX + kind
    found = [n for n in candidates if kind in ("*", "XCUIElementTypeAny") or n.type == kind]
    for f in _FILTER.finditer(m.group("filters")):
        if f.group("pred") is not None:
            match = parse_predicate(f.group("pred"))
            found = [n for n in found if match(n)]
        elif f.group("desc") is not None:
            match = parse_predicate(f.group("desc"))
            found = [n for n in found if any(match(d) for d in n.iter() if d is not n)]
        else:
            position = int(f.group("index"))
            if position == 0:
                raise QueryError("class chain indexes start at 1 (or -1 from the end)")
            pick = position - 1 if position > 0 else position
            found = [found[pick]] if -len(found) <= pick < len(found) else []
    return found


def _class_chain(root: WdaNode, chain: str) -> list[WdaNode]:
    context = [root]
    descendants = False
    for segment in _split_chain(chain.strip()):
        if segment == "":
            continue
        if segment == "**":
            descendants = True
            continue
        pool: list[WdaNode] = []
        for node in context:
            pool.extend(d for d in node.iter() if d is not node) if descendants else pool.extend(
                node.children
            )
        seen: set[int] = set()
        unique = [n for n in pool if not (id(n) in seen or seen.add(id(n)))]  # type: ignore[func-returns-value]
        context = _apply_segment(unique, segment)
        descendants = False
    return context


# --- xpath -----------------------------------------------------------------------------------


def _xpath(root: WdaNode, query: str) -> list[WdaNode]:
    nodes = list(root.iter())
    doc = etree.fromstring(render_xml(root).encode())
    elements = list(doc.iter())
    if len(elements) != len(nodes):  # pragma: no cover - the renderer writes one element per node
        raise QueryError("the source and the element tree disagree")
    by_element = {el: node for el, node in zip(elements, nodes, strict=True)}
    try:
        result = doc.getroottree().xpath(query)
    except etree.XPathError as exc:
        raise QueryError(f"cannot evaluate the XPath {query!r}: {exc}") from exc
    if not isinstance(result, list):
        raise QueryError(f"the XPath {query!r} does not select elements")
    return [by_element[el] for el in result if isinstance(el, etree._Element) and el in by_element]
