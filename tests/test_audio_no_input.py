"""The no-input timer (audio/no_input.py) on an audio clock: it fires after so much caller
audio following a question, never on its own, at most so many times in a row."""

from __future__ import annotations

import pytest
from pipecat.frames.frames import InputAudioRawFrame

from audio.no_input import NoInput
from audio.turns import AudioClock

FRAME = InputAudioRawFrame(b"\x00\x00" * 320, 16000, 1)  # 20 ms of silence


ASKED = 100.0  # when the question finished (time.monotonic() as the adapter passes it)


def run(clock: AudioClock, secs: float, no_input: NoInput | None = None, *,
        captured: float | None = None) -> None:
    """``secs`` of silent frames reach the adapter (captured at ``captured``: None, unknown)."""
    for _ in range(round(secs / 0.02)):
        if no_input is not None:
            no_input.frame_in(captured)
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
    run(clock, 5.0, no_input)
    assert fired == []  # no question yet: nothing
    no_input.question_finished(ASKED)
    run(clock, 1.9, no_input)
    assert fired == []
    run(clock, 4.0, no_input)
    assert fired == [pytest.approx(7.0, abs=0.021)]  # within one frame of 5 s + 2 s
    assert no_input.in_row == 1 and not no_input.armed


def test_caller_speech_disarms_and_a_new_response_disarms():
    clock, no_input, fired = timer(secs=1.0)
    no_input.question_finished(ASKED)
    run(clock, 0.5, no_input)
    no_input.caller_spoke()
    run(clock, 2.0, no_input)
    no_input.question_finished(ASKED)
    no_input.agent_spoke()
    run(clock, 2.0, no_input)
    assert fired == []


def test_at_most_max_in_row_until_the_caller_speaks():
    clock, no_input, fired = timer(secs=1.0, max_in_row=2)
    for _ in range(4):  # the agent asks again each time; the caller never answers
        no_input.question_finished(ASKED)
        run(clock, 1.5, no_input)
    assert len(fired) == 2
    no_input.caller_spoke()  # the caller is back: the count starts again
    no_input.question_finished(ASKED)
    run(clock, 1.5, no_input)
    assert len(fired) == 3


def test_a_declined_no_input_does_not_count():
    clock, no_input, fired = timer(secs=1.0, max_in_row=1, accept=False)
    no_input.question_finished(ASKED)
    run(clock, 1.5, no_input)
    no_input.question_finished(ASKED)
    run(clock, 1.5, no_input)
    assert len(fired) == 2 and no_input.in_row == 0


@pytest.mark.parametrize("kw", [{"secs": 0}, {"secs": -1.0}, {"max_in_row": -1}])
def test_bad_settings_are_refused_by_name(kw):
    with pytest.raises(ValueError, match="no_input"):
        NoInput(AudioClock(), lambda: True, **kw)


def test_zero_in_row_turns_it_off():
    clock, no_input, fired = timer(secs=1.0, max_in_row=0)
    no_input.question_finished(ASKED)
    run(clock, 3.0, no_input)
    assert fired == [] and not no_input.armed


def test_audio_captured_while_the_question_played_is_no_silence_after_it():
    """On a busy machine the adapter runs behind the microphone: the audio still queued when
    the question finished was captured while it played. Only audio captured after it counts
    (5 s of the backlog here would have fired a 2 s timer twice over)."""
    clock, no_input, fired = timer(secs=2.0)
    no_input.question_finished(ASKED)
    run(clock, 5.0, no_input, captured=ASKED - 3.0)  # the backlog, captured before
    assert fired == [] and no_input.armed
    run(clock, 1.9, no_input, captured=ASKED + 1.0)
    assert fired == []
    run(clock, 0.2, no_input, captured=ASKED + 3.0)
    assert fired == [pytest.approx(7.0, abs=0.021)]  # 2 s after the backlog's 5 s


def test_a_frame_with_no_capture_time_counts_from_when_it_arrives():
    clock, no_input, fired = timer(secs=2.0)
    no_input.question_finished(ASKED)
    run(clock, 2.1, no_input)
    assert fired == [pytest.approx(2.0, abs=0.021)]
