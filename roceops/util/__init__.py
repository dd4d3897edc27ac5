"""Small helpers shared by the product and the lab simulator (no roceops imports; pure, except
:mod:`.processes`, which asks the kernel whether a process runs)."""
