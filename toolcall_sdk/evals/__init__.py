"""The eval harness behind `toolcall-sdk eval`: cases, the pipeline ladder, the taxonomy, reports.

```python
from toolcall_sdk.evals import EvalSettings, build_report, load_cases, run_eval_sync

cases = load_cases("evals/invoices.jsonl", allow_code=True)  # its tools are Python
records = run_eval_sync(cases, EvalSettings(base_url="http://localhost:8000/v1", model="m"))
report = build_report(records)
print(report.ladder[-1].pass_rate)
```

See docs/evals.md for the case format, the taxonomy and the ladder.
"""

from toolcall_sdk.evals._bundled import CaseFileNotFoundError
from toolcall_sdk.evals._cases import (
    OMITTED,
    CaseFormatError,
    EvalCase,
    ExpectedCall,
    load_cases,
    parse_case,
    resolve_tools,
)
from toolcall_sdk.evals._files import CHART_FILE, JSON_FILE, MARKDOWN_FILE, write_reports
from toolcall_sdk.evals._matching import MadeCall, Matcher, Mismatch, json_equal, match_calls
from toolcall_sdk.evals._pipelines import LADDER, EvalSettings, PipelineOutcome, run_pipeline
from toolcall_sdk.evals._report import Breakdown, EvalReport, LadderRow, build_report
from toolcall_sdk.evals._runner import RESULTS_FILE, load_records, run_eval, run_eval_sync
from toolcall_sdk.evals._schema_tool import tool_from_openai
from toolcall_sdk.evals._seed import SEED_PASS_RATES
from toolcall_sdk.evals._settings import DEFAULT_MAX_TOKENS
from toolcall_sdk.evals._taxonomy import CLASSES, Verdict, classify
from toolcall_sdk.evals._terminal import print_report

__all__ = [
    "CHART_FILE",
    "CLASSES",
    "DEFAULT_MAX_TOKENS",
    "JSON_FILE",
    "LADDER",
    "MARKDOWN_FILE",
    "OMITTED",
    "RESULTS_FILE",
    "SEED_PASS_RATES",
    "Breakdown",
    "CaseFileNotFoundError",
    "CaseFormatError",
    "EvalCase",
    "EvalReport",
    "EvalSettings",
    "ExpectedCall",
    "LadderRow",
    "MadeCall",
    "Matcher",
    "Mismatch",
    "PipelineOutcome",
    "Verdict",
    "build_report",
    "classify",
    "json_equal",
    "load_cases",
    "load_records",
    "match_calls",
    "parse_case",
    "print_report",
    "resolve_tools",
    "run_eval",
    "run_eval_sync",
    "run_pipeline",
    "tool_from_openai",
    "write_reports",
]
