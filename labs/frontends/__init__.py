"""The front ends: the page's Python side, the command line, the notebook and the web site's build."""
