"""The ``arena`` command line. It never imports the UI at module level."""
