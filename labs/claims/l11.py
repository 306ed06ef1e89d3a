"""Checks of lesson 11."""

from __future__ import annotations
