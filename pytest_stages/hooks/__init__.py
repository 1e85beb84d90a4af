"""The pytest side: test assembly, registered-item collection, observation of the run, stash keys."""
