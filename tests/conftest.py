import os

from hypothesis import settings

# "ci" is derandomized: every run draws the same examples, so CI is reproducible.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
