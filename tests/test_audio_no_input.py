"""The no-input timer (audio/no_input.py) on an audio clock: it fires after so much caller
audio following a question, never on its own, at most so many times in a row."""

from __future__ import annotations

import pytest
from pipecat.frames.frames import InputAudioRawFrame

from audio.no_input import NoInput
from audio.turns import AudioClock

FRAME = InputAudioRawFrame(b"\x00\x00" * 320, 16000, 1)  # 20 ms of silence


def run(clock: AudioClock, secs: float) -> None:
    for _ in range(round(secs / 0.02)):
        clock.advance(FRAME)


def timer(*, accept: bool = True, **kw) -> tuple[AudioClock, NoInput, list[float]]:
    clock = AudioClock()
    fired: list[float] = []

    def on_no_input() -> bool:
        fired.append(round(clock.now, 2))
        return accept

    return clock, NoInput(clock, on_no_input, **kw), fired


def test_fires_once_after_that_much_audio_following_a_question():
    clock, no_input, fired = timer(secs=2.0)
    run(clock, 5.0)
    assert fired == []  # no question yet: nothing
    no_input.question_finished()
    run(clock, 1.9)
    assert fired == []
    run(clock, 4.0)
    assert fired == [pytest.approx(7.0, abs=0.021)]  # within one frame of 5 s + 2 s
    assert no_input.in_row == 1 and not no_input.armed


def test_caller_speech_disarms_and_a_new_response_disarms():
    clock, no_input, fired = timer(secs=1.0)
    no_input.question_finished()
    run(clock, 0.5)
    no_input.caller_spoke()
    run(clock, 2.0)
    no_input.question_finished()
    no_input.agent_spoke()
    run(clock, 2.0)
    assert fired == []


def test_at_most_max_in_row_until_the_caller_speaks():
    clock, no_input, fired = timer(secs=1.0, max_in_row=2)
    for _ in range(4):  # the agent asks again each time; the caller never answers
        no_input.question_finished()
        run(clock, 1.5)
    assert len(fired) == 2
    no_input.caller_spoke()  # the caller is back: the count starts again
    no_input.question_finished()
    run(clock, 1.5)
    assert len(fired) == 3


def test_a_declined_no_input_does_not_count():
    clock, no_input, fired = timer(secs=1.0, max_in_row=1, accept=False)
    no_input.question_finished()
    run(clock, 1.5)
    no_input.question_finished()
    run(clock, 1.5)
    assert len(fired) == 2 and no_input.in_row == 0


@pytest.mark.parametrize("kw", [{"secs": 0}, {"secs": -1.0}, {"max_in_row": -1}])
def test_bad_settings_are_refused_by_name(kw):
    with pytest.raises(ValueError, match="no_input"):
        NoInput(AudioClock(), lambda: True, **kw)


def test_zero_in_row_turns_it_off():
    clock, no_input, fired = timer(secs=1.0, max_in_row=0)
    no_input.question_finished()
    run(clock, 3.0)
    assert fired == [] and not no_input.armed
