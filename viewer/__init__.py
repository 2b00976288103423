"""Rendering of results and counterexample traces."""
