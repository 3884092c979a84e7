"""Diagnose a running server for tool calling: `toolcall-sdk doctor --base-url URL`.

```python
from toolcall_sdk.doctor import run_doctor

report = run_doctor("http://127.0.0.1:8000/v1", model="Qwen/Qwen2.5-7B-Instruct")
for finding in report.findings:
    print(finding.check, finding.status, finding.detail, finding.fix)
```
"""

from toolcall_sdk.doctor._findings import Finding, Report, Status
from toolcall_sdk.doctor._markup import detect_markup
from toolcall_sdk.doctor._probes import run_doctor
from toolcall_sdk.doctor._render import render_report

__all__ = ["Finding", "Report", "Status", "detect_markup", "render_report", "run_doctor"]
