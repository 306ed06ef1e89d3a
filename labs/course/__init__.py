"""The course as data: lessons, their gaps, claims and questions, pages and data sets, and the claims' registry."""
