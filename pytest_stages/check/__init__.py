"""Snapshot against staged artifact: findings, budgets, the verdict, upgrade causes, the failure message."""
