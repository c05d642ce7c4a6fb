"""The metric registry stays light: no scikit-learn, pandas or scipy on its import path."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_registry_loads_no_sklearn_pandas_or_scipy() -> None:
    code = (
        "import sys, tambench.core.metrics as m; m.get_metric('roc_auc'); "
        "print(sorted(k for k in ('sklearn', 'pandas', 'scipy') if k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
