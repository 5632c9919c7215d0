"""Speech: the pipecat pipeline, local models, the generation gate, transports and call runner."""
