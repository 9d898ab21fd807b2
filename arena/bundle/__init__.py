"""Bundle: export a round as files with hashes and a signature, and verify such a bundle."""
