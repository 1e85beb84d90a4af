"""Stage texts as text: HLO parsing, normalizers, source locations, renumbering-proof diffs."""
