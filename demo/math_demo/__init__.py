"""Demo AgentJet project: a math workflow and its judge."""
