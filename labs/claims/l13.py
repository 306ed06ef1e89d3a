"""Checks of lesson 13."""

from __future__ import annotations
