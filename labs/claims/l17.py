"""Lesson 17's claims."""
