"""The rating page: the pair on screen, its panes and the render prefetch."""
