"""Tournaments: pairing, standings and the service that runs a Colosseum of Death Matches."""
