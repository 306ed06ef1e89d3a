"""Drawings of any learner's Value graph: tables, Graphviz DOT, backward and sort traces."""
