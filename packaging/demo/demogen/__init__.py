"""The demo generator's code (see ../make_demo.py); its words are in ../data/."""
