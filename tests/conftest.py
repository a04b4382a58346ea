"""Suite-wide test settings: Hypothesis profiles.

The default profile, ``ci``, is derandomized: every run draws the same examples, so the
README's test command (and CI) gives the same verdict on the same commit, and a failure is
reproduced by running the test again. Searching for new counterexamples is a separate, deliberate
run: ``python -m pytest --hypothesis-profile=explore tests/p2p`` draws fresh random examples
(and five times as many where a test does not fix its own ``max_examples``). A case found that
way is pinned with ``@example`` next to the property, as tests/p2p/test_reseat_session.py does.
"""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, max_examples=500, print_blob=True)
settings.load_profile("ci")
