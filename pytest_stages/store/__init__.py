"""Snapshot files on disk: safe paths, atomic writes through syrupy, the inventory of unused files."""
