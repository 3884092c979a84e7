"""BFCL v4 data as OpenAI-shaped test cases.

```python
from toolcall_sdk.bfcl import CATEGORIES, BfclCase, load_category, to_openai_tools

cases = load_category("live_multiple")
cases[0].messages, cases[0].tools, cases[0].should_call
```

The data ships in the `bfcl-eval` package; install it without its dependencies
(`pip install --no-deps bfcl-eval==2026.3.23`). Nothing here imports `bfcl_eval` itself.
"""

from toolcall_sdk.bfcl._checker import BfclVerdict, bfcl_check, ground_truth_as_output
from toolcall_sdk.bfcl._data import (
    CATEGORIES,
    LIVE_CATEGORIES,
    NO_CALL_CATEGORIES,
    NON_LIVE_CATEGORIES,
    BfclCase,
    data_dir,
    load_category,
)
from toolcall_sdk.bfcl._errors import BFCL_INSTALL, BfclDataError, BfclNotInstalledError
from toolcall_sdk.bfcl._schema import openai_name, to_json_schema, to_openai_tools

__all__ = [
    "BFCL_INSTALL",
    "CATEGORIES",
    "LIVE_CATEGORIES",
    "NON_LIVE_CATEGORIES",
    "NO_CALL_CATEGORIES",
    "BfclCase",
    "BfclDataError",
    "BfclNotInstalledError",
    "BfclVerdict",
    "bfcl_check",
    "data_dir",
    "ground_truth_as_output",
    "load_category",
    "openai_name",
    "to_json_schema",
    "to_openai_tools",
]
