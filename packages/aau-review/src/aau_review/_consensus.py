"""The consensus label of each unit: the majority of its human pass and fail labels.

``unsure`` is no vote (``_protocol.UNSURE_RULE``). A unit whose pass and fail votes are equal
(and not zero) is a tie, listed for adjudication and given no consensus; a unit with only unsure
labels, or no label, has no consensus either. Only units with a pass or fail consensus enter the
scorer comparison (``_validity``).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

NO_CONSENSUS = -1
PASS_CODE, FAIL_CODE = 0, 1


@attrs.frozen
class ConsensusResult:
    """Per unit: ``codes`` (0 pass, 1 fail, -1 none) and boolean arrays ``tie``, ``unsure``
    (only unsure labels) and ``unlabelled``; the units are those of the ratings, in order."""

    codes: Any
    tie: Any
    unsure: Any
    unlabelled: Any


def consensus(ratings: Any, unsure_counts: Any) -> ConsensusResult:
    """The majority consensus of human ratings.

    Args:
        ratings: units x raters codes (0 pass, 1 fail, -1 unsure or not labelled).
        unsure_counts: per unit, how many human labels were ``unsure``.

    Returns:
        a ``ConsensusResult``.
    """
    codes = np.asarray(ratings, dtype=np.int64)
    passes = (codes == PASS_CODE).sum(axis=1)
    fails = (codes == FAIL_CODE).sum(axis=1)
    unsure = np.asarray(unsure_counts, dtype=np.int64)
    result = np.full(len(codes), NO_CONSENSUS, dtype=np.int64)
    result[passes > fails] = PASS_CODE
    result[fails > passes] = FAIL_CODE
    voted = passes + fails
    return ConsensusResult(codes=result, tie=(passes == fails) & (voted > 0),
                           unsure=(voted == 0) & (unsure > 0),
                           unlabelled=(voted == 0) & (unsure == 0))
