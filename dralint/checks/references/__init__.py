"""Cross-reference checks: every link between the objects of a run, found, missing or out of scope."""
