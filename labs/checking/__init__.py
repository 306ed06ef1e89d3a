"""The check pipeline: the learner's files, their problems, the time limit, and what checks are written with."""
