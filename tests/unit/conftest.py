"""The unit tests' pytest set-up: ``simcheck.py``, the checks the random simulations share, gets pytest's assertion
rewriting (a failing check shows the values it compared), as the test files do."""

import pytest

pytest.register_assert_rewrite("simcheck")
