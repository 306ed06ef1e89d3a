"""Lesson 15's claims."""
