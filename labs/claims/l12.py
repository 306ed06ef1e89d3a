"""Checks of lesson 12."""

from __future__ import annotations
