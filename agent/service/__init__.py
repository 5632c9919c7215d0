"""The dialogue service: the controller and its turn steps, the booking workflow (desk,
dispatch, reconciliation), answers from evidence, rendering, validation against the caller's
authority, the repair ladder and the decision tables (:mod:`agent.service.policy`). Imports
:mod:`agent.core` and :mod:`agent.understanding`."""
