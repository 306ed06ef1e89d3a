"""ember: reverse-mode automatic differentiation on single numbers."""
