"""Arena's tests: a package, so that no installed package named ``tests`` (ppi-python
ships one) stands in for them."""
