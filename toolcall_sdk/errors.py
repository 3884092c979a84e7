"""Every error the SDK raises, all under `ToolCallError` (the tree: `help(toolcall_sdk._errors)`
or docs/errors.md). `ModelRetry` is not an error: a tool raises it to send a message back to
the model.

    from toolcall_sdk.errors import ToolCallError, ToolCallFailed, TransportError
"""

from toolcall_sdk._errors import *  # noqa: F403  (the public home of the error tree)
from toolcall_sdk._errors import __all__ as __all__
