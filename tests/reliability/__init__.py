"""The reliability suite (issue 8): crashes, tampering, bad input, other faults.

docs/reliability.md states each promise and the test that checks it.
"""
