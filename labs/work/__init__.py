"""The learner's saved work: the work file that carries it between browsers and the terminal, and its merge."""
