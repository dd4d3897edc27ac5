"""Small pure helpers shared by the product and the lab simulator (no I/O, no roceops imports)."""
