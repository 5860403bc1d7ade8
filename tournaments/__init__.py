"""Round-robin tournaments, result storage and ratings."""
