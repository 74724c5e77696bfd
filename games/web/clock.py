"""The viewer's clock, for the pages that show times: their time zone, and the time left before
a deadline in words ("5 min left")."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from games.core import kit


def time_left(deadline: str | None, now) -> str:
    """The time left before ``deadline`` (ISO 8601, as the projections write it), in words."""
    if not deadline:
        return ""
    return kit.time_left(dt.datetime.fromisoformat(deadline.replace("Z", "+00:00")), now)


def viewer_zone(request):
    """The viewer's time zone (UTC for an anonymous viewer, or a zone this Python does not
    know)."""
    name = getattr(request.user, "timezone", "UTC") if request.user.is_authenticated else "UTC"
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")

