"""A standing league (``referee league``, docs/LEAGUE.md): benchmarks that keep playing each other, candidates
evaluated against them by the SPRT, a live web page. Its roster and token (:mod:`.roster`), its rules
(:mod:`.matchmaker`), its play loop (:mod:`.player`) and its page and JSON API (:mod:`.web`)."""
