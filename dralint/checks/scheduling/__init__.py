"""Allocation against a cluster snapshot (SCH rules)."""
