"""Stand-in for the `expecttest` package (Debian does not ship it): PyTorch's internal test
helpers import it, but the operator database never uses its assertions."""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):
        self.assertEqual(actual, expect)
