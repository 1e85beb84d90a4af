"""Plain data and helpers every layer may use: units and numbers, call records, what a run observed."""
