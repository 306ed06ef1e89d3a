"""Lesson 18's claims."""
