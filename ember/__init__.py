"""ember: reverse-mode automatic differentiation, on single numbers and on arrays of them."""
