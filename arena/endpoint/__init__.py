"""The endpoint layer: asking an OpenAI-compatible endpoint, its settings, prices, cost rule
and the one pool of workers. Both collecting kinds (votes families and graded suites) stand
on it.
"""
