"""Snapshot files on disk: safe paths, atomic writes through syrupy, the rules of a safe prune and its listing."""
