"""scrollUntilVisible's ``centerElement``: Maestro's one-sided rule (the element's centre has come
past the screen's centre less a fifth, seen from where it comes in), not a band around the centre."""

from __future__ import annotations

from amc.actions.scroll_until_visible import _near_centre
from amc.core.models import Bounds

SCREEN = Bounds(0, 0, 540, 960)  # FakeDriver's screen; a fifth is 192, the centre 480


def test_scrolling_down_an_element_above_the_centre_plus_a_fifth_is_centred() -> None:
    assert _near_centre((50, 671), SCREEN, "down")
    assert _near_centre((50, 10), SCREEN, "down")  # already past the centre: scrolling on would lose it
    assert not _near_centre((50, 710), SCREEN, "down")  # 112's element after one swipe


def test_scrolling_up_and_sideways_mirror_it() -> None:
    assert _near_centre((50, 289), SCREEN, "up") and not _near_centre((50, 288), SCREEN, "up")
    assert _near_centre((377, 10), SCREEN, "right") and not _near_centre((378, 10), SCREEN, "right")
    assert _near_centre((163, 10), SCREEN, "left") and not _near_centre((162, 10), SCREEN, "left")
