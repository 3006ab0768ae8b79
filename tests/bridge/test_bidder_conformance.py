"""Built-in and shipped bidders pass `bidder_conformance` (tests/bridge/bidder_conformance.py)."""

import os

import numpy as np
import pytest

from ospiel_team.bridge.agents import bidders
from tests import repo as tests_repo
from tests.bridge.bidder_conformance import bidder_conformance

# Built-in bidders, models of two kinds (A2C shipped, JPSBid from its experiment's folder)
# and, under the slow marker (DDS on every call: minutes), the play-time search bidder
# (`act_auction`).
NAMES = ["pass", "random", "natural", "a2c_uncontested",
         os.path.join(tests_repo.REPO, "experiments", "bridge_jpsbid", "models",
                      "a2c_jpsbid.npz"),
         pytest.param("search:best?k=2", marks=pytest.mark.slow)]


@pytest.mark.parametrize("name", NAMES)
def test_bidder_conforms(name):
  assert bidder_conformance(bidders.make_bidder(name), tables=8) >= 8 * 4


def test_a_bidder_that_breaks_the_contract_fails():
  class Illegal:
    name = "illegal"

    def act(self, observations, uniforms):
      legal = bidders.legal_calls(observations)
      return np.argmin(legal, axis=1)  # an illegal call wherever one exists

  with pytest.raises(AssertionError, match="illegal call"):
    bidder_conformance(Illegal(), tables=4)

  class Unstable:
    name = "unstable"
    rng = np.random.default_rng(0)

    def act(self, observations, uniforms):
      return bidders.sample_legal(bidders.legal_calls(observations),
                                  self.rng.random(len(uniforms)))

  with pytest.raises(AssertionError, match="other calls"):
    bidder_conformance(Unstable(), tables=4)
