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
