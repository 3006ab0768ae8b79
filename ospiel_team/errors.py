"""The package's exceptions, in one place.

Each is a subclass of the built-in exception that callers caught before (`ValueError`,
`RuntimeError`), so that existing `except ValueError:` code keeps working.
"""


class OspielTeamError(Exception):
  """Base class of every exception this package defines."""


class UserError(OspielTeamError, ValueError):
  """A bad argument or option from the user: the message names the bad value."""


class SizeLimitError(OspielTeamError, ValueError):
  """A computation would exceed a size or memory limit that the caller set or accepted.

  Raised before the memory is spent (a tree walk, a decomposition's local solutions, an LP),
  never used for the interpreter's own `MemoryError`. The message names the limit, the size
  reached, and the argument that raises the limit.
  """


class DamagedFileError(OspielTeamError, ValueError):
  """A file the package reads (cache, checkpoint, dataset, model) fails its checks.

  The message names the file and what is wrong with it.
  """


class DivergenceError(OspielTeamError, RuntimeError):
  """A training run's loss or parameters became non-finite (NaN or infinite).

  Raised by the trainer's round loop before anything non-finite is written: the message names
  the round and what turned non-finite, and the last good checkpoint is kept as it was.
  """


class GameAssumptionError(UserError):
  """A game that breaks an assumption of the method asked for; the message names which.

  Each assumption has its own subclass, so that callers tell them apart by type, never by the
  message's words.
  """


class ImperfectRecallError(GameAssumptionError):
  """A player forgets what they knew or did (the sequence form needs perfect recall).

  Two histories of one infoset differ in the player's own earlier sequence.
  """


class NotTimeableError(GameAssumptionError):
  """An infoset holds histories at different depths (the team LP needs a timeable game)."""


class NotZeroSumError(GameAssumptionError):
  """Two teams' utilities do not add to zero at some terminal history."""


class NotTurnBasedError(GameAssumptionError):
  """A simultaneous-move game where a turn-based one is needed."""
