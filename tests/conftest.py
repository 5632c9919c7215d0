"""Suite-wide settings: offline, test-only switches allowed, asyncio for anyio tests."""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["AMEND_ALLOW_AGENT_FAULTS"] = "1"

import pytest  # noqa: E402


@pytest.fixture
def anyio_backend():
    return "asyncio"
