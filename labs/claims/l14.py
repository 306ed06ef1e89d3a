"""Lesson 14's claims."""
