"""One stage_snapshot call as steps (stage, compare, decide, write), and the session state those calls share."""
