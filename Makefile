# Amend: two commands do all the set-up on a fresh clone.
#   make demo   create .venv, install, start the browser demo on 127.0.0.1
#   make test   create .venv, install, run the whole test suite (what .ci/run calls);
#               it runs a named half of the pack in audio mode (tests/test_calls_pack_audio.py)
#   make test-audio   the speech tests with every pack script in audio mode

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_DISABLE_TELEMETRY := 1
export DO_NOT_TRACK := 1

.PHONY: venv demo chat test test-audio bench lint clean

# Re-installs only when pyproject.toml changes (the stamp is older than it).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/amend demo

chat: $(STAMP)
	$(BIN)/amend chat

test: $(STAMP)
	@$(BIN)/python tools/run_tests.py

test-audio: $(STAMP)
	@$(BIN)/python tools/run_tests.py --audio-only

bench: $(STAMP)
	$(BIN)/amend bench

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info

# The acceptance pack with a language model as the proposer, --proposer llm then hybrid, against
# the fake model server answering from tests/fixtures/llm_replies.json (issue 16): ~8.5 min.
.PHONY: test-proposers
test-proposers: $(STAMP)
	AMEND_PROPOSER_PACK=1 $(BIN)/python -m pytest -q tests/test_calls_pack_proposers.py
