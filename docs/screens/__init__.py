"""README screenshots, taken from matches played on the simulated Discord (SimCord): `python -m docs.screens.make`."""
