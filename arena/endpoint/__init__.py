"""The endpoint layer: asking an OpenAI-compatible endpoint, its settings, prices and cost rule.

Both collecting kinds (votes families and graded suites) stand on it.
"""
