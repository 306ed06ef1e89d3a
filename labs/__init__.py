"""The course's lessons as data, the learner's modules, and the one check pipeline."""
