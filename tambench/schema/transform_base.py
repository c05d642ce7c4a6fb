"""The base of the recipe transform models (see :mod:`tambench.schema.transforms`)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from tambench.core.fielddocs import DOCUMENTED


class Transform(BaseModel):
    """Base of the transform models (one per ``op``)."""

    model_config = DOCUMENTED

    op: str
    """The operation's name."""

    #: The transform builds the training table itself: it must come first, and the recipe's
    #: train_file is left empty.
    builds_table: ClassVar[bool] = False

    def reads(self) -> list[str]:
        """Columns the transform reads (a table without them is left alone, except the
        training table, where they are required)."""
        return []
