"""Optional: a call through this machine's sound card (extra ``local-audio``: PyAudio).

The same pipeline as every other transport; the generation gate still paces, pauses and
drops, so barge-in works with the real microphone and speaker. There is no echo
cancellation here: use a headset, or the agent will hear (and barge in on) itself.

Usage (needs ``pip install -e '.[local-audio]'`` and a sound card)::

    asyncio.run(run_local_call(make_conversation))
"""

from __future__ import annotations

from agent.core.errors import InvalidInput
from agent.core.trace import Trace
from audio.live_call import ConversationFactory
from audio.pipeline import PipelineConfig, build_pipeline


def local_transport(out_rate: int = 24000):
    """Pipecat's PyAudio transport at 16 kHz in. Raises InvalidInput if PyAudio is missing."""
    try:
        from pipecat.transports.local.audio import (
            LocalAudioTransport,
            LocalAudioTransportParams,
        )
    except Exception as exc:  # pipecat raises a bare Exception when pyaudio is absent
        raise InvalidInput("local audio: PyAudio is not installed; run "
                           "`pip install -e '.[local-audio]'` (needs portaudio) or use the "
                           "browser demo (`amend demo`)") from exc
    return LocalAudioTransport(LocalAudioTransportParams(
        audio_in_enabled=True, audio_in_sample_rate=16000, audio_out_enabled=True,
        audio_out_sample_rate=out_rate))


async def run_local_call(make_conversation: ConversationFactory,
                         config: PipelineConfig | None = None) -> None:
    """Talk to the agent through the sound card until interrupted (Ctrl-C)."""
    from pipecat.workers.runner import WorkerRunner

    from audio import services

    config = config or PipelineConfig()
    services.warm()
    transport = local_transport(config.out_sample_rate)
    trace = Trace()
    call = build_pipeline(transport, trace, config)
    conversation = make_conversation(call.sink, trace)
    call.attach(conversation)
    runner = WorkerRunner(handle_sigint=True)
    await runner.add_workers(call.worker)
    await conversation.start()
    try:
        await runner.run()
    finally:
        await conversation.close()
