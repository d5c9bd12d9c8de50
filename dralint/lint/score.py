"""The 0-100 score.

score = floor(100 * n / (n + 5 * errors + warnings)), n = number of objects (at least 1).

Why this shape: it is 100 exactly when nothing at warning or error level is found, every
extra finding lowers it (so fixing one never lowers it), an error weighs five warnings, and
dividing by the object count lets a large repository with one problem score far better than a
small one with many. Info findings do not count.
"""

from __future__ import annotations

ERROR_WEIGHT = 5
WARNING_WEIGHT = 1


def score(objects: int, errors: int, warnings: int) -> int:
    """The score for ``objects`` objects carrying the given finding counts."""
    n = max(objects, 1)
    penalty = ERROR_WEIGHT * errors + WARNING_WEIGHT * warnings
    if penalty == 0:
        return 100
    # With penalty >= 1, 100 * n < 100 * (n + penalty), so the floor is at most 99 by itself.
    return (100 * n) // (n + penalty)
