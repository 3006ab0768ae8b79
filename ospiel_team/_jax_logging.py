"""Hides JAX's note that it found no TPU, which every CPU-only run logs once.

JAX tries each backend it knows when it first runs; a missing TPU library is logged by
`jax._src.xla_bridge` as ``Unable to initialize backend 'tpu': ...`` at INFO level, which absl
commands print. That line says nothing about a CPU run. The filter drops that one message
only: other backends' messages and every warning and error of the logger still show, and a
backend the user asked for that fails still raises (JAX raises instead of logging then).
"""
import logging

JAX_BACKEND_LOGGER = "jax._src.xla_bridge"
_HIDDEN_PREFIX = "Unable to initialize backend 'tpu'"


class _NoTpuNote(logging.Filter):
  """Drops the INFO record ``Unable to initialize backend 'tpu': ...``."""

  def filter(self, record: logging.LogRecord) -> bool:
    if record.levelno > logging.INFO:
      return True
    try:
      message = record.getMessage()
    except (TypeError, ValueError):  # a malformed record: let logging report it as usual
      return True
    return not message.startswith(_HIDDEN_PREFIX)


def hide_missing_tpu_note() -> None:
  """Installs the filter on JAX's backend logger (once; idempotent)."""
  logger = logging.getLogger(JAX_BACKEND_LOGGER)
  if not any(isinstance(f, _NoTpuNote) for f in logger.filters):
    logger.addFilter(_NoTpuNote())
