"""Small helpers shared by the product and the lab simulator (no roceops imports). Pure, except the two file
helpers every command uses: ``safe_write`` (the one output writer) and ``bounded_read`` (bounded input files)."""
