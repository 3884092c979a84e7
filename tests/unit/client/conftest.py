"""Fixtures shared by the client tests of one lever each."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_sdk import tool

from ..conftest import Ledger


@pytest.fixture
def invoice(ledger: Ledger) -> Any:
    """`create_invoice(customer_id, amount_vnd)`; each run recorded in the ledger."""

    @tool
    def create_invoice(customer_id: str, amount_vnd: int) -> str:
        """Create an invoice."""
        ledger.calls.append(("create_invoice", {"amount_vnd": amount_vnd}))
        return "INV-1"

    return create_invoice
