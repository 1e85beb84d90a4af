"""Snapshot files on disk: safe paths, atomic writes, the rules of a safe prune and its listing."""
