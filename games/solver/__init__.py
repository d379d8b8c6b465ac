"""Exact Dots-and-Boxes solver (Barker & Korf 2012)."""
