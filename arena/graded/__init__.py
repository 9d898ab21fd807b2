"""Graded families: graders, suites, collecting from an endpoint, and graded runs."""
