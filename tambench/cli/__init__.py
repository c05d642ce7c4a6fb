"""cli: a thin typer front end; one module per command group, heavy imports inside commands.

The command line does not look for pydantic plugins (``PYDANTIC_DISABLE_PLUGINS=__all__``):
the search reads the metadata of every installed package, about 20 ms of each command's
start-up. A user who relies on one sets ``PYDANTIC_DISABLE_PLUGINS`` themself (empty: plugins
load as usual); a value already set is kept.
"""

import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
