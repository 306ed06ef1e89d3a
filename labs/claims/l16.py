"""Lesson 16's claims."""
