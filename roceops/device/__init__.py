"""The shared device model, at the bottom of the house: what a device should hold (:mod:`.intent`), what it is
seen to hold (:mod:`.observed`), its operational state (:mod:`.oper`), the change/snapshot/facts types a deploy
moves (:mod:`.change`), ``compare(expected, observed)`` (:mod:`.compare`) and the device-facts check
(:mod:`.facts`). It imports only :mod:`roceops.model`, :mod:`roceops.util` and :mod:`roceops.registry`.
"""
