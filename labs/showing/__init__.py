"""What is shown: outputs and drawings, the same in the page and the notebook."""
