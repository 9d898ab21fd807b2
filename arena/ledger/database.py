"""sqlite-utils, loaded by the first code that uses it (migrating, its table API).

Reading (``arena status``) and a rating session's writes (``Ledger.atomic``, ``insert``)
work on the bare connection and never load it: its import, with click and dateutil, and
its plugin scan at each ``Database`` took a fifth of `arena status` and about 0.1 s of
the window's start.
"""

import sys

# sqlite-utils imports pandas and numpy when they are installed, only to name the column
# types of tables it creates from Python values; Arena creates its tables in SQL, and the
# two imports took most of a command's start (0.4 s of `arena status`). Hidden while it
# loads, they are imported later only by the code that uses them.
_HIDDEN = [name for name in ("pandas", "numpy") if name not in sys.modules]
for _name in _HIDDEN:
    sys.modules[_name] = None  # type: ignore[assignment]
try:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations
finally:
    for _name in _HIDDEN:
        del sys.modules[_name]

__all__ = ["Database", "Migrations"]
