"""The local embedding router (extra `router`): encoder, features, calibration.

`EmbeddingRouter` embeds the conversation and the tool descriptions with a bundled
sentence encoder (`_encoders`), turns them into features (`_features`, over the text reading of
`_text`) and scores them with a logistic calibration (`_calibration`, JSON, no pickle).
numpy, torch and transformers are imported on first use, never by importing this package.
"""

from toolcall_sdk.routing.embedding._encoders import DEFAULT_ENCODER, ENCODERS
from toolcall_sdk.routing.embedding._router import DEFAULT_CALIBRATION, EmbeddingRouter
from toolcall_sdk.routing.embedding._traffic import decision_record, read_routing_cases

__all__ = [
    "DEFAULT_CALIBRATION",
    "DEFAULT_ENCODER",
    "ENCODERS",
    "EmbeddingRouter",
    "decision_record",
    "read_routing_cases",
]
