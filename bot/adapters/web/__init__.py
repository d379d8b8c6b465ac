"""`dmhost web`: the match review pages, tournament pages and server pages over HTTP (aiohttp)."""
