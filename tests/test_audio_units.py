"""Pure pieces of the speech path: overlap classification, lead-ins, biasing, WER."""

from __future__ import annotations

import pytest

from audio.barge_in import Overlap, classify_overlap, is_lead_in
from audio.biasing import asset_ids_of, hotwords_for, sites_of, spoken_id
from audio.corpus import normalise, wer, word_errors
from audio.frames import context_id_for, generation_of_context, sentence_of_context


@pytest.mark.parametrize("text", ["Mm-hmm.", "okay", "Yeah, yeah.", "uh-huh", "Right.",
                                  "I see.", "Got it."])
def test_acknowledgements_over_agent_speech_are_backchannels(text):
    assert classify_overlap(text) is Overlap.BACKCHANNEL


@pytest.mark.parametrize("text", ["Sorry, Thursday.", "No.", "Yes.", "Go ahead.",
                                  "Okay, but make it Friday.", "Wait", "Sure."])
def test_anything_with_content_over_agent_speech_is_a_real_turn(text):
    assert classify_overlap(text) is Overlap.TURN


def test_no_words_is_noise():
    assert classify_overlap(" ... ") is Overlap.NOISE


def test_lead_ins_hold_the_turn_but_content_does_not():
    assert is_lead_in("Sorry.") and is_lead_in("No, wait.") and is_lead_in("Actually,")
    assert not is_lead_in("Sorry, Thursday.") and not is_lead_in("") and not is_lead_in("Yes.")


def test_hotwords_come_from_the_callers_assets_and_only_when_there_are_some():
    assert spoken_id("P-100") == "P 100"
    hot = hotwords_for(["P-100", "V-200"])
    assert hot.startswith("P 100 V 200 ") and "valve gasket" in hot
    assert hotwords_for([]) is None

    class Caller:
        assets = (type("A", (), {"id": "P-100", "site": "12 Harbour Road, Rotterdam"})(),)

    conversation = type("C", (), {"ctx": type("Ctx", (), {"caller": Caller()})()})()
    assert asset_ids_of(conversation) == ("P-100",)
    assert sites_of(conversation) == ("12 Harbour Road, Rotterdam",)
    assert asset_ids_of(object()) == () and sites_of(object()) == ()
    assert hotwords_for(["P-100"], sites=["12 Harbour Road, Rotterdam"]).endswith("Rotterdam")


def test_wer_normalises_ids_numbers_and_times():
    assert normalise("Pump P-100 at 2pm on the 3rd") == \
        normalise("pump P 100 at two p.m. on the third")
    assert word_errors("Cancel the visit for valve V 200.", "Cancel the visit for valve B200.") \
        == (1, 6)
    assert wer([("a b c d", "a b c d"), ("a b", "a x")]) == pytest.approx(1 / 6)


def test_context_ids_carry_generation_and_sentence():
    ctx = context_id_for(12, 3)
    assert (generation_of_context(ctx), sentence_of_context(ctx)) == (12, 3)
    assert generation_of_context("0b8f-uuid") == -1 and generation_of_context(None) == -1


@pytest.mark.audio
def test_models_load_once_and_every_call_shares_them():
    from agent.core.trace import Trace
    from audio import services
    from audio.pipeline import build_pipeline
    from audio.scripted import ScriptedCaller

    first = build_pipeline(ScriptedCaller(), Trace())
    second = build_pipeline(ScriptedCaller(), Trace())
    assert first.stt._model is second.stt._model is services.whisper_model()
    assert first.tts._voice is second.tts._voice is services.piper_voice()


def test_the_shared_piper_session_plans_no_memory_pattern_per_sentence_length():
    from audio import models, services

    voice = services.piper_voice()
    assert voice.session.get_session_options().enable_mem_pattern is False
    assert voice.config.sample_rate == models.piper_voice().sample_rate
    chunks = list(voice.synthesize("It's booked."))
    assert chunks and sum(len(c.audio_int16_array) for c in chunks) > voice.config.sample_rate // 4


def test_local_audio_without_pyaudio_says_how_to_install_it():
    try:
        import pyaudio  # noqa: F401
    except ImportError:
        from agent.core.errors import InvalidInput
        from audio.local import local_transport

        with pytest.raises(InvalidInput, match=r"local-audio"):
            local_transport()
    else:
        pytest.skip("pyaudio is installed: the sound-card transport itself is untested here")


@pytest.mark.audio
def test_a_short_turn_is_encoded_in_the_short_window_and_heard_alike(monkeypatch):
    """A turn that fits the encoder window with room to spare is encoded in it (half the
    work at 15 s); a longer one in Whisper's full 30 s. The short window hears a clear turn
    word for word as the full one does."""
    import numpy as np

    from audio import services, synth

    model = services.whisper_model()
    seen: list[int] = []
    encode = type(model).encode

    def spy(self, features):
        seen.append(int(features.shape[-1]))
        out = encode(self, features)
        seen.append(int(np.asarray(out).shape[-2]))
        return out

    monkeypatch.setattr(type(model), "encode", spy)
    clip = synth.piper("Please book pump P-200 for Thursday afternoon.").samples
    short = services.recognise(clip, hotwords="P 100 P 200")
    assert seen[-1] == round(services.ENCODER_WINDOW_SECS * 50)  # encoder positions: 50 per s
    long_turn = np.concatenate([clip, np.zeros(16000 * 14, dtype=np.float32)])
    services.recognise(long_turn, hotwords="P 100 P 200")
    assert seen[-1] == 1500  # the full 30 s window
    segments, _ = model.transcribe(  # outside recognise(): faster-whisper's own 30 s
        clip, language="en", beam_size=1, hotwords=services.as_sentence("P 100 P 200"),
        condition_on_previous_text=False, without_timestamps=True)
    full = " ".join(s.text.strip() for s in segments).strip()
    assert seen[-1] == 1500
    assert short.text == full and "Thursday afternoon" in short.text
    monkeypatch.setenv(services.WINDOW_ENV, "30")
    assert services.encoder_window_secs() == 30.0


@pytest.mark.parametrize("raw", ["9", "31", "fifteen", "nan", "-15"])
def test_a_bad_encoder_window_is_refused_by_name(monkeypatch, raw):
    from audio import services

    monkeypatch.setenv(services.WINDOW_ENV, raw)
    with pytest.raises(ValueError, match=services.WINDOW_ENV + ".*from 12 to 30"):
        services.encoder_window_secs()
